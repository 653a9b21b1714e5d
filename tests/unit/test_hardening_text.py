"""Hardening: arbitrary text through extraction, normalisation, the Debug parser and ``explain``.

Everything runs with ``ERRHINT_DEBUG=1`` where the engine is involved, so an internal error
is raised instead of being swallowed by the engine's guard: what is tested is that the code
copes with the text, not that a try/except hides the failure. Each call also has a time bound.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterator, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine_support import debug, installed_candle_dataset  # noqa: F401 (fixture)
from errhint import engine, extract, normalize, rustdebug
from errhint.match import Match

BOUND = 5.0
"""Seconds any single call may take, even on 1 MB of hostile text: far above what it takes on
a loaded machine, far below what a walk quadratic in the text would."""

SETTINGS = settings(
    max_examples=200,
    deadline=None,  # the explicit BOUND below is the time limit; hypothesis' deadline flakes on shared CI
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module")
def dataset() -> Iterator[engine.Dataset]:
    yield from installed_candle_dataset()


def timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    elapsed = time.perf_counter() - start
    assert elapsed < BOUND, f"{getattr(fn, '__name__', fn)} took {elapsed:.2f} s"
    return out


# --------------------------------------------------------------------------- strategies

any_char = st.characters(exclude_categories=()) | st.characters(categories=["Cs"]) | st.sampled_from("\x00\x1b\r\n\t\\\"'{}()[]<>:,.")
any_text = st.text(any_char, max_size=400)

DEBUG_TOKENS = [
    "(", ")", "[", "]", "{", "}", ",", ": ", "::", "..", "..=", " ", "\n", '"', "'", "\\", '\\"', "\\u{", "\\u{110000}",
    "\\x", "0", "-1", "1.5e-3", "inf", "NaN", "I64", "F32", "Msg", "WithBacktrace", "inner", "backtrace", "Context",
    "context", "WithPath", "path", "WrappedContext", "wrapped", "UnsupportedDTypeForOp", "ShapeMismatchBinaryOp",
    "lhs", "rhs", "op", '"matmul"', "<disabled>", "<", ">", "Os", "code", "kind", "message", "Custom", "error", "Some",
    "None", "Ok", "Err", "#", "@",
]
DRESSING = [
    "thread 'main' panicked at src/lib.rs:1:2:\n",
    "thread '<unnamed>' panicked at 'msg', /root/.cargo/registry/src/candle-core-0.4.2/src/x.rs:3:4\n",
    "called `Result::unwrap()` on an `Err` value: ",
    "not implemented: ",
    "not yet implemented",
    "internal error: entered unreachable code: ",
    "assertion `left == right` failed: m\n  left: 1\n right: 2",
    "assertion failed: `(left == right)`\n  left: `1`,\n right: `2`: m",
    "=== Tensor Operation Error ===\n  Operation: 'Reshape'\n  Reason:\n    1. ",
    "\n    2. ",
    "\nstack backtrace:\n   0: x\n             at ./a.rs:1:1\n",
    "\nnote: run with `RUST_BACKTRACE=1`",
    "Traceback (most recent call last):\n",
    "Exception Group Traceback (most recent call last):\n",
    '  File "/site-packages/candle/__init__.py", line 1, in <module>\n',
    "  | ",
    "  +---------------- 1 ----------------\n",
    "  +-+---------------- 1 ----------------\n",
    "The above exception was the direct cause of the following exception:\n",
    "ValueError: ",
    "pyo3_runtime.PanicException: ",
    "errhint: a note\n",
    "unsupported dtype I64 for op matmul",
    "shape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]",
]


@st.composite
def debug_syntax(draw: st.DrawFn, depth: int = 0) -> str:
    """Rust Debug-like text: well formed, nested, unbalanced or cut short."""
    kind = draw(st.integers(0, 6 if depth < 6 else 1))
    if kind == 0:
        return draw(st.sampled_from(DEBUG_TOKENS))
    if kind == 1:
        return '"' + draw(st.text(any_char, max_size=20)).replace('"', '\\"') + draw(st.sampled_from(['"', ""]))
    name = draw(st.sampled_from(["Msg", "WithBacktrace", "UnsupportedDTypeForOp", "Context", "WithPath", "X", "Os", ""]))
    inner = draw(st.lists(debug_syntax(depth + 1), max_size=4))
    if kind == 2:
        body = ", ".join(inner)
        return f"{name}({body}" + draw(st.sampled_from([")", "", "))", "]"]))
    if kind == 3:
        keys = draw(st.lists(st.sampled_from(["inner", "backtrace", "context", "path", "lhs", "op", "0", ".."]), min_size=len(inner), max_size=len(inner)))
        body = ", ".join(f"{k}: {v}" for k, v in zip(keys, inner))
        return f"{name} {{ {body}" + draw(st.sampled_from([" }", "", "}}", ")"]))
    if kind == 4:
        return "[" + ", ".join(inner) + draw(st.sampled_from(["]", "", ", ..]"]))
    if kind == 5:
        return "".join(inner)
    return draw(st.sampled_from(DEBUG_TOKENS)) * draw(st.integers(1, 50))


hostile_text = st.one_of(
    any_text,
    debug_syntax(),
    st.lists(st.sampled_from(DEBUG_TOKENS), max_size=80).map("".join),
    st.lists(st.one_of(st.sampled_from(DRESSING), debug_syntax(), any_text), max_size=8).map("".join),
)
exc_types = st.sampled_from(["", "ValueError", "pyo3_runtime.PanicException", "candle.Error", "pyburn.Error", "x" * 500])


# --------------------------------------------------------------------------- properties


@pytest.mark.slow
@SETTINGS
@given(text=hostile_text, exc_type=exc_types)
def test_normalize_never_raises(dataset: engine.Dataset, text: str, exc_type: str) -> None:
    found = timed(normalize.candidates, text, exc_type=exc_type, templates=dataset.templates)
    for cand in found:
        assert isinstance(cand.text, str) and len(cand.text) <= normalize.MAX_CANDIDATE
        assert isinstance(cand.message, str) and len(cand.message) <= normalize.MAX_CANDIDATE


@SETTINGS
@given(text=hostile_text)
def test_debug_parser_never_raises(text: str) -> None:
    value = timed(rustdebug.parse, text)
    assert value is None or value.raw == text.strip() or value.raw in text
    prefix = timed(rustdebug.parse_prefix, text)
    assert prefix is None or 0 <= prefix[1] <= len(text)
    head = timed(rustdebug.parse_struct_head, text, "WithBacktrace")
    assert head is None or isinstance(head, dict)
    assert isinstance(timed(rustdebug.unescape, text), str)


@pytest.mark.slow
@SETTINGS
@given(text=hostile_text, exc_type=st.none() | exc_types)
def test_extract_from_text_never_raises(text: str, exc_type: Any) -> None:
    found = timed(extract.from_text, text, exc_type)
    assert all(isinstance(i.text, str) and len(i.text) <= extract.MAX_TEXT for i in found.items)


@SETTINGS
@given(text=hostile_text, exc_type=st.none() | exc_types)
def test_explain_never_raises(dataset: engine.Dataset, debug: None, text: str, exc_type: Any) -> None:
    found = timed(engine.explain, text, exc_type=exc_type)
    assert isinstance(found, list) and all(isinstance(m, Match) for m in found)
    for m in found:
        assert 0.0 <= m.score <= 1.0 and isinstance(m.render("brief"), str)


@settings(SETTINGS, max_examples=100)
@given(noise=hostile_text)
def test_a_known_message_is_still_found_after_noise_in_other_sections(dataset: engine.Dataset, debug: None, noise: str) -> None:
    """Garbage before a traceback does not stop the real message from being matched."""
    text = noise.replace("Traceback", "").replace("\n", " ") + "\nTraceback (most recent call last):\n" \
        '  File "x.py", line 1, in <module>\nValueError: unsupported dtype I64 for op matmul\n'
    messages = [m.message for m in timed(engine.explain, text)]
    assert "unsupported dtype I64 for op matmul" in messages


# --------------------------------------------------------------------------- big and binary inputs

MB = 1 << 20
BIG = {
    "nul bytes": "\x00" * MB,
    "lone surrogates": "\ud800\udfff\udc00" * (MB // 3),
    "astral": "\U0010ffff" * MB,
    "one long word": "a" * MB,
    "binary as latin-1": bytes(range(256)).decode("latin-1") * (MB // 256),
    "open parens": "Msg(" * (MB // 4),
    "close parens": ")" * MB,
    "open brackets": "[" * MB,
    "open struct": "A { a: " * (MB // 7),
    "withbacktrace unbalanced": "WithBacktrace { inner: " + "X(" * (MB // 2),
    "withbacktrace deep": "WithBacktrace { inner: " + "Msg(" * 60 + '"x"' + ")" * 60 + ", backtrace: " + "[" * MB,
    "unterminated string": '"' + "\\" + "a" * MB,
    "escaped quotes": '"' + '\\"' * (MB // 2) + '"',
    "wide variant": "UnsupportedDTypeForOp(" + "I64, " * (MB // 5) + ")",
    "wide struct": "ShapeMismatchBinaryOp { " + "f: [1, 2], " * (MB // 11) + "}",
    "many colons": ": " * (MB // 2),
    "expect chain": "msg: " + "A(" * (MB // 2),
    "tensor check reasons": "=== Tensor Operation Error ===\n  Operation: 'R'\n  Reason:\n" + "    1. shape mismatch in matmul\n" * (MB // 30),
    "panic header": "thread 'main' panicked at " + "a" * MB,
    "traceback frames": "Traceback (most recent call last):\n" + '  File "x", line 1\n' * (MB // 20) + "ValueError: boom",
    "group boxes": "Exception Group Traceback (most recent call last):\n" + "  | ValueError: x\n  +---- 1 ----\n" * (MB // 32),
    "matching message repeated": "unsupported dtype I64 for op matmul " * (MB // 36),
}


@pytest.mark.parametrize("name", sorted(BIG))
def test_megabyte_inputs_are_bounded(dataset: engine.Dataset, debug: None, name: str) -> None:
    text = BIG[name]
    assert len(text) >= 0.9 * MB
    for exc_type in ("", "pyo3_runtime.PanicException"):
        assert isinstance(timed(normalize.candidates, text, exc_type=exc_type, templates=dataset.templates), list)
        assert isinstance(timed(engine.explain, text, exc_type=exc_type or None), list)
        assert isinstance(timed(engine.lookup, ValueError(text)), list)
    head = text[: normalize.MAX_INPUT]  # the parser only ever sees what normalize lets through
    timed(rustdebug.parse, head)
    timed(rustdebug.parse_prefix, head)


def test_deep_nesting_beyond_the_parser_limit_is_rejected_not_crashed() -> None:
    for depth in (rustdebug.MAX_DEPTH, rustdebug.MAX_DEPTH + 1, 10_000, 100_000):
        text = "Msg(" * depth + '"x"' + ")" * depth
        value = timed(rustdebug.parse, text)
        assert (value is not None) == (depth <= rustdebug.MAX_DEPTH), depth


def test_a_match_survives_a_megabyte_of_trailing_noise(dataset: engine.Dataset, debug: None) -> None:
    """Control for the bounds: cutting the input keeps its head, where the message is."""
    text = 'WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: ' + "[" * MB
    assert [m.message for m in timed(engine.explain, text)][:1] == ["unsupported dtype I64 for op matmul"]
