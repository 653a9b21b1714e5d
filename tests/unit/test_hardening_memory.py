"""Hardening: memory stays flat over many lookups, and nothing outlives a hook call.

* 100,000 lookups of ever-different messages (so a cache keyed by text would grow) leave
  memory flat: counted in allocated blocks over the whole run and, over a traced stretch of
  it, in bytes with tracemalloc (tracing all of it would take 4x as long);
* after ``lookup``, ``guard`` or any hook returns, no exception, traceback or frame is kept:
  a canary object living in the raising frame is freed as soon as the caller drops the
  exception.
"""

from __future__ import annotations

import gc
import io
import logging
import sys
import threading
import tracemalloc
import weakref
from typing import Any, Callable, Iterator, List

import pytest

from engine_support import CANDLE, FAMILIES, fixture_records
from errhint import engine, indexfile, loaded_index

MATCHING = 'WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: <disabled> }'


@pytest.fixture
def dataset() -> Iterator[engine.Dataset]:
    ds = engine.Dataset([loaded_index.LoadedIndex(indexfile.build_index(fixture_records()))], families=FAMILIES)
    ds.labels = lambda: {CANDLE: "0.4.2"}  # type: ignore[method-assign]
    engine.use(ds)
    yield ds
    engine.reset()


# --------------------------------------------------------------------------- 100,000 lookups


def _chained(i: int) -> BaseException:
    outer = RuntimeError(f"wrapper {i}")
    outer.__cause__ = ValueError(f"shape mismatch in op{i}, lhs: [{i}, 3], rhs: [4, {i}]")
    return outer


MAKERS: List[Callable[[int], BaseException]] = [
    lambda i: ValueError(f'WithBacktrace {{ inner: UnsupportedDTypeForOp(I64, "op{i}"), backtrace: <disabled> }}'),
    lambda i: ValueError(f"unsupported dtype F{i} for op conv{i}"),
    lambda i: KeyError(f"no such key {i}"),
    _chained,
]
"""A Debug form, a Display form, a miss and a chain; every message differs by its values."""


def _lookups(start: int, count: int) -> int:
    hits = 0
    for i in range(start, start + count):
        hits += bool(engine.lookup(MAKERS[i % len(MAKERS)](i)))
    return hits


@pytest.mark.slow
def test_100k_lookups_do_not_grow_memory(dataset: engine.Dataset) -> None:
    assert _lookups(0, 2_000) >= 1_000  # warm: every cache the records can fill is filled; most are hits
    gc.collect()
    blocks = sys.getallocatedblocks()

    _lookups(2_000, 88_000)
    gc.collect()
    block_growth = sys.getallocatedblocks() - blocks

    tracemalloc.start()
    try:
        # a first traced stretch: a bounded cache keyed by text replaces, one lookup at a time,
        # entries made before tracing began, whose frees tracemalloc cannot count; after it,
        # every entry such a cache holds was allocated while traced
        _lookups(80_000, 5_000)
        gc.collect()
        before = tracemalloc.take_snapshot()
        _lookups(90_000, 10_000)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    stats = after.compare_to(before, "lineno")
    byte_growth = sum(s.size_diff for s in stats)

    # A leak of one object per lookup would be 88,000 blocks, of 8 bytes per lookup 80 KB.
    assert block_growth < 2_000, block_growth
    assert byte_growth < 32 * 1024, "\n".join(str(s) for s in stats[:10])


def test_the_leak_detector_detects_a_leak(dataset: engine.Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    """Control: the same measurement sees a per-lookup leak of one small object."""
    kept: List[Any] = []
    real = engine.lookup
    monkeypatch.setattr(engine, "lookup", lambda exc, **kw: kept.append(str(exc)[:8]) or real(exc, **kw))
    _lookups(0, 500)
    gc.collect()
    blocks = sys.getallocatedblocks()
    _lookups(500, 5_000)
    gc.collect()
    assert sys.getallocatedblocks() - blocks >= 5_000


# --------------------------------------------------------------------------- nothing outlives a call


class Canary:
    """Lives only in the raising frame's locals: alive exactly as long as that frame is."""


class Failure(ValueError):
    """A user-level exception class (built-in exception instances cannot be weakly referenced)."""


def boom(refs: List[weakref.ref], message: str = MATCHING) -> None:
    canary = Canary()
    refs.append(weakref.ref(canary))
    raise Failure(message)


def assert_freed(refs: List[weakref.ref]) -> None:
    gc.collect()
    alive = [r() for r in refs if r() is not None]
    assert len(refs) >= 2 and alive == []


@pytest.fixture
def quiet(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    return err


def test_canary_control() -> None:
    """Control: holding the exception keeps the frame and its canary alive."""
    refs: List[weakref.ref] = []
    held: List[BaseException] = []
    try:
        boom(refs)
    except ValueError as e:
        held.append(e)
        refs.append(weakref.ref(e))
    gc.collect()
    assert all(r() is not None for r in refs)
    held.clear()
    assert_freed(refs)


def test_lookup_keeps_nothing(dataset: engine.Dataset) -> None:
    refs: List[weakref.ref] = []
    try:
        boom(refs)
    except ValueError as e:
        refs.append(weakref.ref(e))
        assert engine.lookup(e)  # a match: the whole path ran
    assert_freed(refs)


def test_guard_keeps_nothing(dataset: engine.Dataset, quiet: io.StringIO) -> None:
    import errhint

    refs: List[weakref.ref] = []
    try:
        with errhint.guard():
            boom(refs)
    except ValueError as e:
        refs.append(weakref.ref(e))
        assert any(n.startswith("errhint:") for n in e.__notes__)  # type: ignore[attr-defined]
    assert_freed(refs)


@pytest.fixture
def only_errhint(monkeypatch: pytest.MonkeyPatch, quiet: io.StringIO) -> Iterator[List[Any]]:
    """No-op previous hooks (they record that they ran), errhint installed on top of them."""
    import errhint

    calls: List[Any] = []
    monkeypatch.setattr(sys, "excepthook", lambda *a: calls.append("excepthook"))
    monkeypatch.setattr(threading, "excepthook", lambda args: calls.append("threading"))
    monkeypatch.setattr(sys, "unraisablehook", lambda args: calls.append("unraisable"))
    errhint.install(surfaces=["excepthook", "threads", "unraisable", "logging"])
    yield calls
    errhint.uninstall()


def test_excepthook_keeps_nothing(dataset: engine.Dataset, only_errhint: List[Any]) -> None:
    refs: List[weakref.ref] = []
    try:
        boom(refs)
    except ValueError as e:
        refs.append(weakref.ref(e))
        sys.excepthook(type(e), e, e.__traceback__)
        assert any(n.startswith("errhint:") for n in e.__notes__)  # type: ignore[attr-defined]
    assert only_errhint == ["excepthook"]
    assert_freed(refs)


def test_thread_hook_keeps_nothing(dataset: engine.Dataset, only_errhint: List[Any]) -> None:
    refs: List[weakref.ref] = []

    def target() -> None:
        try:
            boom(refs)
        except ValueError as e:
            refs.append(weakref.ref(e))
            raise

    t = threading.Thread(target=target)
    t.start()
    t.join()
    del t
    assert only_errhint == ["threading"]
    assert_freed(refs)


def test_unraisable_hook_keeps_nothing(dataset: engine.Dataset, only_errhint: List[Any]) -> None:
    refs: List[weakref.ref] = []

    class Dies:
        def __del__(self) -> None:
            boom(refs)

    obj = Dies()
    refs.append(weakref.ref(obj))
    del obj
    assert only_errhint == ["unraisable"]
    assert_freed(refs)


def test_logging_hook_keeps_nothing(dataset: engine.Dataset, only_errhint: List[Any]) -> None:
    stream = io.StringIO()
    logger = logging.getLogger("errhint.test.memory")
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    logger.propagate = False
    refs: List[weakref.ref] = []
    try:
        try:
            boom(refs)
        except ValueError as e:
            refs.append(weakref.ref(e))
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    assert "errhint:" in stream.getvalue()  # the hint was added, so the surface really ran
    assert_freed(refs)
