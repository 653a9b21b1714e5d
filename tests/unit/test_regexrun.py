"""Timed regex search (``regexrun``): compiling, timeouts, the per-lookup budget, bracket-aware retries."""

from __future__ import annotations

import time
from typing import List

import pytest

from errhint import regexrun


def test_bracket_aware_groups() -> None:
    pattern = r"divisible by block size (?P<shape>.+?) (?P<n>[^\n]+)"
    text = "divisible by block size [2, 3] 32"
    assert regexrun.search(pattern, text).group("shape") == "[2,"
    fixed = regexrun.search(regexrun.bracket_aware(pattern), text)
    assert fixed.group("shape") == "[2, 3]" and fixed.group("n") == "32"
    assert regexrun.search(regexrun.bracket_aware(r"a (?P<x>.+?) b"), "a (1, [2]) b").group("x") == "(1, [2])"
    pruned = r"block size (?P<shape>[^\n]{1,1024}?) (*PRUNE)(?P<n>[^\n]+)"  # the builder's bounded form
    assert regexrun.search(pruned, text).group("shape") == "[2,"
    assert regexrun.search(regexrun.bracket_aware(pruned), text).group("shape") == "[2, 3]"
    assert regexrun.balanced_value("[[1], (2, 3)]") and not regexrun.balanced_value("[2,") and not regexrun.balanced_value("(]")
    # values without any bracket take the fast path; a lone closer still counts as unbalanced
    assert regexrun.balanced_value("I64") and regexrun.balanced_value("") and not regexrun.balanced_value("3}")


def test_compile_is_cached_and_bad_patterns_are_none() -> None:
    p = r"cached (?P<x>\w+) pattern"
    assert regexrun.compiled(p) is regexrun.compiled(p)
    assert regexrun.compiled("(unclosed") is None
    assert regexrun.search("(unclosed", "text") is None


def test_search_times_out_on_catastrophic_backtracking() -> None:
    evil = r"(?:a+)+$"
    text = "a" * 64 + "!"
    start = time.perf_counter()
    assert regexrun.search(evil, text, timeout=0.02) is None
    assert time.perf_counter() - start < 5.0  # untimed, this search would run for ages


class _SlowOnce:
    """A compiled-pattern stand-in whose first search times out."""

    def __init__(self) -> None:
        self.calls = 0

    def search(self, text: str, timeout: float, concurrent: bool) -> str:
        self.calls += 1
        if self.calls == 1:
            raise TimeoutError
        return "match"


def test_a_search_timed_out_while_descheduled_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 0.001])  # the thread used 1 ms of CPU during a 50 ms timeout
    monkeypatch.setattr(regexrun.time, "thread_time", lambda: next(clock))
    stub = _SlowOnce()
    assert regexrun._timed_search(stub, "text", 0.05) == "match" and stub.calls == 2


def test_a_search_that_really_burns_cpu_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 0.049])
    monkeypatch.setattr(regexrun.time, "thread_time", lambda: next(clock))
    stub = _SlowOnce()
    with pytest.raises(TimeoutError):
        regexrun._timed_search(stub, "text", 0.05)
    assert stub.calls == 1


def _in_budget(monkeypatch: pytest.MonkeyPatch, cpu: List[float], wall: List[float]) -> "tuple":
    """``regexrun.search`` of a stub that times out once, inside a budget, under fake clocks."""
    stub = _SlowOnce()
    monkeypatch.setitem(regexrun._compiled, "stub-pattern", stub)
    cpu_clock, wall_clock = iter(cpu), iter(wall)
    monkeypatch.setattr(regexrun.time, "thread_time", lambda: next(cpu_clock))
    monkeypatch.setattr(regexrun.time, "perf_counter", lambda: next(wall_clock))
    with regexrun.RegexBudget() as budget:
        found = regexrun.search("stub-pattern", "text", timeout=0.05)
    return found, stub.calls, budget


def test_in_a_budget_a_search_timed_out_while_descheduled_is_retried_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # budget start (cpu 0, wall 0); the search starts at wall 0; on the timeout the thread has
    # used 1 ms of CPU in 50 ms of wall time: it was off the CPU, so the search runs again
    found, calls, budget = _in_budget(monkeypatch, cpu=[0.0, 0.001], wall=[0.0, 0.0, 0.05])
    assert found == "match" and calls == 2
    assert budget.timed_out == set() and budget.left == regexrun.LOOKUP_REGEX_BUDGET


def test_in_a_budget_a_search_that_burns_cpu_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    found, calls, budget = _in_budget(monkeypatch, cpu=[0.0, 0.049], wall=[0.0, 0.0, 0.05, 0.05])
    assert found is None and calls == 1
    assert budget.timed_out == {"stub-pattern"} and budget.left == pytest.approx(regexrun.LOOKUP_REGEX_BUDGET - 0.05)


def test_in_a_budget_one_stretch_off_the_cpu_excuses_one_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    stub = _SlowOnce()
    monkeypatch.setitem(regexrun._compiled, "p1", stub)
    monkeypatch.setitem(regexrun._compiled, "p2", _SlowOnce())
    with regexrun.RegexBudget() as budget:
        monkeypatch.setattr(budget, "off_cpu", lambda: 0.04)  # 40 ms off the CPU, once
        assert regexrun.search("p1", "text", timeout=0.05) == "match"  # excused: retried
        assert regexrun.search("p2", "text", timeout=0.05) is None  # the same stretch: not again
    assert budget.timed_out == {"p2"} and budget.off_seen == 0.04
