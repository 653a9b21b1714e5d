"""Rust conditions written for a reader: the expression in backticks and, for comparisons, in words.

``condition`` turns the tokens of a boolean expression into a clause that follows "when":
``k != k2`` becomes "`k != k2` (`k` differs from `k2`)"; negated (an ``else`` branch, an
assert) by flipping comparisons and De Morgan on ``&&``/``||``.  Only identifiers, operators and
short call arguments are quoted: longer arguments, closures and blocks become ``..``, and an
expression that stays longer than ``MAX_EXPR`` characters is not quoted at all (None).
"""

from __future__ import annotations

from typing import List, Optional, Sequence

from builder.rustlex import IDENT, NUM, OPEN, PUNCT, STR, Token

MAX_EXPR = 80
"""Longest condition (in characters) quoted in a record."""
MAX_ARGS = 24
"""Call arguments longer than this are written ``(..)``."""

_COMPARE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
WORDS = {
    "!=": "{a} differs from {b}",
    "==": "{a} equals {b}",
    "<": "{a} is less than {b}",
    "<=": "{a} is at most {b}",
    ">": "{a} is greater than {b}",
    ">=": "{a} is at least {b}",
}
_BINARY = {"==", "!=", "<", ">", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%", "=", "|", "&", "^", "<<", ">>", "..", "..="}
_KEYWORDS = {"if", "while", "match", "return", "in", "else", "let", "for", "loop", "break", "as", "move", "mut", "ref"}
_UNARY_AFTER = _BINARY | {"!", "(", "[", "{", ",", "=>", ";", "return"}



def expr_text(toks: Sequence[Token], span: range, collapse: int = MAX_ARGS) -> str:
    """The tokens of ``span`` written back with readable spacing; long argument lists and every
    block become ``..``."""
    out: List[str] = []
    i = span.start
    prev: Optional[Token] = None
    while i < span.stop:
        t = toks[i]
        fish = _turbofish_end(toks, i, span.stop)
        if fish > i:  # `::<T, U>` written as it stands
            out.append("".join(x.text + (" " if x.text == "," else "") for x in toks[i:fish]))
            prev, i = toks[fish - 1], fish
            continue
        if t.kind == OPEN and t.match > i:
            inner = range(i + 1, min(t.match, span.stop))
            body = expr_text(toks, inner, collapse) if len(inner) else ""
            closure = len(inner) > 0 and toks[inner.start].text in ("|", "||", "move")
            # only a call's or an index's arguments are shortened: a grouping `(a && b)` keeps its
            # meaning only when written out (the whole stays bounded by MAX_EXPR)
            macro = prev is not None and prev.text == "!" and i >= 2 and toks[i - 2].kind == IDENT and toks[i - 2].text not in _KEYWORDS
            call = prev is not None and prev.kind == IDENT and prev.text not in _KEYWORDS
            arguments = call or macro or (prev is not None and prev.text in (")", "]", ">"))
            if t.text == "{" or closure or (arguments and len(body) > collapse):
                body = ".." if len(inner) else ""
            out.append(t.text + body + toks[t.match].text)
            prev = toks[t.match]
            i = t.match + 1
            continue
        if t.kind == PUNCT and t.text in _BINARY and prev is not None and not (prev.kind == PUNCT and prev.text in _UNARY_AFTER):
            out.append(f" {t.text} ")
        elif t.kind == PUNCT and t.text == ",":
            out.append(", ")
        else:
            if prev is not None and prev.kind in (IDENT, STR, NUM) and t.kind in (IDENT, STR, NUM):
                out.append(" ")
            out.append(t.text if t.kind != STR or len(t.text) <= 30 else '".."')
        prev = t
        i += 1
    return "".join(out).replace("  ", " ").strip()


def _turbofish_end(toks: Sequence[Token], i: int, stop: int) -> int:
    """For ``toks[i] == '<'`` right after ``::`` (a turbofish), the index after its ``>``; else ``i``."""
    if not (i >= 1 and toks[i].text == "<" and toks[i - 1].text == "::"):
        return i
    depth, k = 0, i
    while k < stop:
        depth += {"<": 1, ">": -1, ">>": -2}.get(toks[k].text, 0)
        k += 1
        if depth <= 0:
            return k
    return i


def top_ops(toks: Sequence[Token], span: range, ops: Sequence[str]) -> List[int]:
    """Indices of the top-level operators ``ops`` inside ``span`` (bracket groups and turbofish
    generics skipped)."""
    found: List[int] = []
    i = span.start
    while i < span.stop:
        t = toks[i]
        fish = _turbofish_end(toks, i, span.stop)
        if fish > i:
            i = fish
            continue
        if t.kind == OPEN and t.match > i:
            i = t.match + 1
            continue
        if t.kind == PUNCT and t.text in ops:
            found.append(i)
        i += 1
    return found


def _split(toks: Sequence[Token], span: range, op: str) -> List[range]:
    parts, cur = [], span.start
    for k in top_ops(toks, span, (op,)):
        parts.append(range(cur, k))
        cur = k + 1
    parts.append(range(cur, span.stop))
    return [p for p in parts if len(p)]


def _strip_parens(toks: Sequence[Token], span: range) -> range:
    while len(span) >= 2 and toks[span.start].text == "(" and toks[span.start].match == span.stop - 1:
        span = range(span.start + 1, span.stop - 1)
    return span


class _Clause:
    """One condition: code (for backticks) and words (or "" when only the code can be said)."""

    def __init__(self, code: str, words: str) -> None:
        self.code = code
        self.words = words


def _comparison(toks: Sequence[Token], span: range, negate: bool) -> Optional[_Clause]:
    ops = top_ops(toks, span, tuple(_COMPARE))
    if len(ops) != 1 or top_ops(toks, span, ("&&", "||")):
        return None
    k = ops[0]
    op = toks[k].text
    if negate:
        op = _COMPARE[op]
    a, b = expr_text(toks, range(span.start, k)), expr_text(toks, range(k + 1, span.stop))
    if not a or not b:
        return None
    return _Clause(f"{a} {op} {b}", WORDS[op].format(a=f"`{a}`", b=f"`{b}`"))


def _atom(toks: Sequence[Token], span: range, negate: bool) -> _Clause:
    span = _strip_parens(toks, span)
    cmp = _comparison(toks, span, negate)
    if cmp is not None:
        return cmp
    if negate and len(span) > 1 and toks[span.start].text == "!":
        return _Clause(expr_text(toks, range(span.start + 1, span.stop)), "")
    code = expr_text(toks, span)
    if negate:
        simple = len(span) == 1 or not top_ops(toks, span, tuple(_BINARY) + ("as",))
        code = "!" + (code if simple else f"({code})")
    return _Clause(code, "")


def condition(toks: Sequence[Token], span: range, negate: bool = False) -> Optional[str]:
    """The clause for the boolean expression ``span`` (negated for an ``else`` or an assert).

    ``a || b`` and ``a && b`` are described part by part (De Morgan when negated); a mix of both
    at the top level is quoted whole.  None when the expression cannot be quoted short.
    """
    span = _strip_parens(toks, span)
    if not len(span):
        return None
    ors, ands = top_ops(toks, span, ("||",)), top_ops(toks, span, ("&&",))
    if ors and ands:
        code = expr_text(toks, span)
        clause = _Clause(f"!({code})" if negate else code, "")
    elif ors or ands:
        op = "||" if ors else "&&"
        parts = [_atom(toks, p, negate) for p in _split(toks, span, op)]
        written = {"||": "&&", "&&": "||"}[op] if negate else op
        words = (", or " if written == "||" else ", and ").join(c.words for c in parts)
        clause = _Clause(f" {written} ".join(c.code for c in parts), words if all(c.words for c in parts) else "")
    else:
        clause = _atom(toks, span, negate)
    if len(clause.code) > MAX_EXPR or "`" in clause.code or "$" in clause.code or clause.code.strip("!(.)[] ") == "":
        return None
    return f"`{clause.code}`" + (f" ({clause.words})" if clause.words else "")


def short_code(toks: Sequence[Token], span: range, collapse: int = MAX_ARGS) -> Optional[str]:
    """``span`` as quotable code, or None when it is too long, says nothing (``(..)``) or is
    written with macro metavariables (``$x``)."""
    text = expr_text(toks, span, collapse)
    if not text or len(text) > MAX_EXPR or "`" in text or "$" in text:
        return None
    return None if text.strip("(.)[] ") == "" else text


def pattern_code(toks: Sequence[Token], span: range) -> Optional[str]:
    """A ``match``/``let`` pattern as quotable code: never shortened, since ``Float(..)`` would
    say "any float" where the pattern names one kind (None when longer than MAX_EXPR)."""
    return short_code(toks, span, collapse=MAX_EXPR)
