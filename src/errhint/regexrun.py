"""Timed regex search: patterns compiled on first use, searches with a timeout, a regex
time budget per lookup, and the bracket-aware retry of a match that cut a Debug value."""

from __future__ import annotations

import threading
import time

from typing import Any, Dict, List, Optional, Tuple

from errhint._lazyre import LazyPattern
from errhint.constants import NAMED_GROUP

REGEX_TIMEOUT = 0.05
"""Seconds one ``search`` may run; a pattern that exceeds it simply does not match."""
LOOKUP_REGEX_BUDGET = 0.05
"""Seconds of regex time all searches of one lookup share (see ``RegexBudget``)."""
REGEX_FLOOR = 0.005
"""Timeout of a search once the budget is spent: ordinary searches take microseconds."""


_MISSING = object()
_compiled: Dict[str, Any] = {}


def compiled(pattern: str) -> Any:
    """The compiled pattern (cached per pattern text), or None if it does not compile."""
    found = _compiled.get(pattern, _MISSING)
    if found is _MISSING:
        import regex  # imported only once a text survives the literal prefilter

        try:
            found = regex.compile(pattern, regex.DOTALL)
        except Exception:
            found = None
        _compiled[pattern] = found
    return found


_local = threading.local()


class RegexBudget:
    """The regex time of one lookup (this thread), as a context manager around its searches.

    Without it a hostile user pattern costs one full timeout per text of the exception graph
    (a group of 60 members: 3 s inside an exception hook). With it the searches that time out
    share ``seconds`` (ordinary searches, a few microseconds, are not counted), each search
    after that gets REGEX_FLOOR, and a pattern that timed out is not run again in this lookup:
    about ``seconds`` plus a few ms per hostile pattern in all.
    """

    def __init__(self, seconds: float = LOOKUP_REGEX_BUDGET) -> None:
        self.left = seconds
        self.timed_out: set = set()
        self._outer: Optional["RegexBudget"] = None
        self._wall0 = self._cpu0 = 0.0
        self.off_seen = 0.0
        """Off-CPU time already answered with a retry (each stretch of it excuses one timeout)."""

    def __enter__(self) -> "RegexBudget":
        self._outer = getattr(_local, "budget", None)
        _local.budget = self
        # one clock pair per lookup, not per search: thread_time() is a system call
        self._wall0, self._cpu0 = time.perf_counter(), time.thread_time()
        return self

    def __exit__(self, *exc: Any) -> None:
        _local.budget = self._outer

    def off_cpu(self) -> float:
        """Seconds this thread has spent off the CPU since the budget began."""
        return (time.perf_counter() - self._wall0) - (time.thread_time() - self._cpu0)

    def excuses(self, timeout: float) -> bool:
        """Whether a search that just timed out was descheduled for most of ``timeout``: off
        the CPU for at least half of it since the budget began, beyond what an earlier retry
        was already excused for (each stretch off the CPU excuses one timeout)."""
        off = self.off_cpu()
        if off - self.off_seen < timeout / 2:
            return False
        self.off_seen = off
        return True


def search(pattern: str, text: str, timeout: float = REGEX_TIMEOUT) -> Any:
    """``pattern.search(text)`` that gives up (None) after ``timeout`` seconds, or sooner
    inside a ``RegexBudget``.

    ``concurrent=False`` keeps the GIL during the search: by default ``regex`` lets it go and
    takes it back while matching, and the wall-clock timeout then counts the wait, so with
    many threads an ordinary search timed out (2 lookups in 1,000 across 16 threads).
    A search that timed out is tried once more when the thread spent most of that time off
    the CPU (a loaded machine descheduled it; the pattern was not the cost); inside a budget
    that is judged from the budget's clocks, so an ordinary search reads no CPU clock.
    """
    rx = compiled(pattern)
    if rx is None:
        return None
    budget: Optional[RegexBudget] = getattr(_local, "budget", None)
    if budget is None:
        try:
            return _timed_search(rx, text, timeout)
        except TimeoutError:
            return None
    if pattern in budget.timed_out:
        return None
    start = time.perf_counter()
    try:
        return _timed_search(rx, text, max(min(timeout, budget.left), REGEX_FLOOR), budget)
    except TimeoutError:
        budget.timed_out.add(pattern)
        budget.left -= time.perf_counter() - start
        return None


def _timed_search(rx: Any, text: str, timeout: float, budget: Optional[RegexBudget] = None) -> Any:
    """One search with a wall-clock timeout, tried again once if the thread spent most of
    that time off the CPU (a loaded machine descheduled it; the pattern was not the cost).
    Inside a ``budget`` that is judged from the budget's clocks (``RegexBudget.excuses``)."""
    cpu = time.thread_time() if budget is None else 0.0
    try:
        return rx.search(text, timeout=timeout, concurrent=False)
    except TimeoutError:
        if budget is None:
            if time.thread_time() - cpu >= timeout / 2:
                raise
        elif not budget.excuses(timeout):
            raise
    return rx.search(text, timeout=timeout, concurrent=False)


# --------------------------------------------------------------------------- bracket-aware groups

_OPENERS = {"[": "]", "(": ")", "{": "}"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
_LAZY_GROUP = LazyPattern(
    NAMED_GROUP + r"(?:\.|\[\^\\n\]|\[\\s\\S\])(?:\+\?|\{1,\d+\}\?)\)"
)
"""A lazy "anything" group: ``.+?``, ``[^\\n]+?``, ``[^\\n]{1,1024}?`` or ``[\\s\\S]+?``."""
_BACKTRACK_VERB = LazyPattern(r"\(\*(?:PRUNE|SKIP|COMMIT)\)")
_BALANCED_ATOM = (
    r"(?:[^\[\](){}]"
    r"|\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
    r"|\((?:[^()]|\([^()]*\))*\)"
    r"|\{(?:[^{}]|\{[^{}]*\})*\})+?"
)


def balanced_value(value: str) -> bool:
    """Whether brackets in a captured value pair up (``[2, 3]`` yes, ``[2,`` no)."""
    for ch in "[](){}":
        if ch in value:
            break
    else:  # most values (``I64``, ``matmul``): no per-character walk
        return True
    stack: List[str] = []
    for ch in value:
        if ch in _OPENERS:
            stack.append(ch)
        elif ch in _CLOSERS:
            if not stack or stack[-1] != _CLOSERS[ch]:
                return False
            stack.pop()
    return not stack


def bracket_aware(pattern: str) -> str:
    """``pattern`` with every lazy ``(?P<x>.+?)``-like group made to take brackets whole (two levels).

    The builder's lazy ``.+?`` stops at the first occurrence of the text that follows it, which
    may sit inside a Debug value: ``block size (?P<shape>.+?) (?P<n>..)`` on ``block size [2, 3] 32``
    captures ``[2,``. Used only to retry a match whose captures came out unbalanced.
    """
    aware = _LAZY_GROUP.sub(lambda m: f"(?P<{m.group(1)}>{_BALANCED_ATOM})", pattern)
    return _BACKTRACK_VERB.sub("", aware)  # the retry needs to revisit the group boundaries


def _groups(m: Any) -> Tuple[Tuple[Tuple[str, str], ...], bool]:
    """The match's named groups that took a value, and whether one cut a value's brackets."""
    groups = tuple(item for item in m.groupdict().items() if item[1] is not None)
    balanced = balanced_value
    for _, value in groups:
        if not balanced(value):
            return groups, True
    return groups, False


def search_groups(pattern: str, text: str) -> Tuple[Any, Tuple[Tuple[str, str], ...], bool]:
    """``pattern`` searched in ``text`` (match, its groups, unbalanced?); retried with
    bracket-aware groups when a lazy group cut a Debug value such as ``[2, 3]`` at its inner
    separator. Groups are read once here (the caller needs them too)."""
    m = search(pattern, text)
    if m is None:
        return None, (), False
    groups, unbalanced = _groups(m)
    if unbalanced:
        better = search(bracket_aware(pattern), text)
        if better is not None:
            return (better,) + _groups(better)
    return m, groups, unbalanced
