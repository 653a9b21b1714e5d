"""What literal text a regular expression requires: the runs every match must contain.

Used to build the index (a record's required text and its key words) and, at lookup time,
to weigh how much of a text a match explained. Conservative: text it does not understand
ends a run, so missing a literal costs speed, never a match.
"""


import re

from typing import Any, List, NamedTuple, Optional, Tuple

from errhint._lazyre import LazyPattern

_ESCAPED_LITERALS = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_ESCAPE_CLASSES = set("dDwWsSbBAZzGpPXNuUxg0123456789")
_QUANT_OPTIONAL = {"?", "*"}

class Runs(NamedTuple):
    """Required literal runs of a pattern, in pattern order, with what bounds each run."""

    runs: List[str]
    left: List[bool]
    """Run i cannot be glued to a word character before it: it starts the pattern or follows
    ``^``, ``\\A``, ``\\b`` or a ``(?<![A-Za-z0-9_])``-style assertion."""
    right: List[bool]
    """Run i cannot be glued to a word character after it: it ends the pattern or precedes
    ``$``, ``\\Z``, ``\\b`` or a ``(?![A-Za-z0-9_])``-style assertion."""

_NO_RUNS = Runs([], [], [])
_WORD_CLASS = r"(?:\\w|\[A-Za-z0-9_\]|\[a-zA-Z0-9_\]|\[\\w\])"
_NOT_WORD_BEFORE = LazyPattern(r"\(\?<!" + _WORD_CLASS + r"\)")
_NOT_WORD_AFTER = LazyPattern(r"\(\?!" + _WORD_CLASS + r"\)")


def required_literals(pattern: str) -> List[str]:
    """Literal runs that every match of ``pattern`` must contain, longest first."""
    return sorted(set(literal_runs(pattern).runs), key=lambda r: (-len(r), r))


def literal_runs(pattern: str) -> Runs:
    """The literal runs every match of ``pattern`` must contain, in order.

    Conservative by construction: anything not understood ends the current run, groups are
    never descended into, a top-level alternation or a case-insensitive/verbose flag yields
    no literals at all.  Missing a literal only costs speed; inventing one would lose matches.
    """
    runs: List[str] = []
    left: List[bool] = []
    right: List[bool] = []
    cur: List[str] = []
    cur_left = [False]
    boundary = [True]  # the next character would follow a word boundary (pattern start)
    i, n = 0, len(pattern)

    def flush(bounded: bool = False) -> None:
        if cur:
            runs.append("".join(cur))
            left.append(cur_left[0])
            right.append(bounded)
            cur.clear()
        boundary[0] = False

    def add(pos: int, char: str) -> int:
        if not cur:
            cur_left[0] = boundary[0]
        nxt = _add_char(pattern, pos, char, cur, flush)
        boundary[0] = False
        return nxt

    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= n:
                return _NO_RUNS
            nxt = pattern[i + 1]
            i += 2
            if nxt in _ESCAPED_LITERALS:
                i = add(i, _ESCAPED_LITERALS[nxt])
            elif nxt in "bAZz":
                flush(bounded=True)
                boundary[0] = True
            elif nxt.isalnum() or nxt in _ESCAPE_CLASSES:
                flush()
                i = _skip_quantifier(pattern, i)
            else:
                i = add(i, nxt)
            continue
        if ch == "(":
            if pattern.startswith("(?", i) and _flag_group_disables_literals(pattern, i):
                return _NO_RUNS
            after = _NOT_WORD_AFTER.match(pattern, i)
            before = _NOT_WORD_BEFORE.match(pattern, i)
            if after or before:
                flush(bounded=bool(after))
                boundary[0] = bool(before)
                i = (after or before).end()  # type: ignore[union-attr]
                continue
            keep = boundary[0] and pattern.startswith("(?", i) and re.match(r"\(\?[a-zA-Z]+\)", pattern[i:]) is not None
            flush()
            boundary[0] = keep  # a bare flag group such as (?m) changes nothing positional
            i = _skip_quantifier(pattern, _skip_group(pattern, i))
            continue
        if ch == "[":
            flush()
            i = _skip_quantifier(pattern, skip_class(pattern, i))
            continue
        if ch == "|":
            return _NO_RUNS
        if ch in "^$":
            flush(bounded=ch == "$")
            boundary[0] = ch == "^"
            i += 1
            continue
        if ch in ".)?*+{":
            # ``.``/a stray quantifier or brace: not literal text
            flush()
            i = _skip_quantifier(pattern, i + 1) if ch in ".)" else i + 1
            continue
        i = add(i + 1, ch)
    flush(bounded=True)
    return Runs(runs, left, right)


def _add_char(pattern: str, i: int, char: str, cur: List[str], flush: Any) -> int:
    """Append ``char`` unless the quantifier after it makes it optional; return next pos."""
    q = _quantifier_at(pattern, i)
    if q is None:
        cur.append(char)
        return i
    kind, end = q
    if kind == "optional":
        flush()
    else:  # required at least once, but repeats: the run cannot continue past it
        cur.append(char)
        flush()
    return end


def _quantifier_at(pattern: str, i: int) -> Optional[Tuple[str, int]]:
    """Parse a quantifier at ``i``: ("optional"|"repeat", end) or None."""
    if i >= len(pattern):
        return None
    ch = pattern[i]
    if ch in _QUANT_OPTIONAL:
        return "optional", _skip_lazy(pattern, i + 1)
    if ch == "+":
        return "repeat", _skip_lazy(pattern, i + 1)
    if ch == "{":
        m = re.match(r"\{(\d*)(,?)(\d*)\}", pattern[i:])
        if not m or (not m.group(1) and not m.group(3)):
            return None
        low = int(m.group(1) or 0)
        return ("optional" if low == 0 else "repeat"), _skip_lazy(pattern, i + m.end())
    return None


def _skip_lazy(pattern: str, i: int) -> int:
    return i + 1 if i < len(pattern) and pattern[i] in "?+" else i


def _skip_quantifier(pattern: str, i: int) -> int:
    q = _quantifier_at(pattern, i)
    if q is not None:
        return q[1]
    if i < len(pattern) and pattern[i] == "{":  # fuzzy constraints etc.: skip the braces
        end = pattern.find("}", i)
        return len(pattern) if end < 0 else end + 1
    return i


def skip_class(pattern: str, i: int) -> int:
    """Position after the character class starting at ``i`` (handles ``[]..]``, escapes, nesting)."""
    j = i + 1
    n = len(pattern)
    if j < n and pattern[j] == "^":
        j += 1
    if j < n and pattern[j] == "]":
        j += 1
    return _skip_nested(pattern, j, "[", "]", 1)  # "[" nests: the regex module's set syntax


def _skip_group(pattern: str, i: int) -> int:
    """Position after the group opened at ``i``."""
    return _skip_nested(pattern, i, "(", ")", 0)


def _skip_nested(pattern: str, j: int, opener: str, closer: str, depth: int) -> int:
    """Position after the ``closer`` that brings ``depth`` (open ``opener``s) to zero,
    scanning from ``j``; escapes are skipped, and inside a group a class is skipped whole."""
    n = len(pattern)
    while j < n:
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[" and opener == "(":
            j = skip_class(pattern, j)
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return n


def _flag_group_disables_literals(pattern: str, i: int) -> bool:
    """True for inline flags that change literal meaning: (?i), (?x), (?f) ... (not (?s), (?m))."""
    m = re.match(r"\(\?([a-zA-Z]+)(?:-[a-zA-Z]+)?[:)]", pattern[i:])
    return bool(m and set(m.group(1)) & set("ixfwV1L0"))
