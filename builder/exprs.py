"""Message expressions: which template a Rust expression passed as an error message renders.

``"text"``, ``"text".to_string()``, ``String::from("text")`` and ``concat!(..)`` are plain
literals (their braces are text).  ``format!(fmt, args)`` is a format string whose arguments
name the placeholders.  A plain identifier is resolved through a ``let`` earlier in the same
function.  Anything else has no literal message, and the reason says why.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from builder.items import Structure
from builder.rustlex import CLOSE, IDENT, OPEN, PUNCT, STR, Token, split_top_level
from builder.template import Template, name_placeholders, parse_format, plain

Result = Tuple[Optional[Template], Optional[str]]

_CHAIN_METHODS = {"to_string", "into", "to_owned", "as_str", "as_ref", "clone", "to_str", "borrow"}
_FORMAT_MACROS = {"format", "format_args"}


def strip_refs(toks: Sequence[Token], span: range) -> range:
    start = span.start
    while start < span.stop and toks[start].kind == PUNCT and toks[start].text in ("&", "*", "&&"):
        start += 1
    if start + 1 < span.stop and toks[start].kind == IDENT and toks[start].text == "mut" and toks[start - 1].text in ("&", "&&"):
        start += 1
    return range(start, span.stop)


def chain_only(toks: Sequence[Token], start: int, stop: int) -> bool:
    """True if toks[start:stop] is only ``.method()`` calls from _CHAIN_METHODS (or ``?``)."""
    i = start
    while i < stop:
        t = toks[i]
        if t.kind == PUNCT and t.text == "?":
            i += 1
            continue
        if not (t.kind == PUNCT and t.text == "." and i + 1 < stop and toks[i + 1].kind == IDENT):
            return False
        if toks[i + 1].text not in _CHAIN_METHODS:
            return False
        i += 2
        if i < stop and toks[i].kind == PUNCT and toks[i].text == "::":  # into::<String>()
            while i < stop and not (toks[i].kind == OPEN and toks[i].text == "("):
                i += 1
        if i < stop and toks[i].kind == OPEN and toks[i].text == "(":
            i = toks[i].match + 1
    return True


def macro_call(toks: Sequence[Token], start: int, stop: int) -> Optional[Tuple[str, int]]:
    """If toks[start:] is ``path::name!(..)``: (name, index of the open bracket)."""
    i = start
    while i + 1 < stop and toks[i].kind == IDENT and toks[i + 1].kind == PUNCT and toks[i + 1].text == "::":
        i += 2
    if i + 2 < stop + 1 and i + 1 < stop and toks[i].kind == IDENT and toks[i + 1].kind == PUNCT and toks[i + 1].text == "!":
        if i + 2 < len(toks) and toks[i + 2].kind == OPEN:
            return toks[i].text, i + 2
    return None


def format_args(toks: Sequence[Token], parts: Sequence[range]) -> Result:
    """A format string (first part) with its arguments (the other parts)."""
    if not parts:
        return None, "bare"
    first = parts[0]
    fmt: Optional[str] = None
    if len(first) == 1 and toks[first.start].kind == STR:
        fmt = toks[first.start].value or ""
    else:
        mc = macro_call(toks, first.start, first.stop)
        if mc and mc[0] == "concat":
            fmt = _concat(toks, mc[1])
        elif len(first) >= 1 and toks[first.start].kind == PUNCT and toks[first.start].text == "$":
            return None, "macro-var"
    if fmt is None:
        return None, "variable"
    positional: List[Optional[str]] = []
    named = {}
    for part in parts[1:]:
        if len(part) >= 3 and toks[part.start].kind == IDENT and toks[part.start + 1].kind == PUNCT and toks[part.start + 1].text == "=":
            val = range(part.start + 2, part.stop)
            named[toks[part.start].text] = plain_ident(toks, val)
            continue
        positional.append(plain_ident(toks, part))
    tpl = parse_format(fmt)
    return name_placeholders(tpl, positional, named), None


def plain_ident(toks: Sequence[Token], span: range) -> Optional[str]:
    """The identifier of a format argument that is a plain identifier (``op``, ``&op``), else None."""
    span = strip_refs(toks, span)
    if len(span) == 1 and toks[span.start].kind == IDENT and toks[span.start].text not in ("self", "true", "false"):
        return toks[span.start].text
    return None


def _concat(toks: Sequence[Token], open_idx: int) -> Optional[str]:
    parts = split_top_level(toks, open_idx + 1, toks[open_idx].match)
    out = []
    for p in parts:
        if len(p) == 1 and toks[p.start].kind == STR:
            out.append(toks[p.start].value or "")
        else:
            return None
    return "".join(out)


def message_expr(toks: Sequence[Token], span: range, st: Optional[Structure] = None, site_index: int = -1, depth: int = 0) -> Result:
    """The template of an expression used as a message, or (None, reason)."""
    while len(span) and toks[span.stop - 1].kind == PUNCT and toks[span.stop - 1].text == ",":
        span = range(span.start, span.stop - 1)
    span = strip_refs(toks, span)
    if len(span) == 0:
        return None, "bare"
    a = span.start
    t = toks[a]
    # closures: |..| body  or  || body
    if t.kind == PUNCT and t.text in ("|", "||"):
        j = a + 1
        if t.text == "|":
            while j < span.stop and not (toks[j].kind == PUNCT and toks[j].text == "|"):
                j += 1
            j += 1
        if j < span.stop and toks[j].kind == IDENT and toks[j].text == "move":
            j += 1
        if j < span.stop and toks[j].kind == OPEN and toks[j].text == "{" and toks[j].match == span.stop - 1:
            return _block_value(toks, j, st, site_index, depth)
        return message_expr(toks, range(j, span.stop), st, site_index, depth)
    if t.kind == IDENT and t.text == "move":
        return message_expr(toks, range(a + 1, span.stop), st, site_index, depth)
    if t.kind == STR:
        if chain_only(toks, a + 1, span.stop):
            return plain(t.value or ""), None
        return None, "expression"
    if t.kind == PUNCT and t.text == "$":
        return None, "macro-var"
    mc = macro_call(toks, a, span.stop)
    if mc is not None:
        name, open_idx = mc
        close = toks[open_idx].match
        if name in _FORMAT_MACROS and chain_only(toks, close + 1, span.stop):
            return format_args(toks, split_top_level(toks, open_idx + 1, close))
        if name == "concat" and chain_only(toks, close + 1, span.stop):
            text = _concat(toks, open_idx)
            return (plain(text), None) if text is not None else (None, "expression")
        return None, "expression"
    # String::from(x) / str::to_string(x) / Cow::from(x) / Box::from(x) ...
    if t.kind == IDENT and a + 3 < span.stop and toks[a + 1].text == "::" and toks[a + 2].kind == IDENT and toks[a + 2].text in ("from", "to_string", "to_owned", "new") and toks[a + 3].kind == OPEN and toks[a + 3].text == "(":
        # ... and `SomethingError::new(message)`, e.g. cubecl's `FormattedConfigError::new(|| format!(..))`
        if t.text in ("String", "str", "Cow", "Box", "ToString", "Into") or (t.text.endswith("Error") and toks[a + 2].text == "new"):
            close = toks[a + 3].match
            if chain_only(toks, close + 1, span.stop):
                return message_expr(toks, range(a + 4, close), st, site_index, depth)
    if t.kind == IDENT and st is not None and depth == 0:
        # a variable: resolve `let name = <message>;` earlier in the same function
        if chain_only(toks, a + 1, span.stop):
            found = let_value(toks, t.text, site_index, st)
            if found is not None:
                tpl, reason = message_expr(toks, found, st, site_index, depth + 1)
                if tpl is not None:
                    return tpl, None
            return None, "variable"
    if t.kind == IDENT:
        return None, "variable" if len(span) == 1 else "expression"
    return None, "expression"


def _block_value(toks: Sequence[Token], open_idx: int, st: Optional[Structure], site_index: int, depth: int) -> Result:
    """The trailing expression of a ``{ ...; expr }`` block."""
    close = toks[open_idx].match
    parts = split_top_level(toks, open_idx + 1, close, sep=";")
    if not parts:
        return None, "expression"
    return message_expr(toks, parts[-1], st, site_index, depth)


def let_value(toks: Sequence[Token], name: str, before: int, st: Structure) -> Optional[range]:
    """Span of the initializer of the nearest ``let name = ...;`` before ``before`` in its fn."""
    fn = st.fn_at(before)
    lo = fn.body_start if fn else 0
    i = before - 1
    while i > lo:
        t = toks[i]
        if t.kind == IDENT and t.text == name and toks[i - 1].kind == IDENT and toks[i - 1].text in ("let", "mut"):
            j = i + 1
            # optional type annotation
            if j < len(toks) and toks[j].kind == PUNCT and toks[j].text == ":":
                while j < len(toks) and not (toks[j].kind == PUNCT and toks[j].text in ("=", ";")):
                    if toks[j].kind == OPEN and toks[j].match > j:
                        j = toks[j].match
                    j += 1
            if j < len(toks) and toks[j].kind == PUNCT and toks[j].text == "=":
                k = j + 1
                while k < len(toks) and not (toks[k].kind == PUNCT and toks[k].text == ";"):
                    if toks[k].kind == OPEN and toks[k].match > k:
                        k = toks[k].match
                    elif toks[k].kind == CLOSE:
                        break
                    k += 1
                return range(j + 1, k)
            return None
        i -= 1
    return None


def enclosing_open(toks: Sequence[Token], index: int, limit: int = 400) -> int:
    """Index of the innermost open bracket that contains ``index`` (or -1)."""
    i = index - 1
    stop = max(-1, index - limit)
    while i > stop:
        t = toks[i]
        if t.kind == CLOSE and t.match >= 0:
            i = t.match - 1
            continue
        if t.kind == OPEN:
            return i
        i -= 1
    return -1
