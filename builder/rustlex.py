"""A small but real Rust lexer for the dataset builder.

Why not grep: a message literal may sit lines after its macro name, strings may span lines with
``\\``-newline continuations, comments nest, and ``r#"..."#`` raw strings contain quotes.  A grep
miner gets about 3% of literals wrong and misses the sites whose literal is on a later line.

The lexer yields a flat token list (comments and whitespace dropped) with byte offsets, decoded
string values and, for every bracket, the index of its partner.  It never raises on odd input:
an unterminated construct simply runs to the end of the file.
"""

from __future__ import annotations

import bisect
import re
from typing import Dict, List, Optional, Sequence

IDENT = "ident"
LIFETIME = "lifetime"
STR = "str"
CHAR = "char"
NUM = "num"
PUNCT = "punct"
OPEN = "open"
CLOSE = "close"

_PAIRS = {"(": ")", "[": "]", "{": "}"}

_WS = re.compile(r"(?:\s+|//[^\n]*)+")
_IDENT = re.compile(r"(?:r#)?[A-Za-z_][A-Za-z0-9_]*")
_NUM = re.compile(
    r"0[xX][0-9a-fA-F_]+[A-Za-z0-9_]*"
    r"|0[oO][0-7_]+[A-Za-z0-9_]*"
    r"|0[bB][01_]+[A-Za-z0-9_]*"
    r"|[0-9][0-9_]*(?:\.(?![.A-Za-z_])[0-9_]*)?(?:[eE][+-]?[0-9_]+)?[A-Za-z0-9_]*"
)
_PUNCTS = (
    "<<=", ">>=", "...", "..=", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", "..",
)
_PUNCT3 = {p for p in _PUNCTS if len(p) == 3}
_PUNCT2 = {p for p in _PUNCTS if len(p) == 2}
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "0": "\0", "'": "'", '"': '"'}


class Token:
    """One token: ``kind``, source ``text``, decoded ``value`` (strings/chars), byte span, partner."""

    __slots__ = ("kind", "text", "value", "start", "end", "raw", "match")

    def __init__(self, kind: str, text: str, start: int, end: int, value: Optional[str] = None, raw: bool = False) -> None:
        self.kind = kind
        self.text = text
        self.value = value
        self.start = start
        self.end = end
        self.raw = raw
        self.match = -1

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Token({self.kind}, {self.text!r})"

    def is_(self, kind: str, text: Optional[str] = None) -> bool:
        return self.kind == kind and (text is None or self.text == text)


def decode_escapes(body: str) -> str:
    """Decode the escapes of a (non-raw) Rust string body, including ``\\``-newline continuation.

    A continuation swallows the newline and all leading whitespace of the next line, as rustc does.
    """
    if "\\" not in body:
        return body
    out: List[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
        elif nxt == "x":
            try:
                out.append(chr(int(body[i + 2 : i + 4], 16)))
            except ValueError:
                out.append(body[i : i + 4])
            i += 4
        elif nxt == "u" and i + 2 < n and body[i + 2] == "{":
            close = body.find("}", i + 3)
            if close < 0:
                out.append(body[i:])
                break
            digits = body[i + 3 : close].replace("_", "")
            try:
                out.append(chr(int(digits, 16)))
            except ValueError:
                out.append(body[i : close + 1])
            i = close + 1
        elif nxt in "\n\r":
            i += 2
            while i < n and body[i] in " \t\n\r":
                i += 1
        else:  # unknown escape: keep it verbatim
            out.append(body[i : i + 2])
            i += 2
    return "".join(out)


class Lexed:
    """The tokens of one source file plus helpers to map offsets to line numbers."""

    def __init__(self, source: str, tokens: List[Token]) -> None:
        self.source = source
        self.tokens = tokens
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", source)]

    def line_of(self, offset: int) -> int:
        """1-based line number of a character offset."""
        return bisect.bisect_right(self._line_starts, offset)

    def line(self, index: int) -> int:
        """1-based line of token ``index``."""
        return self.line_of(self.tokens[index].start)

    @property
    def line_count(self) -> int:
        return len(self._line_starts)


def lex(source: str) -> Lexed:
    """Tokenize ``source``; comments (nested block comments too) and whitespace are dropped."""
    toks: List[Token] = []
    i, n = 0, len(source)
    src = source
    while i < n:
        m = _WS.match(src, i)
        if m:
            i = m.end()
            if i >= n:
                break
        ch = src[i]
        if ch == "/" and src.startswith("/*", i):
            i = _skip_block_comment(src, i)
            continue
        # string-ish literals with prefixes: b"", br"", r"", r#""#, c"", cr""
        if ch in "brc":
            lit = _prefixed_literal(src, i)
            if lit is not None:
                toks.append(lit)
                i = lit.end
                continue
        if ch == '"':
            tok = _string(src, i, i)
            toks.append(tok)
            i = tok.end
            continue
        if ch == "'":
            tok = _quote(src, i)
            toks.append(tok)
            i = tok.end
            continue
        if ch.isalpha() or ch == "_":
            m = _IDENT.match(src, i)
            if m:
                toks.append(Token(IDENT, m.group(), i, m.end()))
                i = m.end()
                continue
        if ch.isdigit():
            m = _NUM.match(src, i)
            if m:
                toks.append(Token(NUM, m.group(), i, m.end()))
                i = m.end()
                continue
        if ch in "([{":
            toks.append(Token(OPEN, ch, i, i + 1))
            i += 1
            continue
        if ch in ")]}":
            toks.append(Token(CLOSE, ch, i, i + 1))
            i += 1
            continue
        three = src[i : i + 3]
        if three in _PUNCT3:
            toks.append(Token(PUNCT, three, i, i + 3))
            i += 3
            continue
        two = src[i : i + 2]
        if two in _PUNCT2:
            toks.append(Token(PUNCT, two, i, i + 2))
            i += 2
            continue
        if ord(ch) > 127 and ch.isidentifier():
            m = re.compile(r"\w+").match(src, i)
            end = m.end() if m else i + 1
            toks.append(Token(IDENT, src[i:end], i, end))
            i = end
            continue
        toks.append(Token(PUNCT, ch, i, i + 1))
        i += 1
    _match_brackets(toks)
    return Lexed(source, toks)


_COMMENT_MARK = re.compile(r"/\*|\*/")


def _skip_block_comment(src: str, i: int) -> int:
    """Offset just after the (possibly nested) block comment opening at ``i``."""
    depth = 0
    for m in _COMMENT_MARK.finditer(src, i):
        if m.group() == "/*":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.end()
    return len(src)


def _string(src: str, start: int, quote: int, raw_prefix: str = "") -> Token:
    """A "..." string whose opening quote is at ``quote`` (``start`` includes any prefix)."""
    i = quote + 1
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            body = src[quote + 1 : i]
            return Token(STR, src[start : i + 1], start, i + 1, decode_escapes(body))
        i += 1
    return Token(STR, src[start:], start, n, decode_escapes(src[quote + 1 :]))


def _raw_string(src: str, start: int, r_pos: int) -> Optional[Token]:
    """``r#*"..."#*`` starting with the ``r`` at ``r_pos``."""
    j = r_pos + 1
    hashes = 0
    while j < len(src) and src[j] == "#":
        hashes += 1
        j += 1
    if j >= len(src) or src[j] != '"':
        return None
    closing = '"' + "#" * hashes
    end = src.find(closing, j + 1)
    if end < 0:
        return Token(STR, src[start:], start, len(src), src[j + 1 :], raw=True)
    return Token(STR, src[start : end + len(closing)], start, end + len(closing), src[j + 1 : end], raw=True)


def _prefixed_literal(src: str, i: int) -> Optional[Token]:
    two = src[i : i + 2]
    three = src[i : i + 3]
    if i > 0 and (src[i - 1].isalnum() or src[i - 1] == "_"):
        return None
    if src[i] == "r" and (two == 'r"' or three == "r#\"" or (two == "r#" and src[i + 2 : i + 3] == "#")):
        return _raw_string(src, i, i)
    if src[i] in "bc":
        if src[i + 1 : i + 2] == '"':
            return _string(src, i, i + 1)
        if src[i + 1 : i + 2] == "r" and src[i + 2 : i + 3] in ('"', "#"):
            return _raw_string(src, i, i + 1)
        if src[i] == "b" and src[i + 1 : i + 2] == "'":
            tok = _quote(src, i + 1)
            return Token(CHAR, src[i : tok.end], i, tok.end, tok.value)
    return None


def _quote(src: str, i: int) -> Token:
    """A char literal or a lifetime/label starting at the quote ``i``."""
    n = len(src)
    if i + 1 < n and src[i + 1] == "\\":
        j = i + 3  # past the backslash and the escaped character (which may be a quote)
        while j < n and src[j] != "'":
            j += 1
        return Token(CHAR, src[i : j + 1], i, min(j + 1, n), decode_escapes(src[i + 1 : j]))
    if i + 2 < n and src[i + 2] == "'":
        return Token(CHAR, src[i : i + 3], i, i + 3, src[i + 1])
    m = _IDENT.match(src, i + 1)
    if m:
        return Token(LIFETIME, src[i : m.end()], i, m.end())
    # a multi-byte char such as '→'
    close = src.find("'", i + 1)
    if 0 < close - i <= 5:
        return Token(CHAR, src[i : close + 1], i, close + 1, src[i + 1 : close])
    return Token(PUNCT, "'", i, i + 1)


def _match_brackets(toks: Sequence[Token]) -> None:
    stack: List[int] = []
    for idx, tok in enumerate(toks):
        if tok.kind == OPEN:
            stack.append(idx)
        elif tok.kind == CLOSE:
            # pop until a partner of the right type (tolerates stray brackets in macros)
            while stack:
                top = stack.pop()
                if _PAIRS[toks[top].text] == tok.text:
                    toks[top].match = idx
                    tok.match = top
                    break


_ANGLE_DEPTH = {"<": 1, ">": -1, ">>": -2, "<<": 2}


def split_top_level(tokens: Sequence[Token], start: int, end: int, sep: str = ",", angles: bool = False) -> List[range]:
    """Split tokens[start:end] at ``sep`` punctuation outside any bracket; empty trailing part dropped.

    ``angles=True`` also treats ``<..>`` as brackets: for *type* lists (fields, parameters), where
    ``HashMap<K, V>`` is one item.  Never use it on expressions (``a < b, c > d``).
    """
    parts: List[range] = []
    i = cur = start
    depth = 0
    while i < end:
        tok = tokens[i]
        if tok.kind == OPEN and tok.match > i:
            i = tok.match + 1
            continue
        if angles and tok.kind == PUNCT and tok.text in _ANGLE_DEPTH:
            depth = max(0, depth + _ANGLE_DEPTH[tok.text])
        elif tok.kind == PUNCT and tok.text == sep and depth == 0:
            parts.append(range(cur, i))
            cur = i + 1
        i += 1
    if cur < end:
        parts.append(range(cur, end))
    return parts


def group_end(tokens: Sequence[Token], open_index: int) -> int:
    """Index of the closing partner of the bracket at ``open_index`` (or the last token)."""
    m = tokens[open_index].match
    return m if m >= 0 else len(tokens) - 1


_WORDY = (IDENT, LIFETIME, NUM)
_SPACE_AFTER = {",", ";", "+", "=", "->", "dyn", "impl", "mut", "const"}
_SPACE_BEFORE = {"+", "=", "->"}


def type_text(tokens: Sequence[Token], span: range) -> str:
    """A type (or path) written back from its tokens in rustfmt's spacing:
    ``Box<dyn std::error::Error + Send + Sync>``, ``&'static str``, ``[usize; 4]``."""
    out: List[str] = []
    prev: Optional[Token] = None
    for i in span:
        t = tokens[i]
        if prev is not None:
            if (prev.kind in _WORDY and t.kind in _WORDY) or prev.text in _SPACE_AFTER or t.text in _SPACE_BEFORE:
                if not (prev.kind == PUNCT and prev.text == "&" and t.kind == LIFETIME):
                    out.append(" ")
        out.append(t.text)
        prev = t
    return "".join(out)


def token_texts(tokens: Sequence[Token], span: range) -> List[str]:
    return [tokens[i].text for i in span]


def stats(tokens: Sequence[Token]) -> Dict[str, int]:
    """Token counts per kind (used by tests and coverage notes)."""
    out: Dict[str, int] = {}
    for t in tokens:
        out[t.kind] = out.get(t.kind, 0) + 1
    return out
