"""Message templates: Rust format strings → pieces → search regex with named groups, and back.

A template is a tuple of pieces: literal text (``str``) and :class:`Placeholder`.  Three things
are derived from it and must agree with each other:

* ``text``: the message as written in the source (the record's ``errorMessage``);
* ``to_regex``: the record's ``messagePattern`` (compiled with DOTALL, applied with ``search``);
* ``synthesize``: an example message rustc would print, used by the self-test gate.

Pattern shape (see docs/design.md §Patterns): a placeholder in the middle is a bounded lazy
group, one that ends the template runs to the end of its line, one that starts the template is
anchored at a line start so that ``search`` does not try every offset of a long text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from errhint import rustfmt

MIDDLE_MAX = 1024
"""Longest value a middle group may capture; bounds the work of a failed search attempt."""

LEAD_MAX = 64
"""Longest value of each leading group when a template starts with several values
(``{bind_group} {group} expects ..``): the lookbehind that captures them tries every split
between them, so the cost of an attempt grows with the square of this bound (docs/performance.md
has the figures that set it). The values there are names, labels and numbers."""

PRUNE = "(*PRUNE)"
"""Placed after the literal that closes a group: once a value and its closing literal matched,
a later failure abandons this start position instead of re-trying longer values (which is what
makes nested lazy groups quadratic or worse).  Unlike an atomic group it keeps the literal at the
top level of the pattern, where the index's literal extraction sees it."""


@dataclass(frozen=True)
class Placeholder:
    """One ``{arg:spec}`` of a format string, with the capture-group name it becomes."""

    arg: str
    """As written: '' (positional), '0' (index) or an identifier."""
    spec: str = ""
    group: str = ""
    field: Optional[str] = None
    """For error-enum templates: the field it prints ('0', 'lhs'), when known."""

    @property
    def debug(self) -> bool:
        return "?" in self.spec

    def source(self) -> str:
        return "{" + self.arg + (":" + self.spec if self.spec else "") + "}"


Piece = Union[str, Placeholder]


@dataclass(frozen=True)
class Template:
    pieces: Tuple[Piece, ...]
    is_format: bool = True

    # ------------------------------------------------------------------ views
    @property
    def placeholders(self) -> List[Placeholder]:
        return [p for p in self.pieces if isinstance(p, Placeholder)]

    @property
    def text(self) -> str:
        """The template as written (format syntax; literal braces doubled in format context)."""
        out = []
        for p in self.pieces:
            if isinstance(p, Placeholder):
                out.append(p.source())
            elif self.is_format:
                out.append(p.replace("{", "{{").replace("}", "}}"))
            else:
                out.append(p)
        return "".join(out)

    @property
    def key(self) -> str:
        """Merge key: the literal text with every placeholder as ``{}`` (names and specs dropped)."""
        return "".join("{}" if isinstance(p, Placeholder) else p.replace("{", "{{").replace("}", "}}") for p in self.pieces)

    @property
    def literal(self) -> str:
        return "".join(p for p in self.pieces if isinstance(p, str))

    def literal_chars(self) -> int:
        """Count of non-space literal characters; below 8 a pattern is too generic to ship."""
        return sum(1 for c in self.literal if not c.isspace())

    def is_passthrough(self) -> bool:
        return not self.literal.strip()

    def groups(self) -> List[str]:
        return [p.group for p in self.placeholders]


# ---------------------------------------------------------------------- parsing

def parse_format(s: str) -> Template:
    """Parse a Rust format string (already unescaped) into pieces (``errhint.rustfmt.parse``).

    Malformed braces are kept as literal text, which is what a reader of the message sees.
    """
    pieces = [p if isinstance(p, str) else Placeholder(arg=p.arg, spec=p.spec) for p in rustfmt.parse(s)]
    return Template(tuple(pieces), True)


def plain(s: str) -> Template:
    """A literal used as-is (``.expect("..")``, ``TensorError::new("..")``): braces are text."""
    return Template((s,) if s else (), False)


def _merge_text(pieces: Iterable[Piece]) -> List[Piece]:
    out: List[Piece] = []
    for p in pieces:
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] = out[-1] + p
        elif p != "":
            out.append(p)
    return out


# ---------------------------------------------------------------------- names

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def sanitize(name: str) -> str:
    """A valid group name from a Rust identifier (``r#type`` → ``type``)."""
    name = name[2:] if name.startswith("r#") else name
    name = re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_") or "arg"
    if name[0].isdigit():
        name = "f" + name
    return name


def name_placeholders(
    tpl: Template,
    positional: Sequence[Optional[str]] = (),
    named: Optional[Mapping[str, Optional[str]]] = None,
    fields: Optional[Mapping[str, str]] = None,
) -> Template:
    """Give every placeholder its group name (and field, in error-enum templates).

    ``positional[i]`` is the plain identifier passed as i-th format argument (None when the
    argument is an expression); ``named`` maps ``name = expr`` arguments likewise.  ``fields``
    (error enums) maps what a placeholder may refer to (``'0'``, ``'lhs'``, a match binding) to
    the field it prints.  Rules: a field → its name (``f0`` for tuple fields); an inline
    identifier → itself; an argument that is a plain identifier → that identifier; else
    ``argN``.  Repeated names get ``_2``, ``_3``.
    """
    named = named or {}
    counter = 0
    used: Dict[str, int] = {}
    out: List[Piece] = []
    for p in tpl.pieces:
        if not isinstance(p, Placeholder):
            out.append(p)
            continue
        ref: Optional[str]
        if p.arg == "":
            ref = positional[counter] if counter < len(positional) else None
            own = f"arg{counter}"
            counter += 1
        elif p.arg.isdigit():
            idx = int(p.arg)
            ref = p.arg if (fields is not None and not positional) else (positional[idx] if idx < len(positional) else None)
            own = f"arg{idx}"
        else:
            ident = p.arg[2:] if p.arg.startswith("r#") else p.arg
            ref = named.get(ident) if ident in named else ident
            own = ident
        field = fields.get(ref) if (fields is not None and ref is not None) else None
        if field is not None:
            base = "f" + field if field.isdigit() else field
        elif p.arg and not p.arg.isdigit():
            base = own
        else:
            base = ref or own
        name = sanitize(base)
        used[name] = used.get(name, 0) + 1
        if used[name] > 1:
            name = f"{name}_{used[name]}"
        out.append(replace(p, group=name, field=field))
    return Template(tuple(out), tpl.is_format)


def display_text(tpl: Template) -> str:
    """The template written in terms of the fields it prints (``{0:?}``, ``{lhs}``): the form the
    engine needs to rebuild a Display message from a parsed Debug value."""
    out = []
    for p in tpl.pieces:
        if isinstance(p, Placeholder):
            arg = p.field if p.field is not None else p.arg
            out.append("{" + arg + (":" + p.spec if p.spec else "") + "}")
        else:
            out.append(p.replace("{", "{{").replace("}", "}}"))
    return "".join(out)


def substitute(tpl: Template, values: Mapping[str, "Template"]) -> Template:
    """Replace placeholders that print a field having a literal payload (``values[field]``).

    A payload printed with ``{:?}`` shows quoted, as Rust's Debug of a string does.
    """
    out: List[Piece] = []
    for p in tpl.pieces:
        if isinstance(p, Placeholder) and p.field is not None and p.field in values:
            out.extend(_printed(values[p.field], p.debug))
        else:
            out.append(p)
    return renumber(Template(tuple(_merge_text(out)), True))


def fill_group(tpl: Template, group: str, value: Template) -> Template:
    """Replace the placeholder(s) named ``group`` by ``value``'s pieces (a helper function's
    message parameter by the literal a caller passes).  A template that is only that
    placeholder becomes ``value`` itself, so a plain literal keeps its braces as text."""
    if len(tpl.pieces) == 1 and isinstance(tpl.pieces[0], Placeholder) and tpl.pieces[0].group == group:
        return value
    out: List[Piece] = []
    for p in tpl.pieces:
        if isinstance(p, Placeholder) and p.group == group:
            out.extend(_printed(value, p.debug))
        else:
            out.append(p)
    return renumber(Template(tuple(_merge_text(out)), True))


def _printed(value: Template, debug: bool) -> List[Piece]:
    """The pieces a literal ``value`` prints as: quoted and escaped under ``{:?}``, as Rust's Debug of a string."""
    if debug:
        return ['"', *_debug_escaped(value).pieces, '"']
    return list(value.pieces)


def _debug_escaped(tpl: Template) -> Template:
    pieces: List[Piece] = []
    for p in tpl.pieces:
        if isinstance(p, str):
            pieces.append(p.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t"))
        else:
            pieces.append(p)
    return Template(tuple(pieces), tpl.is_format)


def renumber(tpl: Template) -> Template:
    """Make group names unique again after pieces from several templates were combined."""
    used: Dict[str, int] = {}
    out: List[Piece] = []
    for p in tpl.pieces:
        if isinstance(p, Placeholder):
            base = re.sub(r"_\d+$", "", p.group) if re.search(r"_\d+$", p.group) and p.group.rsplit("_", 1)[0] else p.group
            base = base or "arg"
            used[base] = used.get(base, 0) + 1
            name = base if used[base] == 1 else f"{base}_{used[base]}"
            out.append(replace(p, group=name))
        else:
            out.append(p)
    return Template(tuple(out), tpl.is_format)


def concat(parts: Sequence[Template], sep: str = "") -> Template:
    pieces: List[Piece] = []
    for i, t in enumerate(parts):
        if i and sep:
            pieces.append(sep)
        pieces.extend(t.pieces)
    return renumber(Template(tuple(_merge_text(pieces)), any(t.is_format for t in parts)))


# ---------------------------------------------------------------------- regex

_SPECIAL = set("\\.^$*+?{}[]|()")


def escape(text: str) -> str:
    """Escape only what is special to the regex module, so literal runs stay readable."""
    out = []
    for c in text:
        if c in _SPECIAL:
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif ord(c) < 32:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    return "".join(out)


def to_regex(tpl: Template, optional_tail: Optional[Template] = None) -> str:
    """The search pattern of a template (and of an optional tail such as burn's ``.details``).

    Placeholders that start a template are captured by a lookbehind that reaches back to the
    line start, so the pattern itself starts with its first literal: ``search`` then scans for
    that literal instead of trying a lazy group at every offset of a long text.
    """
    body = _regex_of(list(tpl.pieces), final=optional_tail is None)
    if optional_tail is not None and optional_tail.pieces:
        tail = _regex_of([" "] + list(optional_tail.pieces), final=True, leading_anchor=False)
        body += "(?:" + tail + ")?"
    return body


BRACKETED = f"\\[[^\\[\\]\\n]{{0,{MIDDLE_MAX}}}+\\]|\\([^()\\n]{{0,{MIDDLE_MAX}}}+\\)|"
"""Alternatives tried first for a ``{:?}`` value: one balanced ``[..]`` or ``(..)`` (a shape, a
tuple), so that ``{lhs:?} {rhs:?}`` captures ``[20] [32, 20]`` as two shapes instead of cutting
the first at its space.  Possessive, bounded, without nesting: linear per start position."""


def _group(ph: Placeholder, position: str, lead_limit: int = MIDDLE_MAX) -> str:
    """The group of one placeholder; ``position`` is 'lead', 'middle', 'final' or 'open-end';
    ``lead_limit``: the longest value a 'lead' group takes."""
    name = ph.group
    if position == "final":
        return f"(?P<{name}>[^\\n]+)"
    shape = BRACKETED if ph.debug and "#" not in ph.spec else ""
    if position == "lead":
        return f"(?P<{name}>{shape}[^\\n]{{1,{lead_limit}}}?)"
    if position == "open-end":
        return f"(?P<{name}>{shape}[^\\n]+?)"
    # pretty Debug ({:#?}) spreads over lines; everything else stays on one line
    cls = "." if "#" in ph.spec else "[^\\n]"
    limit = MIDDLE_MAX * 4 if "#" in ph.spec else MIDDLE_MAX
    return f"(?P<{name}>{shape}{cls}{{1,{limit}}}?)"


def _strong(literal: str) -> bool:
    """A literal distinctive enough to start a search with (at least 4 non-space characters)."""
    return sum(1 for c in literal if not c.isspace()) >= 4


def _regex_of(pieces: List[Piece], final: bool, leading_anchor: bool = True) -> str:
    out: List[str] = []
    n = len(pieces)
    i = 0
    while i < n:
        p = pieces[i]
        if isinstance(p, str):
            out.append(escape(p))
            i += 1
            continue
        j = i
        while j < n and isinstance(pieces[j], Placeholder):
            j += 1
        follow = pieces[j] if j < n else None
        if i == 0 and leading_anchor and follow is not None:
            # leading values: captured by a lookbehind reaching back to the line start, so that
            # the pattern starts with its first *distinctive* literal (weak ones like " " or
            # "x" between leading values go into the lookbehind too)
            anchor = j
            while anchor < n and not (isinstance(pieces[anchor], str) and _strong(str(pieces[anchor]))):
                anchor += 1
            if anchor >= n:
                anchor = j
            leads = [k for k in range(anchor) if isinstance(pieces[k], Placeholder)]
            behind = "".join(
                (_group(q, "lead", LEAD_MAX if len(leads) > 1 else MIDDLE_MAX) if isinstance(q, Placeholder) else escape(q))
                for k, q in enumerate(pieces[:anchor])
            )
            out.append("(?<=(?:^|\\n)" + behind + ")" + escape(str(pieces[anchor])))
            i = anchor + 1
            continue
        for k in range(i, j):
            ph = pieces[k]
            assert isinstance(ph, Placeholder)
            if follow is None and k == j - 1:
                position = "final" if final else "open-end"
            elif k == 0 and leading_anchor:
                position = "lead"
            else:
                position = "middle"
            out.append(_group(ph, position))
        if follow is not None:
            out.append(escape(str(follow)) + PRUNE)
            i = j + 1
        else:
            i = j
    return "".join(out)


# ---------------------------------------------------------------------- examples

_NUMERIC = re.compile(
    r"(?:^|_)(?:dim|dims_len|rank|size|len|length|n|num|count|idx|index|i|j|k|start|end|offset|stride|"
    r"step|expected|got|actual|lo|hi|max|min|axis|pos|position|id|nelem|elem_count|numel|groups|"
    r"padding|dilation|kernel|channels|c_in|c_out|batch|seq_len|block_size|bits|width|height)(?:$|_)"
)


def example_value(ph: Placeholder, variant: int = 0) -> str:
    """A plausible rendered value for a placeholder (by its name), or a neutral token."""
    if variant:
        return f"v{variant}"
    name = ph.group.lower()
    if "dtype" in name or name in ("dt", "ty"):
        value = "F16"
    elif "shape" in name or name.endswith("dims") or name in ("lhs", "rhs", "l", "r"):
        value = "[2, 3]"
    elif "device" in name:
        value = "Cpu"
    elif name in ("op", "op_name", "ops", "name", "operation") or name.endswith("_op"):
        value = "matmul"
    elif _NUMERIC.search(name):
        value = "3"
    elif name in ("e", "err", "error", "f0_err", "source", "inner"):
        value = "io failure"
    elif "path" in name or "file" in name:
        value = "model.safetensors"
    else:
        value = "foo"
    if ph.debug and value in ("matmul", "foo", "model.safetensors", "io failure"):
        value = '"' + value + '"'
    return value


def synthesize(tpl: Template, tail: Optional[Template] = None, variant: int = 0) -> str:
    """Render the template with example values: the message rustc would print for it."""
    out: List[str] = []
    counter = 0
    for p in tpl.pieces:
        if isinstance(p, Placeholder):
            counter += 1
            out.append(example_value(p, counter if variant else 0))
        else:
            out.append(p)
    text = "".join(out)
    if tail is not None and tail.pieces:
        text += " " + synthesize(tail, variant=variant)
    return text


def rust_debug_str(s: str) -> str:
    """Rust's ``{:?}`` of a string: quoted, with quotes, backslashes and newlines escaped."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'
