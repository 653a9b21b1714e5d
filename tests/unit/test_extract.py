from __future__ import annotations

import builtins
import gc
import multiprocessing
import sys
import types
import weakref
from pathlib import Path
from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errhint import extract
from errhint.extract import from_exception, from_text

TEXTS = Path(__file__).resolve().parents[1] / "fixtures" / "texts"


class Wrapper(RuntimeError):
    pass


def _raise_chain() -> BaseException:
    try:
        try:
            raise ValueError("inner rust message")
        except ValueError as inner:
            raise Wrapper("wrapper") from inner
    except RuntimeError as outer:
        return outer


def texts(exc: BaseException) -> List[str]:
    return [i.text for i in from_exception(exc).items]


def test_cause_and_context_are_walked_with_depth() -> None:
    exc = _raise_chain()
    items = from_exception(exc).items
    assert [(i.text, i.exc_type, i.depth, i.origin) for i in items] == [
        ("wrapper", "test_extract.Wrapper", 0, "exception"),
        ("inner rust message", "ValueError", 1, "cause"),
    ]
    try:
        try:
            raise KeyError("first")
        except KeyError:
            raise TypeError("second")
    except TypeError as e:
        items = from_exception(e).items
    assert [i.origin for i in items] == ["exception", "context"]


def test_cycles_terminate() -> None:
    a, b = ValueError("a"), ValueError("b")
    a.__cause__, b.__cause__ = b, a
    a.__context__ = a
    assert texts(a) == ["a", "b"]


def test_exception_groups_are_expanded() -> None:
    group_type = getattr(builtins, "ExceptionGroup", None)
    if group_type is None:  # pragma: no cover - Python < 3.11 without the backport
        pytest.skip("no ExceptionGroup")
    eg = group_type("several", [ValueError("one"), group_type("nested", [TypeError("two")])])
    got = texts(eg)
    assert "one" in got and "two" in got
    member = [i for i in from_exception(eg).items if i.text == "two"][0]
    assert member.origin == "group" and member.depth == 2


def test_broken_str_is_skipped_not_raised() -> None:
    class Broken(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    exc = Broken()
    exc.__cause__ = ValueError("still found")
    assert texts(exc) == ["still found"]


def test_own_notes_are_skipped_other_notes_kept() -> None:
    exc = ValueError("msg")
    exc.__notes__ = ["errhint: unsupported dtype I64 for op matmul (huggingface/candle)", "from another tool"]
    assert texts(exc) == ["msg", "from another tool"]


def test_binding_frames_and_types_are_noticed() -> None:
    mod = types.ModuleType("candle.fake_sub")
    code = "def boom():\n    raise ValueError('x')\n"
    exec(compile(code, "candle/fake_sub.py", "exec"), mod.__dict__)
    try:
        mod.boom()
    except ValueError as e:
        assert from_exception(e).modules == {"candle"}
    plain = ValueError("y")
    assert from_exception(plain).modules == frozenset()


def test_no_reference_to_the_exception_survives() -> None:
    exc = _raise_chain()
    ref = weakref.ref(exc)
    result = from_exception(exc)
    del exc
    gc.collect()
    assert ref() is None and result.items


def _pool_fail(_: int) -> None:
    raise ValueError('WithBacktrace { inner: Msg("remote failure"), backtrace: <disabled> }')


def test_remote_traceback_from_multiprocessing_pool() -> None:
    ctx = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork")
    with ctx.Pool(1) as pool:
        with pytest.raises(ValueError) as info:
            pool.map(_pool_fail, [1])
    items = from_exception(info.value).items
    remote = [i for i in items if i.origin == "remote"]
    assert remote and remote[0].exc_type == "ValueError"
    assert remote[0].text.startswith("WithBacktrace { inner: Msg(")
    assert '"""' not in remote[0].text


# ---------------------------------------------------------------- pasted text


def test_pasted_chained_traceback() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/site-packages/candle/nn/linear.py", line 3, in forward\n'
        "    x.matmul(w)\n"
        "ValueError: shape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 9, in <module>\n'
        "RuntimeError: training failed\n"
        "errhint: shape mismatch in matmul (huggingface/candle)\n"
        "  fix: something\n"
    )
    ex = from_text(text)
    assert [(i.exc_type, i.text, i.depth) for i in ex.items] == [
        ("ValueError", "shape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]", 1),
        ("RuntimeError", "training failed", 0),
    ]
    assert ex.modules == {"candle"}


def test_pasted_multiline_panic_report() -> None:
    text = (TEXTS / "burn_0.18_add_traceback.txt").read_text()
    ex = from_text(text)
    assert len(ex.items) == 1
    item = ex.items[0]
    assert item.exc_type == "pyo3_runtime.PanicException"
    assert item.text.startswith("=== Tensor Operation Error ===\n  Operation: 'Add'")
    assert "    2. The provided tensors" in item.text


def test_pasted_exception_group_boxes() -> None:
    text = (
        "  + Exception Group Traceback (most recent call last):\n"
        '  |   File "t.py", line 1, in <module>\n'
        "  | ExceptionGroup: batch (2 sub-exceptions)\n"
        "  +-+---------------- 1 ----------------\n"
        "    | Traceback (most recent call last):\n"
        '    |   File "t.py", line 2, in f\n'
        "    | ValueError: NotCompiledWithCudaSupport\n"
        "    +---------------- 2 ----------------\n"
        "    | Traceback (most recent call last):\n"
        '    |   File "t.py", line 3, in g\n'
        "    | pyo3_runtime.PanicException: not implemented: Unsupported precision for fusion\n"
        "    +------------------------------------\n"
    )
    got = {(i.exc_type, i.text) for i in from_text(text).items}
    assert ("ValueError", "NotCompiledWithCudaSupport") in got
    assert ("pyo3_runtime.PanicException", "not implemented: Unsupported precision for fusion") in got


def test_bare_message_with_and_without_type() -> None:
    assert [(i.exc_type, i.text) for i in from_text("ValueError: bad things").items] == [("ValueError", "bad things")]
    assert [(i.exc_type, i.text) for i in from_text("just a message").items] == [("", "just a message")]
    given = from_text("just a message", exc_type="pyo3_runtime.PanicException").items[0]
    assert given.exc_type == "pyo3_runtime.PanicException"
    assert from_text("msg\nerrhint: old hint\n  more").items[0].text == "msg"


def test_type_name() -> None:
    assert extract.type_name(ValueError) == "ValueError"

    class Local(Exception):
        pass

    assert extract.type_name(Local).endswith("test_type_name.<locals>.Local")


def test_key_error_text_is_its_argument_not_its_repr() -> None:
    """``str(KeyError("a \\"b\\""))`` is the repr (quotes, escapes); the message is the argument."""
    message = 'module name can\'t contain ".", got: a.b'
    assert [i.text for i in extract.from_exception(KeyError(message)).items] == [message]

    class Lookup(KeyError):
        pass

    class Shown(KeyError):
        def __str__(self) -> str:
            return "own text"

    assert extract.from_exception(Lookup(message)).items[0].text == message
    assert extract.from_exception(Shown(message)).items[0].text == "own text"
    assert extract.from_exception(KeyError("a", "b")).items[0].text == str(KeyError("a", "b"))


_ONE_LINE = st.text(
    alphabet=st.characters(blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=80
) | st.sampled_from([
    "unsupported dtype I64 for op matmul", "errhint: a note of ours", "Traceback (most recent call last):",
    '"""', "During handling of the above exception, another exception occurred:", "  padded  ",
    "ValueError: shape mismatch", "Exception Group Traceback (most recent call last):",
])


@settings(max_examples=300, deadline=None)
@given(_ONE_LINE, st.sampled_from(["ValueError", "pyo3_runtime.PanicException", "candle.SomeError", "KeyError"]))
def test_one_line_text_reads_as_the_general_scanner_reads_it(line: str, exc_type: str) -> None:
    # a trailing blank line sends the same text through the traceback scanner, which trims it
    assert extract.from_text(line, exc_type) == extract.from_text(line + "\n\n", exc_type)
