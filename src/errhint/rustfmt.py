"""Rust format strings read into pieces: the one parser of them.

The builder reads a record's message (``"shape mismatch in {op}, lhs: {lhs:?}"``) with it to
derive the record's pattern; the runtime reads a variant's Display template with it to rebuild
the message of a Debug value, and to find the values a specialised message fixes.
"""


import re
from typing import Dict, List, NamedTuple, Optional, Tuple, Union

_ARG = re.compile(r"^\s*(?:[0-9]+|(?:r#)?[A-Za-z_][A-Za-z0-9_]*)?\s*$")


class Placeholder(NamedTuple):
    """One ``{arg:spec}`` of a format string."""

    arg: str
    """As written, stripped: ``''`` (positional), ``'0'`` (an index) or an identifier."""
    spec: str = ""
    """What follows the ``:``, stripped (``'?'`` for Debug), ``''`` when none."""

    @property
    def debug(self) -> bool:
        """The value is printed with its Debug form (``{:?}``, ``{x:#?}``)."""
        return "?" in self.spec


Piece = Union[str, Placeholder]


def parse(s: str) -> Tuple[Piece, ...]:
    """The pieces of format string ``s`` (already unescaped): literal text (``{{`` and ``}}``
    undoubled) and placeholders, in order; two literal pieces never follow each other and
    none is empty. Malformed braces stay literal text, which is what a reader of the message
    sees."""
    pieces: List[Piece] = []
    buf: List[str] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "{":
            if i + 1 < n and s[i + 1] == "{":
                buf.append("{")
                i += 2
                continue
            close = s.find("}", i + 1)
            inner = s[i + 1 : close] if close >= 0 else None
            if inner is not None and "{" not in inner:
                arg, _, spec = inner.partition(":")
                if _ARG.match(arg):
                    if buf:
                        pieces.append("".join(buf))
                        buf = []
                    pieces.append(Placeholder(arg.strip(), spec.strip()))
                    i = close + 1
                    continue
            buf.append(c)
            i += 1
            continue
        if c == "}" and i + 1 < n and s[i + 1] == "}":
            buf.append("}")
            i += 2
            continue
        buf.append(c)
        i += 1
    if buf:
        pieces.append("".join(buf))
    return tuple(pieces)


def field_names(pieces: Tuple[Piece, ...]) -> List[Optional[str]]:
    """Per piece, the name of the value a placeholder prints (None for literal text): its
    argument, or for ``{}`` its position among the ``{}`` placeholders (``'0'``, ``'1'``...)."""
    out: List[Optional[str]] = []
    positional = 0
    for piece in pieces:
        if isinstance(piece, str):
            out.append(None)
        elif piece.arg:
            out.append(piece.arg)
        else:
            out.append(str(positional))
            positional += 1
    return out


def read_values(template: str, message: str) -> Optional[Dict[str, str]]:
    """The text each placeholder of ``template`` stands for in ``message``, by field name
    (``field_names``), when ``message`` is ``template`` with its placeholders filled in (the
    shortest filling wins); None when it is not."""
    pieces = parse(template)
    names = field_names(pieces)
    source: List[str] = []
    for n, piece in enumerate(pieces):
        source.append(re.escape(piece) if isinstance(piece, str) else f"(?P<g{n}>.*?)")
    found = re.fullmatch("".join(source), message, re.DOTALL)
    if found is None:
        return None
    return {name: found.group(f"g{n}") for n, name in enumerate(names) if name is not None}
