"""errhint's failure containment: one stderr line at most, ERRHINT_DEBUG re-raises."""

from __future__ import annotations

import pytest

from errhint.hooks import _safe


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_safe, "_reported", set())
    monkeypatch.delenv("ERRHINT_DEBUG", raising=False)


class BrokenStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no str for you")


class NonStr(Exception):
    def __str__(self):  # type: ignore[override]
        return 42


def test_describe_survives_broken_and_non_str() -> None:
    assert _safe.describe(BrokenStr()) == "BrokenStr: <str() failed>"
    assert _safe.describe(NonStr()) == "NonStr: <str() failed>"


def test_describe_is_one_bounded_line() -> None:
    line = _safe.describe(ValueError("a\nb\n" + "x" * 1000))
    assert "\n" not in line and line.startswith("ValueError: a b ") and len(line) <= 300


def test_contained_reports_one_line_and_returns_none(capsys: pytest.CaptureFixture[str]) -> None:
    def boom() -> int:
        raise KeyError("dataset")

    assert _safe.contained("excepthook", boom) is None
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "errhint: internal error: excepthook: KeyError: 'dataset'\n"


def test_same_failure_is_reported_once(capsys: pytest.CaptureFixture[str]) -> None:
    def boom() -> None:
        raise RuntimeError("same")

    for _ in range(3):
        _safe.contained("x", boom)
    assert capsys.readouterr().err.count("internal error") == 1


def test_contained_returns_the_value() -> None:
    assert _safe.contained("x", lambda a, b=0: a + b, 2, b=3) == 5


def test_debug_reraises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRHINT_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        _safe.contained("x", lambda: 1 / 0)


def test_reentrant_call_is_skipped(capsys: pytest.CaptureFixture[str]) -> None:
    seen = []

    def outer() -> str:
        seen.append(_safe.contained("inner", lambda: "ran"))
        return "outer"

    assert _safe.contained("outer", outer) == "outer"
    assert seen == [None]
    assert not _safe.busy()


def test_recursion_error_is_contained(capsys: pytest.CaptureFixture[str]) -> None:
    def recurse(n: int) -> int:
        return recurse(n + 1)

    assert _safe.contained("lookup", recurse, 0) is None
    assert "RecursionError" in capsys.readouterr().err


def test_report_with_no_stderr_is_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", None)
    monkeypatch.setattr("sys.__stderr__", None)
    _safe.report(ValueError("x"), "where")  # must not raise
