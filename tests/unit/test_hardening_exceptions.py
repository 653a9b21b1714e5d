"""Hardening: ``lookup`` and the hooks on hostile exception objects.

Arbitrary exception graphs (broken or non-str ``__str__``, args of any type, cyclic
``__cause__``/``__context__``, odd ``__notes__``, groups) go through ``engine.lookup`` with
``ERRHINT_DEBUG=1``, so an internal error is raised instead of swallowed: the engine must be
robust, not merely guarded. The exceptions themselves must come out unchanged, and the hooks
must hand the very same object on.
"""

from __future__ import annotations

import builtins
import io
import sys
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine_support import debug, installed_candle_dataset  # noqa: F401 (fixture)
from errhint import engine, matching, normalize
from errhint.match import Match

ExceptionGroup = getattr(builtins, "ExceptionGroup", None)
BaseExceptionGroup = getattr(builtins, "BaseExceptionGroup", None)
needs_groups = pytest.mark.skipif(ExceptionGroup is None, reason="ExceptionGroup needs Python 3.11+")

MATCHING = 'WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: <disabled> }'
"""A message the fixture dataset explains (so the hint path, notes included, runs too)."""
BOUND = 5.0
"""Seconds one lookup may take on any of these objects: far above what it takes on a loaded
machine, far below what an unbounded walk of these graphs would."""


@pytest.fixture(scope="module")
def dataset() -> Iterator[engine.Dataset]:
    """The engine's fixture records as the dataset, once per module (no files, fixed labels)."""
    yield from installed_candle_dataset()


# --------------------------------------------------------------------------- hostile classes


class BrokenStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("broken __str__")


class NonStrStr(Exception):
    def __str__(self) -> str:
        return 42  # type: ignore[return-value]


class BaseExceptionStr(Exception):
    """``__str__`` raising a BaseException that is not an Exception."""

    def __str__(self) -> str:
        raise GeneratorExit()


class TrickyText(str):
    """A str subclass whose slicing, stripping and splitting all fail."""

    def __getitem__(self, key: Any) -> str:
        raise RuntimeError("no slicing")

    def strip(self, *args: Any) -> str:
        raise RuntimeError("no strip")

    def splitlines(self, *args: Any) -> List[str]:
        raise RuntimeError("no splitlines")


class TrickyStr(Exception):
    def __str__(self) -> str:
        return TrickyText(MATCHING)


class HugeStr(Exception):
    def __str__(self) -> str:
        return MATCHING + "\n" + "x" * 1_000_000


class BrokenRepr:
    def __repr__(self) -> str:
        raise RuntimeError("broken __repr__")

    __str__ = __repr__


class RaisingLinks(Exception):
    """``__cause__``/``__traceback__``/``__notes__`` are properties that raise."""

    @property  # type: ignore[override]
    def __cause__(self) -> Any:
        raise RuntimeError("no cause")

    @property  # type: ignore[override]
    def __traceback__(self) -> Any:
        raise RuntimeError("no traceback")

    @property
    def __notes__(self) -> Any:
        raise RuntimeError("no notes")


class OddModule(Exception):
    pass


OddModule.__module__ = 42  # type: ignore[assignment]


class Frozen(Exception):
    """Refuses attribute assignment, like a frozen dataclass exception."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"frozen: {name}")


class Bare(BaseException):
    pass


CLASSES = [ValueError, RuntimeError, BrokenStr, NonStrStr, BaseExceptionStr, TrickyStr, HugeStr, RaisingLinks, OddModule, Frozen, Bare]

leaf_values = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(max_size=50)
    | st.binary(max_size=50)
    | st.just(MATCHING)
    | st.builds(BrokenRepr)
)
arg_values = st.recursive(
    leaf_values,
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
note_values = st.none() | st.text(max_size=30) | st.lists(st.one_of(st.text(max_size=30), st.integers(), st.none()), max_size=3) | st.tuples(st.text(max_size=10))


@st.composite
def exception_graphs(draw: st.DrawFn) -> BaseException:
    """1-6 exceptions of hostile classes with arbitrary args, linked by cause/context/groups in any shape."""
    n = draw(st.integers(1, 6))
    nodes: List[BaseException] = []
    for _ in range(n):
        cls = draw(st.sampled_from(CLASSES))
        exc = cls(*draw(st.lists(arg_values, max_size=3)))
        if draw(st.booleans()) and cls is not RaisingLinks:
            object.__setattr__(exc, "__notes__", draw(note_values))
        nodes.append(exc)
    for exc in nodes:
        for attr in ("__cause__", "__context__"):
            target = draw(st.none() | st.integers(0, n - 1))  # may point back: cycles
            if target is not None and not isinstance(exc, RaisingLinks):
                BaseException.__dict__[attr].__set__(exc, nodes[target])
    if ExceptionGroup is not None and draw(st.booleans()):
        members = draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=4))
        group_cls = ExceptionGroup if all(isinstance(m, Exception) for m in members) else BaseExceptionGroup
        return group_cls("group", members)
    return nodes[0]


def _state(exc: BaseException) -> Tuple[Any, ...]:
    """What the user may observe of an exception errhint was given (compared by identity)."""
    d = exc.__dict__
    return (
        type(exc),
        exc.args,
        BaseException.__dict__["__cause__"].__get__(exc),
        BaseException.__dict__["__context__"].__get__(exc),
        BaseException.__dict__["__traceback__"].__get__(exc),
        BaseException.__dict__["__suppress_context__"].__get__(exc),
        d.get("__notes__", "<none>") if not isinstance(d.get("__notes__"), list) else list(d["__notes__"]),
    )


def _timed_lookup(exc: BaseException) -> List[Match]:
    start = time.perf_counter()
    found = engine.lookup(exc)
    elapsed = time.perf_counter() - start
    assert elapsed < BOUND, f"lookup took {elapsed:.2f} s"
    return found


# --------------------------------------------------------------------------- properties


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(exc=exception_graphs())
def test_lookup_survives_any_exception_graph(dataset: engine.Dataset, debug: None, exc: BaseException) -> None:
    before = _state(exc)
    found = _timed_lookup(exc)
    assert isinstance(found, list) and all(isinstance(m, Match) for m in found)
    assert _state(exc) == before  # lookup only reads


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_each_hostile_class_alone(dataset: engine.Dataset, debug: None, cls: type) -> None:
    exc = cls(MATCHING)
    before = _state(exc)
    found = _timed_lookup(exc)
    assert isinstance(found, list)
    assert _state(exc) == before


def test_broken_member_does_not_hide_the_hint_of_its_cause(dataset: engine.Dataset, debug: None) -> None:
    for cls in (BrokenStr, NonStrStr, BaseExceptionStr):
        exc = cls()
        exc.__cause__ = ValueError(MATCHING)
        assert [m.message for m in _timed_lookup(exc)][:1] == ["unsupported dtype I64 for op matmul"], cls


def test_str_subclass_message_is_read_as_plain_text(dataset: engine.Dataset, debug: None) -> None:
    assert [m.message for m in _timed_lookup(TrickyStr())][:1] == ["unsupported dtype I64 for op matmul"]


def test_huge_message_is_bounded(dataset: engine.Dataset, debug: None) -> None:
    found = _timed_lookup(HugeStr())
    assert [m.message for m in found][:1] == ["unsupported dtype I64 for op matmul"]


# --------------------------------------------------------------------------- sizes


def _chain(length: int, link: str) -> BaseException:
    exc: BaseException = ValueError(MATCHING)
    for i in range(length):
        outer = RuntimeError(f"wrapper {i}")
        setattr(outer, link, exc)
        exc = outer
    return exc


@pytest.mark.parametrize("link", ["__cause__", "__context__"])
def test_ten_thousand_long_chain(dataset: engine.Dataset, debug: None, link: str) -> None:
    exc = _chain(10_000, link)
    assert isinstance(_timed_lookup(exc), list)


def test_ten_thousand_long_cycle(dataset: engine.Dataset, debug: None) -> None:
    exc = _chain(10_000, "__cause__")
    last = exc
    while last.__cause__ is not None:
        last = last.__cause__
    last.__cause__ = exc  # the innermost points back at the outermost
    assert isinstance(_timed_lookup(exc), list)


def test_short_chain_is_walked_to_its_root(dataset: engine.Dataset, debug: None) -> None:
    """Control for the long chains: the matching root is found when the chain is short."""
    assert _timed_lookup(_chain(10, "__cause__"))


@needs_groups
@pytest.mark.parametrize("size", [1_000, 5_000])
def test_exception_group_with_thousands_of_members(dataset: engine.Dataset, debug: None, size: int) -> None:
    group = ExceptionGroup("many", [ValueError(f"member {i}") for i in range(size - 1)] + [ValueError(MATCHING)])
    assert isinstance(_timed_lookup(group), list)
    assert _timed_lookup(ExceptionGroup("few", [ValueError("x"), ValueError(MATCHING)]))  # control


@needs_groups
def test_deeply_nested_groups(dataset: engine.Dataset, debug: None) -> None:
    exc: BaseException = ValueError(MATCHING)
    for _ in range(5_000):
        exc = ExceptionGroup("nest", [exc])
    assert isinstance(_timed_lookup(exc), list)


@needs_groups
def test_group_member_cycles(dataset: engine.Dataset, debug: None) -> None:
    inner = ValueError(MATCHING)
    group = ExceptionGroup("g", [inner, ValueError("other")])
    inner.__context__ = group  # a member whose context is its own group
    assert _timed_lookup(group)


# --------------------------------------------------------------------------- hooks hand the same object on


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(exc=exception_graphs())
def test_guard_reraises_the_same_untouched_object(dataset: engine.Dataset, exc: BaseException) -> None:
    import errhint

    args, cause, context = exc.args, exc.__cause__ if not isinstance(exc, RaisingLinks) else None, exc.__context__
    stderr, sys.stderr = sys.stderr, io.StringIO()
    try:
        with pytest.raises(BaseException) as caught:
            with errhint.guard():
                raise exc
    finally:
        sys.stderr = stderr
    assert caught.value is exc
    assert exc.args is args and exc.__context__ is context
    if not isinstance(exc, RaisingLinks):
        assert exc.__cause__ is cause


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(exc=exception_graphs())
def test_excepthook_passes_the_same_objects_on(dataset: engine.Dataset, exc: BaseException) -> None:
    from errhint.hooks import excepthook

    seen: List[Tuple[Any, ...]] = []
    saved = sys.excepthook
    sys.excepthook = lambda *a: seen.append(a)
    stderr, sys.stderr = sys.stderr, io.StringIO()
    try:
        excepthook.install()
        tb = BaseException.__dict__["__traceback__"].__get__(exc)
        sys.excepthook(type(exc), exc, tb)
    finally:
        excepthook.uninstall()
        sys.excepthook = saved
        sys.stderr = stderr
    assert len(seen) == 1 and seen[0][0] is type(exc) and seen[0][1] is exc and seen[0][2] is tb


def test_guard_adds_no_internal_error_for_non_list_notes(dataset: engine.Dataset, capsys: pytest.CaptureFixture) -> None:
    """A user's ``__notes__`` that is not a list is left alone, silently (it is not errhint's)."""
    import errhint
    from errhint.hooks import _safe

    _safe._reported.clear()  # each distinct internal-error line is printed once per process
    for notes in [("theirs",), "theirs", None, 5]:
        exc = ValueError(MATCHING)
        exc.__notes__ = notes  # type: ignore[attr-defined]
        with pytest.raises(ValueError) as caught:
            with errhint.guard():
                raise exc
        assert caught.value is exc and exc.__notes__ == notes
    assert "errhint: internal error" not in capsys.readouterr().err


def test_guard_on_exception_with_base_exception_str_keeps_the_original(dataset: engine.Dataset) -> None:
    """A ``__str__`` raising GeneratorExit must not replace the user's exception."""
    import errhint

    exc = BaseExceptionStr()
    with pytest.raises(BaseExceptionStr) as caught:
        with errhint.guard():
            raise exc
    assert caught.value is exc


@needs_groups
def test_a_group_of_huge_debug_messages_stops_at_the_lookup_deadline(dataset: engine.Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``LOOKUP_DEADLINE`` a lookup takes no new member: with a clock that jumps a second
    per reading, only the first of 16 huge members is read."""
    wide = "ShapeMismatchBinaryOp { " + "f: [1, 2], " * 6000 + "}"  # 66 KB, parsed to its end
    group = ExceptionGroup("huge", [ValueError(wide) for _ in range(16)])
    read: List[int] = []
    real_candidates = normalize.candidates
    monkeypatch.setattr(normalize, "candidates", lambda text, **kw: read.append(len(text)) or real_candidates(text, **kw))
    ticks = iter(range(1, 10_000))
    monkeypatch.setattr(matching.time, "perf_counter", lambda: float(next(ticks)))
    assert isinstance(engine.lookup(group), list)
    assert len(read) == 1
