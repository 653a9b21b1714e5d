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

The result is a clause to follow "when", written by :mod:`builder.conditions` (the expression in
backticks and, for comparisons, in words).  Nothing is invented: without a guard, or with one
too long to quote, the result is None.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

from builder.conditions import MAX_EXPR, WORDS, condition, expr_text, pattern_code, short_code, top_ops
from builder.items import Structure
from builder.rustlex import CLOSE, IDENT, OPEN, PUNCT, Token

_NO_VALUE = {
    "ok_or": "returns None",
    "ok_or_else": "returns None",
    "map_err": "returns an error",
    "expect": "returns None or an error",
    "context": "returns None or an error",
    "with_context": "returns None or an error",
    "unwrap_or_else": "returns None or an error",
}
"""What the receiver of each of these methods did for the site to run; "None or an error" where
the method takes both an Option and a Result, unless the receiver's own last call tells which."""

_GIVES_OPTION = frozenset({
    "next", "pop", "position", "peek", "checked_add", "checked_sub", "checked_mul", "checked_div",
    "strip_prefix", "strip_suffix", "parent", "file_name", "file_stem", "extension",
    "as_f64", "as_u64", "as_i64", "as_array", "as_object",
})
"""std (and serde_json) methods that return an Option; names that candle or burn also give to\nmethods returning a Result (``get``, ``max``, ``first``) are left out."""

_GIVES_RESULT = frozenset({
    "send", "recv", "parse", "try_into", "try_from", "join", "open", "create",
    "read_to_string", "read_to_end", "from_str", "flush", "write_all", "read_exact",
    "create_dir_all", "metadata", "canonicalize", "recv_timeout", "try_recv", "spawn", "from_utf8",
    "from_slice", "to_string_pretty", "from_reader", "to_writer", "read_dir", "remove_file", "rename",
})
"""std (and serde_json) methods that return a Result; `lock`, `read` and `write` are left out: with
parking_lot (used by wgpu and cubecl) they return the guard, and `.expect` then tests an Option."""


def _no_value(method: str, recv: str) -> str:
    """What ``recv`` did for ``.method(..)`` to reach the site."""
    said = _NO_VALUE[method]
    if said != "returns None or an error":
        return said
    last = _last_call(recv)
    if last in _GIVES_OPTION:
        return "returns None"
    if last in _GIVES_RESULT:
        return "returns an error"
    return said


def _last_call(recv: str) -> str:
    """The name of the method or function whose call ends ``recv`` (``a.b.send(x)`` -> ``send``)."""
    text = recv.rstrip().rstrip("?")
    if not text.endswith(")"):
        return ""
    depth = 0
    for k in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[k], 0)
        if depth == 0:
            head = text[:k].rstrip()
            if head.endswith(">") and "::<" in head:
                head = head[: head.rfind("::<")]
            name = ""
            for ch in reversed(head):
                if not (ch.isalnum() or ch == "_"):
                    break
                name = ch + name
            return name
    return ""


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
        eq = top_ops(toks, span, ("=",))
        if not eq:
            return None
        pat, expr = pattern_code(toks, range(span.start + 1, eq[0])), short_code(toks, range(eq[0] + 1, span.stop))
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
    scrutinee = short_code(toks, scrut)
    pat = pattern_code(toks, pat_span)
    if scrutinee is None or pat is None:
        return None
    if pat == "_" or (pat.isidentifier() and pat[0].islower()):  # `_` or a binding: the catch-all arm
        out = f"`{scrutinee}` matches none of the other arms of its `match`"
        others = _other_patterns(toks, body_open, arrow)
        if others:
            out += f" (the other arms take {others})"
    else:
        out = f"`{scrutinee}` matches `{pat}`"
    if extra:
        out += f" and {extra}"
    return out


MAX_ARMS = 16
"""The most other-arm patterns listed after "matches none of the other arms"."""


def _other_patterns(toks: Sequence[Token], body_open: int, arrow: int) -> Optional[str]:
    """The patterns of the other arms of a ``match`` body, as a short list (``DType::F32``,
    ``DType::F64`` -> "`DType::F32` and `DType::F64`"); None when an arm has a guard (then "none of the
    other arms" is not "none of these patterns"), a pattern cannot be quoted, or there are too many."""
    close = toks[body_open].match
    if close < 0:
        return None
    arrows, k = [], body_open + 1
    while k < close:
        t = toks[k]
        if t.kind == OPEN and t.match > k:
            k = t.match + 1
            continue
        if t.kind == PUNCT and t.text == "=>" and k != arrow:
            arrows.append(k)
        k += 1
    pats = []
    for a in arrows:
        span = range(_statement_start(toks, a, body_open), a)
        if any(toks[j].kind == IDENT and toks[j].text == "if" for j in span):
            return None
        pat = pattern_code(toks, span)
        if pat is None:
            return None
        pats.extend(p.strip() for p in _split_alternatives(pat))
    if not pats or len(pats) > MAX_ARMS:
        return None
    quoted = [f"`{p}`" for p in pats]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _split_alternatives(pattern: str) -> list:
    """``A | B(..)`` -> ``["A", "B(..)"]`` (top-level ``|`` only)."""
    parts, depth, cur = [], 0, ""
    for ch in pattern:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        if ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p for p in parts if p.strip()]


def _let_else(toks: Sequence[Token], else_idx: int, floor: int) -> Optional[str]:
    start = _statement_start(toks, else_idx, floor)
    if not (toks[start].kind == IDENT and toks[start].text == "let"):
        return None
    span = range(start + 1, else_idx)
    eq = top_ops(toks, span, ("=",))
    if not eq:
        return None
    pat, expr = pattern_code(toks, range(span.start, eq[0])), short_code(toks, range(eq[0] + 1, span.stop))
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
    return short_code(toks, range(k + 1, dot))


def guard_at(toks: Sequence[Token], st: Structure, i: int) -> Optional[str]:
    """The condition under which the code at token ``i`` runs, as a clause after "when" (or None)."""
    fn = st.fn_at(i)
    floor = fn.body_start if fn is not None else -1
    if toks[i].kind == IDENT and toks[i].text in _NO_VALUE and i >= 1 and toks[i - 1].text == ".":
        recv = _receiver(toks, i - 1, floor)  # the site is the `.expect(..)` / `.ok_or(..)` itself
        return f"`{recv}` {_no_value(toks[i].text, recv)}" if recv is not None else None
    child = i
    j = _enclosing(toks, child)
    while j > floor:
        t = toks[j]
        if t.text == "(" and j >= 2 and toks[j - 1].kind == IDENT and toks[j - 2].text == "." and toks[j - 1].text in _NO_VALUE:
            recv = _receiver(toks, j - 2, floor)
            if recv is not None:
                return f"`{recv}` {_no_value(toks[j - 1].text, recv)}"
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
        a, b = expr_text(toks, args[0]), expr_text(toks, args[1])
        if not a or not b or len(a) + len(b) > MAX_EXPR:
            return None
        return f"`{a} {op} {b}` ({WORDS[op].format(a=f'`{a}`', b=f'`{b}`')})"
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
