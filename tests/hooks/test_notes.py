"""Notes are attached once, marked, de-duplicated across the chain; 3.9/3.10 fallback."""

from __future__ import annotations

import dataclasses
from typing import Any, List

import pytest

from errhint.hooks import _notes
from hooks_support import CANDLE_TEXT, HINT_FIX, candle_error, fake_engine  # noqa: F401


def test_hint_adds_notes_once(fake_engine: List[Any]) -> None:
    exc = candle_error()
    assert len(_notes.hint(exc)) == 1
    assert _notes.hint(exc) == []
    notes = list(_notes.own_notes(exc))
    assert len(notes) == 1 and HINT_FIX in notes[0]
    assert len(fake_engine) == 1, "a marked exception is not looked up again"


def test_no_match_adds_nothing_but_marks(fake_engine: List[Any]) -> None:
    exc = KeyError("missing")
    assert _notes.hint(exc) == []
    assert getattr(exc, "__notes__", None) is None
    assert _notes.is_marked(exc)


def test_user_notes_are_kept(fake_engine: List[Any]) -> None:
    exc = candle_error()
    exc.__notes__ = ["user note"]  # type: ignore[attr-defined]
    _notes.hint(exc)
    assert exc.__notes__[0] == "user note" and exc.__notes__[1].startswith("errhint:")  # type: ignore[attr-defined]


def test_chain_dedupes_notes_from_inner_guard(fake_engine: List[Any]) -> None:
    inner = candle_error()
    _notes.hint(inner)
    try:
        raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        _notes.hint(outer)
        assert list(_notes.own_notes(outer)) == [], "the same hint is already printed with the cause"
        assert len(_notes.chain_notes(outer)) == 1


def test_chain_is_cycle_safe() -> None:
    a, b = ValueError("a"), ValueError("b")
    a.__context__, b.__context__ = b, a
    assert {id(e) for e in _notes.chain(a)} == {id(a), id(b)}


def test_frozen_exception_is_marked_through_its_notes(fake_engine: List[Any]) -> None:
    @dataclasses.dataclass(frozen=True)
    class Frozen(Exception):
        text: str

        def __str__(self) -> str:
            return self.text

    exc = Frozen(CANDLE_TEXT)
    _notes.hint(exc)
    _notes.hint(exc)
    assert len(list(_notes.own_notes(exc))) == 1


@pytest.mark.parametrize("notes", [("not", "a list"), "text", None, 5])
def test_non_list_notes_are_left_alone(fake_engine: List[Any], notes: Any) -> None:
    """A user's non-list ``__notes__`` cannot take notes: no hint added, nothing raised."""
    exc = candle_error()
    exc.__notes__ = notes  # type: ignore[attr-defined]
    assert _notes.hint(exc)  # the lookup ran and matched
    assert exc.__notes__ == notes  # type: ignore[attr-defined]


def test_old_python_path_sets_dunder_notes(fake_engine: List[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_notes, "NOTES_SHOWN", False)
    exc = candle_error()
    _notes.hint(exc)
    assert isinstance(exc.__notes__, list) and HINT_FIX in exc.__notes__[0]  # type: ignore[attr-defined]
    assert _notes.self_print_notes(exc, shown=False) == exc.__notes__  # type: ignore[attr-defined]
    assert _notes.self_print_notes(exc, shown=True) == []


def test_self_print_covers_the_whole_chain(fake_engine: List[Any]) -> None:
    inner = candle_error()
    _notes.hint(inner)
    try:
        raise RuntimeError("outer") from inner
    except RuntimeError as outer:
        assert _notes.self_print_notes(outer, shown=False) == list(_notes.own_notes(inner))


def test_default_unraisable_hook_never_shows_notes() -> None:
    import sys

    assert _notes.hook_shows_notes(sys.__unraisablehook__) is False


def test_hooks_showing_notes_on_old_python(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import threading

    monkeypatch.setattr(_notes, "NOTES_SHOWN", False)
    assert _notes.hook_shows_notes(sys.__excepthook__) is False
    if hasattr(threading, "__excepthook__"):  # 3.10+
        assert _notes.hook_shows_notes(threading.__excepthook__) is False
    assert _notes.hook_shows_notes(threading.excepthook) is False

    def unknown(*a: Any) -> None: ...

    assert _notes.hook_shows_notes(unknown) is False, "unknown printers: errhint prints the hints itself"
    unknown.__module__ = "rich.traceback"
    assert _notes.hook_shows_notes(unknown) is True
    unknown.__module__ = "exceptiongroup._formatting"
    monkeypatch.setattr(_notes, "traceback_shows_notes", lambda: False)
    assert _notes.hook_shows_notes(unknown) is False


def test_everything_shows_notes_on_new_python(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setattr(_notes, "NOTES_SHOWN", True)
    assert _notes.hook_shows_notes(sys.__excepthook__) is True
    assert _notes.traceback_shows_notes() is True


def test_traceback_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe asks the traceback module itself (true on 3.11+)."""
    import sys

    if sys.version_info < (3, 11):
        pytest.skip("on 3.9/3.10 the answer depends on whether exceptiongroup patched traceback")
    monkeypatch.setattr(_notes, "NOTES_SHOWN", False)
    monkeypatch.setattr(_notes, "_probe_cache", {})
    assert _notes.traceback_shows_notes() is True


def test_print_notes_colour_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from errhint import config

    monkeypatch.delenv("NO_COLOR", raising=False)
    config.reset()
    buf = io.StringIO()
    _notes.print_notes(["errhint: x"], buf)  # not a TTY
    assert buf.getvalue() == "errhint: x\n"
    config.configure(color=True)
    try:
        buf = io.StringIO()
        _notes.print_notes(["errhint: x"], buf)
        assert "\x1b[" in buf.getvalue()
        monkeypatch.setenv("NO_COLOR", "1")
        buf = io.StringIO()
        _notes.print_notes(["errhint: x"], buf)
        assert "\x1b[" not in buf.getvalue()
    finally:
        config.reset()
