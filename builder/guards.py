"""When a site fires: the condition guarding it and the function (with its impl type) around it.

``guard_at`` walks outwards from a site's token through the brackets that enclose it, inside its
function, and stops at the first construct that decides whether the site runs:

* ``if COND { .. }`` → COND; the ``else { .. }`` of it → COND negated;
* a ``match X { PAT => .. }`` arm → X matches PAT (``_`` → X matches none of the other arms);
* ``let PAT = EXPR else { .. }`` → EXPR does not match PAT;
* ``.ok_or(..)``, ``.ok_or_else(..)``, ``.map_err(..)``, ``.expect(..)``, ``.context(..)`` → the
  receiver gives no value or an error.

Assert macros are their own guard (``assert!(c, ..)`` fires when ``c`` is false,
``assert_eq!(a, b, ..)`` when ``a != b``): see :func:`assert_guard`.

The result is a clause to follow "when": the expression in backticks (identifiers, operators and
short call arguments only; longer arguments and blocks become ``..``; a condition that stays
longer than ``MAX_EXPR`` characters is left out) and, for comparisons, the same in words
("`k` differs from `k2`").  Nothing is invented: without a guard the result is None.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from builder.items import Structure
from builder.rustlex import CLOSE, IDENT, OPEN, PUNCT, STR, Token

MAX_EXPR = 80
"""Longest condition (in characters) quoted in a record."""
MAX_ARGS = 24
"""Call arguments longer than this are written ``(..)``."""

_COMPARE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_WORDS = {
    "!=": "{a} differs from {b}",
    "==": "{a} equals {b}",
    "<": "{a} is less than {b}",
    "<=": "{a} is at most {b}",
    ">": "{a} is greater than {b}",
    ">=": "{a} is at least {b}",
}
_BINARY = {"==", "!=", "<", ">", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%", "=", "|", "&", "^", "<<", ">>", "..", "..="}
_UNARY_AFTER = _BINARY | {"!", "(", "[", "{", ",", "=>", ";", "return"}
_STOP = {";", "=>"}

_NO_VALUE = {
    "ok_or": "returns None",
    "ok_or_else": "returns None",
    "map_err": "returns an error",
    "expect": "returns None or an error",
    "context": "returns None or an error",
    "with_context": "returns None or an error",
    "unwrap_or_else": "returns None or an error",
}


# --------------------------------------------------------------------------- writing expressions


def _text(toks: Sequence[Token], span: range, collapse: int = MAX_ARGS) -> str:
    """The tokens of ``span`` written back with readable spacing; long argument lists and every
    block become ``..``."""
    out: List[str] = []
    i = span.start
    prev: Optional[Token] = None
    while i < span.stop:
        t = toks[i]
        if t.kind == OPEN and t.match > i:
            inner = range(i + 1, min(t.match, span.stop))
            body = _text(toks, inner, collapse) if len(inner) else ""
            closure = len(inner) > 0 and toks[inner.start].text in ("|", "||", "move")
            if t.text == "{" or closure or len(body) > collapse:
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
            if prev is not None and prev.kind in (IDENT, STR, "num") and t.kind in (IDENT, STR, "num"):
                out.append(" ")
            out.append(t.text if t.kind != STR or len(t.text) <= 30 else '".."')
        prev = t
        i += 1
    return "".join(out).replace("  ", " ").strip()


def _top_ops(toks: Sequence[Token], span: range, ops: Sequence[str]) -> List[int]:
    """Indices of the top-level operators ``ops`` inside ``span`` (bracket groups skipped)."""
    found: List[int] = []
    i = span.start
    while i < span.stop:
        t = toks[i]
        if t.kind == OPEN and t.match > i:
            i = t.match + 1
            continue
        if t.kind == PUNCT and t.text in ops:
            found.append(i)
        i += 1
    return found


def _split(toks: Sequence[Token], span: range, op: str) -> List[range]:
    parts, cur = [], span.start
    for k in _top_ops(toks, span, (op,)):
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
    ops = _top_ops(toks, span, tuple(_COMPARE))
    if len(ops) != 1 or _top_ops(toks, span, ("&&", "||")):
        return None
    k = ops[0]
    op = toks[k].text
    if negate:
        op = _COMPARE[op]
    a, b = _text(toks, range(span.start, k)), _text(toks, range(k + 1, span.stop))
    if not a or not b:
        return None
    return _Clause(f"{a} {op} {b}", _WORDS[op].format(a=f"`{a}`", b=f"`{b}`"))


def _atom(toks: Sequence[Token], span: range, negate: bool) -> _Clause:
    span = _strip_parens(toks, span)
    cmp = _comparison(toks, span, negate)
    if cmp is not None:
        return cmp
    if negate and len(span) > 1 and toks[span.start].text == "!":
        return _Clause(_text(toks, range(span.start + 1, span.stop)), "")
    code = _text(toks, span)
    if negate:
        simple = len(span) == 1 or not _top_ops(toks, span, tuple(_BINARY) + ("as",))
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
    ors, ands = _top_ops(toks, span, ("||",)), _top_ops(toks, span, ("&&",))
    if ors and ands:
        code = _text(toks, span)
        clause = _Clause(f"!({code})" if negate else code, "")
    elif ors or ands:
        op = "||" if ors else "&&"
        parts = [_atom(toks, p, negate) for p in _split(toks, span, op)]
        written = {"||": "&&", "&&": "||"}[op] if negate else op
        words = (", or " if written == "||" else ", and ").join(c.words for c in parts)
        clause = _Clause(f" {written} ".join(c.code for c in parts), words if all(c.words for c in parts) else "")
    else:
        clause = _atom(toks, span, negate)
    if len(clause.code) > MAX_EXPR or "`" in clause.code:
        return None
    return f"`{clause.code}`" + (f" ({clause.words})" if clause.words else "")


def _pattern(toks: Sequence[Token], span: range) -> Optional[str]:
    text = _text(toks, span)
    return text if text and len(text) <= MAX_EXPR and "`" not in text else None


# --------------------------------------------------------------------------- finding the guard


def _statement_start(toks: Sequence[Token], i: int, floor: int) -> int:
    """First token of the statement or arm that ends just before ``i`` (bracket groups skipped)."""
    k = i - 1
    while k > floor:
        t = toks[k]
        if t.kind == CLOSE and t.match >= 0:
            if t.text == "}" and k + 1 < len(toks) and toks[k + 1].kind == IDENT and toks[k + 1].text in ("else",):
                k = t.match - 1
                continue
            if t.text == "}":
                return k + 1
            k = t.match - 1
            continue
        if t.kind == OPEN:
            return k + 1
        if t.kind == PUNCT and t.text in (";", ",", "=>"):
            return k + 1
        k -= 1
    return floor + 1


def _header(toks: Sequence[Token], open_idx: int, floor: int) -> Tuple[int, range]:
    """(index of the keyword, span after it up to the block) of ``KEYWORD .. {``: scans back from
    the block's ``{`` over bracket groups to the nearest ``if``/``match``/``while``/``for``/``let``."""
    k = open_idx - 1
    while k > floor:
        t = toks[k]
        if t.kind == CLOSE and t.match >= 0:
            k = t.match - 1
            continue
        if t.kind == OPEN or (t.kind == PUNCT and t.text in (";", "=>", ",")):
            break
        if t.kind == IDENT and t.text in ("if", "match", "while", "for", "loop", "let", "fn", "unsafe", "async", "move", "else", "return"):
            if t.text == "else" and k != open_idx - 1:
                break
            if t.text == "let" and k >= 1 and toks[k - 1].kind == IDENT and toks[k - 1].text in ("if", "while"):
                return k - 1, range(k, open_idx)  # `if let PAT = EXPR {`
            return k, range(k + 1, open_idx)
        if t.kind == PUNCT and t.text == "|" and k == open_idx - 1:
            return k, range(k, k)  # a closure body
        k -= 1
    return -1, range(0, 0)


def _if_clause(toks: Sequence[Token], span: range, negate: bool) -> Optional[str]:
    """``if COND`` or ``if let PAT = EXPR``."""
    if len(span) and toks[span.start].kind == IDENT and toks[span.start].text == "let":
        eq = _top_ops(toks, span, ("=",))
        if not eq:
            return None
        pat, expr = _pattern(toks, range(span.start + 1, eq[0])), _pattern(toks, range(eq[0] + 1, span.stop))
        if pat is None or expr is None:
            return None
        return f"`{expr}` {'does not match' if negate else 'matches'} `{pat}`"
    return condition(toks, span, negate)


def _arm_clause(toks: Sequence[Token], body_open: int, child: int, floor: int) -> Optional[str]:
    """The arm of the ``match`` whose body opens at ``body_open`` that contains ``child``."""
    kw, scrut = _header(toks, body_open, floor)
    if kw < 0 or toks[kw].text != "match":
        return None
    # the arm's `=>`: scan back from the child to the nearest top-level `=>` of this match body
    k = child - 1
    arrow = -1
    while k > body_open:
        t = toks[k]
        if t.kind == CLOSE and t.match > body_open:
            k = t.match - 1
            continue
        if t.kind == PUNCT and t.text == "=>":
            arrow = k
            break
        k -= 1
    if arrow < 0:
        return None
    start = _statement_start(toks, arrow, body_open)
    pat_span = range(start, arrow)
    guard_at_if = [j for j in pat_span if toks[j].kind == IDENT and toks[j].text == "if"]
    extra = None
    if guard_at_if:
        extra = condition(toks, range(guard_at_if[0] + 1, arrow))
        pat_span = range(start, guard_at_if[0])
    scrutinee = _pattern(toks, scrut)
    pat = _pattern(toks, pat_span)
    if scrutinee is None or pat is None:
        return None
    if pat == "_" or (pat.isidentifier() and pat[0].islower()):  # `_` or a binding: the catch-all arm
        out = f"`{scrutinee}` matches none of the other arms of its `match`"
    else:
        out = f"`{scrutinee}` matches `{pat}`"
    if extra:
        out += f" and {extra}"
    return out


def _let_else(toks: Sequence[Token], else_idx: int, floor: int) -> Optional[str]:
    start = _statement_start(toks, else_idx, floor)
    if not (toks[start].kind == IDENT and toks[start].text == "let"):
        return None
    span = range(start + 1, else_idx)
    eq = _top_ops(toks, span, ("=",))
    if not eq:
        return None
    pat, expr = _pattern(toks, range(span.start, eq[0])), _pattern(toks, range(eq[0] + 1, span.stop))
    if pat is None or expr is None:
        return None
    if pat.startswith("Some("):
        return f"`{expr}` is None"
    if pat.startswith("Ok("):
        return f"`{expr}` is an error"
    return f"`{expr}` does not match `{pat}`"


def _receiver(toks: Sequence[Token], dot: int, floor: int) -> Optional[str]:
    """The method-chain expression before ``toks[dot] == '.'`` (``self.get(name)``)."""
    k = dot - 1
    while k > floor:
        t = toks[k]
        if t.kind == CLOSE and t.match >= 0:
            k = t.match - 1
            continue
        if t.kind == IDENT or (t.kind == PUNCT and t.text in (".", "::", "?")):
            k -= 1
            continue
        break
    return _pattern(toks, range(k + 1, dot))


def guard_at(toks: Sequence[Token], st: Structure, i: int) -> Optional[str]:
    """The condition under which the code at token ``i`` runs, as a clause after "when" (or None)."""
    fn = st.fn_at(i)
    floor = fn.body_start if fn is not None else -1
    if toks[i].kind == IDENT and toks[i].text in _NO_VALUE and i >= 1 and toks[i - 1].text == ".":
        recv = _receiver(toks, i - 1, floor)  # the site is the `.expect(..)` / `.ok_or(..)` itself
        return f"`{recv}` {_NO_VALUE[toks[i].text]}" if recv is not None else None
    child = i
    j = _enclosing(toks, child)
    while j > floor:
        t = toks[j]
        if t.text == "(" and j >= 2 and toks[j - 1].kind == IDENT and toks[j - 2].text == "." and toks[j - 1].text in _NO_VALUE:
            recv = _receiver(toks, j - 2, floor)
            if recv is not None:
                return f"`{recv}` {_NO_VALUE[toks[j - 1].text]}"
        if t.text == "{":
            arm = _arm_clause(toks, j, child, floor)
            if arm is not None:
                return arm
            kw, span = _header(toks, j, floor)
            word = toks[kw].text if kw >= 0 else ""
            if word == "if":
                return _if_clause(toks, span, False)
            if word == "else":
                prev = toks[kw - 1] if kw >= 1 else None
                if prev is not None and prev.text == "}" and prev.match >= 0:
                    if_kw, if_span = _header(toks, prev.match, floor)
                    if if_kw >= 0 and toks[if_kw].text == "if":
                        return _if_clause(toks, if_span, True)
                    return None
                return _let_else(toks, kw, floor)
            if word in ("fn",):
                return None
        child = j
        j = _enclosing(toks, j)
    return None


def _enclosing(toks: Sequence[Token], index: int) -> int:
    """Index of the innermost open bracket containing ``index`` (or -1); no distance limit."""
    k = index - 1
    while k >= 0:
        t = toks[k]
        if t.kind == CLOSE and t.match >= 0:
            k = t.match - 1
            continue
        if t.kind == OPEN:
            return k
        k -= 1
    return -1


def assert_guard(toks: Sequence[Token], macro: str, args: Sequence[range]) -> Optional[str]:
    """``assert!(c, ..)`` fires when ``c`` is false; ``assert_eq!(a, b)`` when ``a != b``."""
    if macro.endswith(("assert_eq", "assert_ne")) and len(args) >= 2:
        op = "!=" if macro.endswith("assert_eq") else "=="
        a, b = _text(toks, args[0]), _text(toks, args[1])
        if not a or not b or len(a) + len(b) > MAX_EXPR:
            return None
        return f"`{a} {op} {b}` ({_WORDS[op].format(a=f'`{a}`', b=f'`{b}`')})"
    if args:
        return condition(toks, args[0], negate=True)
    return None


def owner_of(st: Structure, fn_start: int) -> Optional[str]:
    """The type of the ``impl`` block a function is defined in (``Tensor`` for ``Tensor::matmul``)."""
    imp = st.impl_at(fn_start)
    return imp.type_name if imp is not None else None


def qualified(owner: Optional[str], fn: Optional[str]) -> Optional[str]:
    if not fn:
        return None
    return f"{owner}::{fn}" if owner else fn
