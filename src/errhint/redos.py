"""Static safety check for user-supplied patterns, run before they are compiled.

``regex`` expands exact repeats at compile time, where no timeout applies
(``(?:a{1000}){1000}`` takes a second and 270 MB; one more level, gigabytes), and a
repeated group holding an unbounded repeat (``(a+)+``) backtracks exponentially. The
first cannot be bounded at run time at all and the second wastes the per-lookup regex
budget, so dataset validation rejects both. Overlapping alternation (``(a|aa)+``) is not
detected here; the regex timeout bounds it.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from errhint.literals import skip_class

_GROUP_OPEN = re.compile(r"\((?:\?(?:P<[^>]*>|<[^>]*>|[:>=!|]|<[=!]|[a-zA-Z]+[:)]))?")
_QUANT = re.compile(r"[*+?]|\{(\d*)(?:(,)(\d*))?\}")
MAX_EXPANSION = 10_000
"""Largest product of nested exact repeats (``(?:ab{20}){30}``) a user pattern may carry."""
MAX_REPEAT = 100_000
"""Largest single exact repeat (``regex`` expands one into literal text at compile time)."""


def _quantifier(q: "re.Match[str]") -> Tuple[bool, int]:
    """(unbounded, exact count or 1) of a quantifier match."""
    text = q.group()
    if text in ("*", "+"):
        return True, 1
    if text == "?":
        return False, 1
    low, comma, high = q.group(1), q.group(2), q.group(3)
    if comma and not high:
        return True, 1  # {m,}
    if not comma or low == high:
        return False, int(low or high or 1)  # {n} or {n,n}: expanded at compile time
    return False, 1  # {m,n}: a counted loop, not expanded


def catastrophic(pattern: str) -> Optional[str]:
    r"""Why ``pattern`` is unsafe to compile or run, or None.

    * nested exact repeats whose product exceeds MAX_EXPANSION, or one exact repeat over
      MAX_REPEAT: ``regex`` expands them into literal text at compile time, where no timeout
      applies (``(?:a{1000}){1000}`` takes 1 s and 270 MB; one more level, gigabytes);
    * a repeated group containing an unbounded repeat (star height 2: ``(a+)+``,
      ``(\w+\s?)*``), the classic exponential-backtracking shape.

    Overlapping alternation under a repeat (``(a|aa)+``) is not detected; the regex timeout
    and the per-lookup budget bound it at run time. A linear scan over the pattern with a
    stack of open groups; escapes and character classes are skipped whole.
    """
    stack: List[Dict[str, Any]] = [{"unbounded": False, "count": 1}]
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = skip_class(pattern, i)
            continue
        if ch == "(":
            m = _GROUP_OPEN.match(pattern, i)
            stack.append({"unbounded": False, "count": 1})
            i = m.end() if m else i + 1
            continue
        if ch == ")" and len(stack) > 1:
            inner = stack.pop()
            i += 1
            q = _QUANT.match(pattern, i)
            unbounded, count = _quantifier(q) if q else (False, 1)
            if unbounded and inner["unbounded"]:
                return "a repeated group contains an unbounded repeat (exponential backtracking)"
            total = inner["count"] * count
            if total > MAX_EXPANSION and count > 1:
                return f"nested exact repeats expand to {total} copies"
            outer = stack[-1]
            outer["count"] = max(outer["count"], total)
            outer["unbounded"] = outer["unbounded"] or unbounded or inner["unbounded"]
            if q:
                i = q.end()
                if i < n and pattern[i] in "?+":  # lazy or possessive
                    i += 1
            continue
        q = _QUANT.match(pattern, i)
        if q:
            unbounded, count = _quantifier(q)
            if count > MAX_REPEAT:
                return f"an exact repeat of {count}"
            stack[-1]["unbounded"] = stack[-1]["unbounded"] or unbounded
            stack[-1]["count"] = max(stack[-1]["count"], count)
            i = q.end()
            continue
        i += 1
    return None
