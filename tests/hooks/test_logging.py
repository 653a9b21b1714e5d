"""logging: the record factory, HintFilter and HintFormatter; asyncio's logger and loop handler."""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any, Iterator, List

import pytest

from errhint.hooks import _notes, asyncio_hook, logging_hook
from hooks_support import HINT_FIX, candle_error, fake_engine  # noqa: F401


@pytest.fixture
def capture() -> Iterator[Any]:
    """A fresh logger writing through a plain Formatter into a StringIO."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger("errhint-test.app")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.stream = stream  # type: ignore[attr-defined]
    yield logger
    logger.removeHandler(handler)


@pytest.fixture
def factory_restored() -> Iterator[None]:
    before = logging.getLogRecordFactory()
    yield
    logging_hook.uninstall()
    asyncio_hook.uninstall()
    logging.setLogRecordFactory(before)


def log_candle_error(logger: logging.Logger) -> BaseException:
    exc = candle_error()
    logger.error("forward failed", exc_info=exc)
    return exc


def test_factory_hints_logged_exceptions(fake_engine: List[Any], capture: Any, factory_restored: None) -> None:
    logging_hook.install()
    exc = log_candle_error(capture)
    out = capture.stream.getvalue()
    assert out.count(HINT_FIX) == 1 and out.index("ValueError: WithBacktrace") < out.index(HINT_FIX)
    assert len(list(_notes.own_notes(exc))) == 1


def test_factory_ignores_records_without_exception(fake_engine: List[Any], capture: Any, factory_restored: None) -> None:
    logging_hook.install()
    capture.error("plain message with %s", "args")
    assert capture.stream.getvalue() == "ERROR plain message with args\n" and fake_engine == []


def test_factory_uninstall_restores(factory_restored: None) -> None:
    before = logging.getLogRecordFactory()
    logging_hook.install()
    assert logging.getLogRecordFactory() is not before
    logging_hook.uninstall()
    assert logging.getLogRecordFactory() is before


def test_factory_chains_a_custom_factory(fake_engine: List[Any], capture: Any, factory_restored: None) -> None:
    base = logging.getLogRecordFactory()

    def custom(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = base(*args, **kwargs)
        record.custom = "yes"  # type: ignore[attr-defined]
        return record

    logging.setLogRecordFactory(custom)
    logging_hook.install()
    record = logging.getLogRecordFactory()("n", logging.ERROR, "f", 1, "m", (), None)
    assert record.custom == "yes"  # type: ignore[attr-defined]


def test_old_python_fills_exc_text(fake_engine: List[Any], factory_restored: None,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """3.9/3.10 emulation: the hint is printed after the traceback through ``exc_text``."""
    monkeypatch.setattr(_notes, "NOTES_SHOWN", False)
    monkeypatch.setattr(_notes, "traceback_shows_notes", lambda: False)
    logging_hook.install()
    exc = candle_error()
    record = logging.getLogRecordFactory()("app", logging.ERROR, "f", 1, "m", (), (type(exc), exc, exc.__traceback__))
    assert record.exc_text.startswith("Traceback (most recent call last):")
    assert record.exc_text.rstrip().endswith(HINT_FIX + " [brief]")


def test_hint_filter(fake_engine: List[Any], capture: Any) -> None:
    flt = logging_hook.HintFilter()
    capture.handlers[0].addFilter(flt)
    try:
        log_candle_error(capture)
        capture.info("no exception")
    finally:
        capture.handlers[0].removeFilter(flt)
    out = capture.stream.getvalue()
    assert out.count(HINT_FIX) == 1 and out.endswith("INFO no exception\n"), "the filter never drops records"


def test_hint_formatter(fake_engine: List[Any], capture: Any) -> None:
    """On any Python: after the traceback, once (notes where shown, appended text where not)."""
    capture.handlers[0].setFormatter(logging_hook.HintFormatter("%(message)s"))
    log_candle_error(capture)
    out = capture.stream.getvalue()
    assert out.rstrip().endswith(HINT_FIX + " [brief]")
    assert out.count(HINT_FIX) == 1


def test_hint_formatter_appends_where_notes_are_not_shown(fake_engine: List[Any], capture: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_notes, "NOTES_SHOWN", False)
    monkeypatch.setattr(_notes, "traceback_shows_notes", lambda: False)
    monkeypatch.setattr(logging.Formatter, "formatException", lambda self, ei: "TRACEBACK")
    capture.handlers[0].setFormatter(logging_hook.HintFormatter("%(message)s"))
    log_candle_error(capture)
    assert capture.stream.getvalue().startswith("forward failed\nTRACEBACK\nerrhint: ")


def test_asyncio_surface_only_hints_the_asyncio_logger(fake_engine: List[Any], capture: Any, factory_restored: None) -> None:
    asyncio_hook.install()
    exc = log_candle_error(capture)
    assert HINT_FIX not in capture.stream.getvalue() and not _notes.is_marked(exc)
    record = logging.getLogRecordFactory()("asyncio", logging.ERROR, "f", 1, "m", (), (type(exc), exc, None))
    assert record.name == "asyncio" and len(list(_notes.own_notes(exc))) == 1


def test_loop_with_custom_handler(fake_engine: List[Any]) -> None:
    seen: List[Any] = []
    loop = asyncio.new_event_loop()
    try:
        custom = lambda lp, ctx: seen.append(ctx["exception"])  # noqa: E731
        loop.set_exception_handler(custom)
        assert asyncio_hook.install_loop(loop)
        assert asyncio_hook.install_loop(loop) is False, "twice is once"
        exc = candle_error()
        loop.call_exception_handler({"message": "boom", "exception": exc})
        assert seen == [exc] and len(list(_notes.own_notes(exc))) == 1
        asyncio_hook.uninstall_loop(loop)
        assert loop.get_exception_handler() is custom
    finally:
        loop.close()


def test_loop_with_default_handler_restores_none(fake_engine: List[Any]) -> None:
    loop = asyncio.new_event_loop()
    try:
        asyncio_hook.install_loop(loop)
        assert loop.get_exception_handler() is not None
        asyncio_hook.uninstall_loop(loop)
        assert loop.get_exception_handler() is None
    finally:
        loop.close()
