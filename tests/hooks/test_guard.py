"""``errhint.guard()``: same exception out, hints added once, control flow untouched."""

from __future__ import annotations

import asyncio
import sys
from typing import Any, List

import pytest

import errhint
from errhint.hooks import _notes, _safe
from errhint.hooks.guard import guard
from hooks_support import CANDLE_TEXT, HINT_FIX, PanicException, fake_engine  # noqa: F401


def hints(exc: BaseException) -> List[str]:
    return list(_notes.own_notes(exc))


def test_public_name_is_the_guard() -> None:
    assert errhint.guard is guard


def test_adds_hint_and_reraises_the_same_object(fake_engine: List[Any]) -> None:
    original = ValueError(CANDLE_TEXT)

    def fail() -> None:
        raise original

    with pytest.raises(ValueError) as info:
        with guard():
            fail()
    exc = info.value
    assert exc is original
    assert type(exc) is ValueError and exc.args == (CANDLE_TEXT,)
    names = []
    tb = exc.__traceback__
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    assert names[-1] == "fail", "the original traceback is kept, down to the raising frame"
    assert len(hints(exc)) == 1 and HINT_FIX in hints(exc)[0]


def test_catches_base_exception_subclasses(fake_engine: List[Any]) -> None:
    with pytest.raises(PanicException) as info:
        with guard():
            raise PanicException(CANDLE_TEXT)
    assert len(hints(info.value)) == 1


@pytest.mark.parametrize("exc", [KeyboardInterrupt(CANDLE_TEXT), SystemExit(CANDLE_TEXT), GeneratorExit(CANDLE_TEXT)])
def test_control_flow_passes_untouched(fake_engine: List[Any], exc: BaseException) -> None:
    with pytest.raises(type(exc)) as info:
        with guard():
            raise exc
    assert info.value is exc
    assert not hasattr(exc, "__notes__") and not _notes.is_marked(exc)
    assert fake_engine == []


def test_cancelled_error_passes_untouched(fake_engine: List[Any]) -> None:
    exc = asyncio.CancelledError(CANDLE_TEXT)
    with pytest.raises(asyncio.CancelledError):
        with guard():
            raise exc
    assert fake_engine == [] and not hasattr(exc, "__notes__")


def test_nested_guards_add_once(fake_engine: List[Any]) -> None:
    with pytest.raises(ValueError) as info:
        with guard():
            with guard():
                with guard():
                    raise ValueError(CANDLE_TEXT)
    assert len(hints(info.value)) == 1
    assert len(fake_engine) == 1


def test_reraise_through_decorated_frames_adds_once(fake_engine: List[Any]) -> None:
    @guard()
    def inner() -> None:
        raise ValueError(CANDLE_TEXT)

    @guard()
    def middle() -> None:
        try:
            inner()
        except ValueError:
            raise

    @guard(verbosity="full")
    def outer() -> None:
        middle()

    with pytest.raises(ValueError) as info:
        outer()
    assert len(hints(info.value)) == 1
    assert "[brief]" in hints(info.value)[0], "the innermost guard hinted first"


def test_guard_then_hook_adds_once(fake_engine: List[Any]) -> None:
    from errhint.hooks import excepthook

    seen: List[Any] = []
    slot_prev = sys.excepthook
    try:
        sys.excepthook = lambda *a: seen.append(a)
        excepthook.install()
        try:
            with guard():
                raise ValueError(CANDLE_TEXT)
        except ValueError as exc:
            sys.excepthook(type(exc), exc, exc.__traceback__)
            assert len(hints(exc)) == 1
        assert len(seen) == 1
    finally:
        excepthook.uninstall()
        sys.excepthook = slot_prev


def test_wrapped_cause_gets_no_duplicate(fake_engine: List[Any]) -> None:
    with pytest.raises(RuntimeError) as info:
        with guard():
            try:
                with guard():
                    raise ValueError(CANDLE_TEXT)
            except ValueError as inner:
                raise RuntimeError("model failed") from inner
    assert hints(info.value) == []
    assert len(_notes.chain_notes(info.value)) == 1


def test_decorator_keeps_metadata_and_result(fake_engine: List[Any]) -> None:
    @guard()
    def add(a: int, b: int = 1) -> int:
        """Adds."""
        return a + b

    assert add(2, b=3) == 5
    assert add.__name__ == "add" and add.__doc__ == "Adds."


def test_async_def_decorator(fake_engine: List[Any]) -> None:
    @guard()
    async def forward() -> None:
        await asyncio.sleep(0)
        raise ValueError(CANDLE_TEXT)

    assert asyncio.iscoroutinefunction(forward)
    with pytest.raises(ValueError) as info:
        asyncio.run(forward())
    assert len(hints(info.value)) == 1


def test_async_with(fake_engine: List[Any]) -> None:
    async def main() -> None:
        async with guard():
            raise ValueError(CANDLE_TEXT)

    with pytest.raises(ValueError) as info:
        asyncio.run(main())
    assert len(hints(info.value)) == 1


def test_no_exception_no_lookup(fake_engine: List[Any]) -> None:
    with guard():
        pass
    assert fake_engine == []


def test_options_are_passed_per_guard(fake_engine: List[Any]) -> None:
    with pytest.raises(ValueError) as info:
        with guard(verbosity="full", limit=1, repos=["huggingface/candle"]):
            raise ValueError(CANDLE_TEXT)
    assert fake_engine[0][1] == {"verbosity": "full", "limit": 1, "repos": ["huggingface/candle"]}
    assert "[full]" in hints(info.value)[0]


def test_misspelt_option_fails_in_user_code() -> None:
    with pytest.raises(TypeError):
        guard(verbosty="full")


def test_on_match_gets_exception_and_matches(fake_engine: List[Any]) -> None:
    got: List[Any] = []
    with pytest.raises(ValueError) as info:
        with guard(on_match=lambda exc, matches: got.append((exc, matches))):
            raise ValueError(CANDLE_TEXT)
    assert len(got) == 1 and got[0][0] is info.value
    assert got[0][1][0].message == "unsupported dtype I64 for op matmul"


def test_on_match_not_called_without_match(fake_engine: List[Any]) -> None:
    got: List[Any] = []
    with pytest.raises(KeyError):
        with guard(on_match=lambda *a: got.append(a)):
            raise KeyError("x")
    assert got == []


def test_failing_on_match_is_contained(fake_engine: List[Any], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_safe, "_reported", set())

    def bad(exc: BaseException, matches: List[Any]) -> None:
        raise RuntimeError("callback bug")

    with pytest.raises(ValueError) as info:
        with guard(on_match=bad):
            raise ValueError(CANDLE_TEXT)
    assert info.value.args == (CANDLE_TEXT,)
    assert capsys.readouterr().err.count("errhint: internal error: guard on_match: RuntimeError: callback bug") == 1


def test_engine_failure_keeps_the_original(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(_safe, "_reported", set())
    monkeypatch.delenv("ERRHINT_DEBUG", raising=False)

    def broken(exc: BaseException, **kw: Any) -> List[Any]:
        raise MemoryError("dataset")

    monkeypatch.setattr(_notes, "compute", broken)
    original = ValueError(CANDLE_TEXT)
    with pytest.raises(ValueError) as info:
        with guard():
            raise original
    assert info.value is original and not hasattr(original, "__notes__")
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_disabled_by_env(fake_engine: List[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRHINT", "0")
    with pytest.raises(ValueError) as info:
        with guard():
            raise ValueError(CANDLE_TEXT)
    assert hints(info.value) == [] and fake_engine == []


def test_exception_with_broken_str(fake_engine: List[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_safe, "_reported", set())

    class Bad(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    exc = Bad()
    with pytest.raises(Bad) as info:
        with guard():
            raise exc
    assert info.value is exc
