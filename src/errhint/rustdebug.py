"""A small recursive-descent parser for Rust ``{:?}`` (derived ``Debug``) output.

candle up to 0.8.1 hands Python the Debug form of its error
(``WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: ... }``), and
``.unwrap()`` panics end with the Debug of the error.  Matching those texts needs the variant
name and the value of each field, with Rust string escapes undone; regexes over the raw text
break on nesting and on escaped quotes, so this parses the grammar instead.

Every value keeps ``raw``, its exact source text, because a ``{field:?}`` placeholder in a
Display template prints precisely that text.
"""

import re
from typing import Any, Dict, NamedTuple, Optional, Tuple

from errhint._lazyre import LazyPattern

MAX_DEPTH = 64

_TOKEN = LazyPattern(
    r"""
    \s*  # whitespace before a token is taken with it: one match per token
    (?:(?P<str>"(?:[^"\\]|\\.)*")
  | (?P<char>'(?:[^'\\]|\\u\{[0-9a-fA-F]{1,6}\}|\\.)')
  | (?P<num>-?(?:inf|NaN|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)(?:\.\.=?-?\d[\d_]*)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*(?:<[^<>\s]*>)?)
  | (?P<opaque><[^<>\n]{1,40}>)
  | (?P<dots>\.\.)
  | (?P<punct>[()\[\]{},:]))
    """,
    re.VERBOSE | re.DOTALL,
)

_SPACE_TO_END = LazyPattern(r"\s*\Z")

_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "0": "\0", "\\": "\\", '"': '"', "'": "'"}
_ESCAPE_RE = LazyPattern(r"\\(u\{([0-9a-fA-F]{1,6})\}|x([0-9a-fA-F]{2})|.)", re.DOTALL)


class Value(NamedTuple):
    """One parsed Debug value.

    ``kind``: ``str``, ``char``, ``atom`` (number, bool, unit-like identifier, ``<disabled>``),
    ``variant`` (an identifier followed by ``(..)``, ``{..}`` or ``[..]``; ``shape`` tells
    which), ``list``, ``tuple``, ``struct`` (anonymous ``{ a: 1 }``), ``map`` or ``set``.
    """

    kind: str
    raw: str
    text: str = ""
    name: str = ""
    shape: str = ""
    items: Tuple[Any, ...] = ()
    """Elements (list, tuple, set) or a tuple variant's fields, each a ``Value``; the type says
    ``Any`` because a class cannot name itself in its own fields without a forward reference."""
    fields: Tuple[Tuple[str, Any], ...] = ()
    """(name, ``Value``) of a struct or struct variant, in order."""

    def field(self, name: str) -> "Optional[Value]":
        """The value of field ``name``, or None."""
        for key, value in self.fields:
            if key == name:
                return value
        return None

    @property
    def is_variant(self) -> bool:
        """A named enum variant or struct: ``Msg("..")``, ``Foo { .. }`` or a CamelCase unit."""
        if self.kind == "variant":
            return True
        return self.kind == "atom" and bool(self.text[:1].isupper()) and self.text.isidentifier()

    def named_values(self) -> "Dict[str, Value]":
        """Fields by name; tuple fields are named ``0``, ``1``, ... as in thiserror templates."""
        if self.shape == "struct":
            return dict(self.fields)
        return {str(i): v for i, v in enumerate(self.items)}


class DebugSyntaxError(ValueError):
    pass


def unescape(body: str) -> str:
    """Undo Rust string escapes (``\\"``, ``\\\\``, ``\\n``, ``\\u{..}``) of a Debug string body."""
    if "\\" not in body:
        return body

    def repl(m: "re.Match[str]") -> str:
        if m.group(2):
            code = int(m.group(2), 16)
            return chr(code) if code <= 0x10FFFF else m.group(0)  # not a char: keep the text
        if m.group(3):
            return chr(int(m.group(3), 16))
        c = m.group(1)
        return _ESCAPES.get(c, "\\" + c)

    return _ESCAPE_RE.sub(repl, body)


class _Parser:
    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos
        self._peeked: Optional[Tuple[str, str, int, int]] = None

    # tokens -----------------------------------------------------------------
    def peek(self) -> Tuple[str, str, int, int]:
        if self._peeked is None:
            self._peeked = self._scan()
        return self._peeked

    def next(self) -> Tuple[str, str, int, int]:
        tok = self.peek()
        self._peeked = None
        self.pos = tok[3]
        return tok

    def _scan(self) -> Tuple[str, str, int, int]:
        text, pos = self.text, self.pos
        m = _TOKEN.match(text, pos)
        if m is None:
            if _SPACE_TO_END.match(text, pos):  # no copy of a long unparsed tail
                return ("eof", "", len(text), len(text))
            raise DebugSyntaxError(f"unexpected character at {pos}")
        kind = m.lastgroup or ""
        return (kind, m.group(kind), m.start(kind), m.end())

    def expect(self, value: str) -> Tuple[str, str, int, int]:
        tok = self.next()
        if tok[1] != value or tok[0] != "punct":
            raise DebugSyntaxError(f"expected {value!r} at {tok[2]}")
        return tok

    def at(self, value: str) -> bool:
        tok = self.peek()
        return tok[0] == "punct" and tok[1] == value

    # grammar ----------------------------------------------------------------
    def value(self, depth: int = 0) -> Value:
        if depth > MAX_DEPTH:
            raise DebugSyntaxError("nesting too deep")
        kind, tok, start, end = self.next()
        if kind == "str":
            return Value("str", tok, text=unescape(tok[1:-1]))
        if kind == "char":
            return Value("char", tok, text=unescape(tok[1:-1]))
        if kind in ("num", "opaque"):
            return Value("atom", tok, text=tok)
        if kind == "ident":
            nxt = self.peek()
            if nxt[0] == "punct" and nxt[1] in "([{" and nxt[1]:
                opener = nxt[1]
                self.next()
                if opener == "(":
                    items = self.seq(")", depth)
                    return Value("variant", self.text[start : self.pos], name=tok, shape="tuple", items=items)
                if opener == "[":
                    items = self.seq("]", depth)
                    return Value("variant", self.text[start : self.pos], name=tok, shape="list", items=items)
                fields = self.struct_fields(depth)
                return Value("variant", self.text[start : self.pos], name=tok, shape="struct", fields=fields)
            return Value("atom", tok, text=tok)
        if kind == "punct" and tok == "[":
            items = self.seq("]", depth)
            return Value("list", self.text[start : self.pos], items=items)
        if kind == "punct" and tok == "(":
            items = self.seq(")", depth)
            return Value("tuple", self.text[start : self.pos], items=items)
        if kind == "punct" and tok == "{":
            return self.brace(start, depth)
        raise DebugSyntaxError(f"unexpected {tok!r} at {start}")

    def seq(self, close: str, depth: int) -> Tuple[Value, ...]:
        items = []
        while not self.at(close):
            if self.peek()[0] == "dots":  # `[1, 2, ..]` from custom Debug impls
                self.next()
            else:
                items.append(self.value(depth + 1))
            if not self.at(","):
                break
            self.next()
        self.expect(close)
        return tuple(items)

    def struct_fields(self, depth: int) -> Tuple[Tuple[str, Value], ...]:
        fields = []
        while not self.at("}"):
            kind, tok, start, _ = self.next()
            if kind == "dots":  # non-exhaustive: `Foo { a: 1, .. }`
                continue
            if kind not in ("ident", "num"):
                raise DebugSyntaxError(f"expected a field name at {start}")
            self.expect(":")
            fields.append((tok, self.value(depth + 1)))
            if not self.at(","):
                break
            self.next()
        self.expect("}")
        return tuple(fields)

    def brace(self, start: int, depth: int) -> Value:
        """``{ a: 1 }`` (anonymous struct), ``{"k": v}`` (map) or ``{1, 2}`` (set)."""
        if self.at("}"):
            self.next()
            return Value("map", self.text[start : self.pos])
        first = self.peek()
        if first[0] == "ident":
            save_pos, save_peek = self.pos, self._peeked
            self.next()
            if self.at(":"):
                self.pos, self._peeked = save_pos, save_peek
                fields = self.struct_fields(depth)
                return Value("struct", self.text[start : self.pos], shape="struct", fields=fields)
            self.pos, self._peeked = save_pos, save_peek
        items = []
        fields = []
        is_map = False
        while not self.at("}"):
            key = self.value(depth + 1)
            if self.at(":"):
                self.next()
                is_map = True
                fields.append((key.raw, self.value(depth + 1)))
            else:
                items.append(key)
            if not self.at(","):
                break
            self.next()
        self.expect("}")
        raw = self.text[start : self.pos]
        if is_map:
            return Value("map", raw, fields=tuple(fields))
        return Value("set", raw, items=tuple(items))


def parse(text: str) -> Optional[Value]:
    """The Debug value that makes up all of ``text`` (surrounding whitespace allowed), or None."""
    try:
        p = _Parser(text)
        value = p.value()
        if p.peek()[0] != "eof":
            return None
        return value
    except (DebugSyntaxError, RecursionError, ValueError, OverflowError):
        return None


def strings_in(value: Value, limit: int = 4) -> Tuple[str, ...]:
    """The string fields of a variant's Debug value, longest first, at most ``limit``: the
    messages a wrapper of unknown shape carries (``InvalidAttribute { name: "pads", reason:
    "Negative pad is not supported" }``). Nested values are not entered."""
    values = [v for _, v in value.fields] + list(value.items)
    found = sorted({v.text for v in values if v.kind == "str"}, key=lambda t: (-len(t), t))
    return tuple(found[:limit])


def parse_prefix(text: str, pos: int = 0) -> Optional[Tuple[Value, int]]:
    """The Debug value starting at ``pos`` and the position after it, or None.

    Used where a value is followed by other text, and to read ``WithBacktrace``'s ``inner``
    without tokenising a long backtrace.
    """
    try:
        p = _Parser(text, pos)
        value = p.value()
        return value, p.pos
    except (DebugSyntaxError, RecursionError, ValueError, OverflowError):
        return None


def parse_struct_head(text: str, name: str, stop_at: Tuple[str, ...] = ()) -> Optional[Dict[str, Value]]:
    """Fields of ``name { f: v, ... }`` parsed one by one until the text stops parsing, or
    until a field named in ``stop_at`` (left unparsed: a backtrace can be kilobytes long).

    ``WithBacktrace { inner: X, backtrace: Backtrace [...] }`` may be cut short or carry a
    backtrace in a format this parser does not know; the fields before that still count.
    """
    m = re.match(r"\s*" + re.escape(name) + r"\s*\{", text)
    if not m:
        return None
    p = _Parser(text, m.end())
    out: Dict[str, Value] = {}
    try:
        while not p.at("}"):
            kind, tok, _, _ = p.next()
            if kind not in ("ident", "num") or tok in stop_at:
                break
            p.expect(":")
            out[tok] = p.value(1)
            if not p.at(","):
                break
            p.next()
    except (DebugSyntaxError, RecursionError, ValueError, OverflowError):
        pass
    return out
