"""Log splitting for ``errhint scan``: where each error's text starts and ends in a noisy log."""

from __future__ import annotations

from typing import List

from cli_support import BURN_REPORT, CANDLE_DTYPE_BT

from errhint.cli._logsplit import Block, clean_lines, split

PANIC_HEADER = (
    "thread '<unnamed>' panicked at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/"
    "burn-tensor-0.18.0/src/tensor/api/numeric.rs:47:9:"
)


def blocks(text: str) -> List[Block]:
    return list(split(clean_lines(text)))


def test_traceback_takes_the_exception_line_and_its_indented_continuation() -> None:
    log = (
        "INFO start\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 5, in <module>\n'
        "    c = a.add(b)\n"
        "        ^^^^^^^^\n"
        "pyo3_runtime.PanicException: " + BURN_REPORT + "\n"
        "INFO next epoch\n"
    )
    got = blocks(log)
    tb = [b for b in got if b.kind == "traceback"]
    assert len(tb) == 1
    assert tb[0].line == 2
    assert tb[0].end == 2 + 3 + 5  # header, 3 frame lines, 5 report lines
    assert tb[0].error_type == "pyo3_runtime.PanicException"
    assert tb[0].exc_type is None  # the engine reads the type (and the frames) from the text
    assert tb[0].text.startswith("Traceback (most recent call last):")
    assert "2. The provided tensors" in tb[0].text
    assert tb[0].message == BURN_REPORT.rstrip("\n")
    assert [b.text for b in got if b.kind == "line"] == ["INFO start", "INFO next epoch"]


def test_multiline_debug_value_in_a_traceback_runs_to_its_closing_bracket() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "m.py", line 1, in <module>\n'
        "ValueError: WithBacktrace {\n"
        '    inner: UnsupportedDTypeForOp(I64, "matmul"),\n'
        "    backtrace: Backtrace [\n"
        '        { fn: "candle_core::tensor::Tensor::matmul" },\n'
        "    ],\n"
        "}\n"
        "done\n"
    )
    got = blocks(log)
    assert got[0].kind == "traceback" and got[0].end == 8
    assert got[0].text.rstrip().endswith("}")
    assert got[1].text == "done"


def test_new_style_panic_message_and_backtrace() -> None:
    log = (
        PANIC_HEADER + "\n" + BURN_REPORT + "\n"
        "stack backtrace:\n"
        "   0: __rustc::rust_begin_unwind\n"
        "             at /rustc/abc/library/std/src/panicking.rs:697:5\n"
        "  10: __rust_try\n"
        "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n"
        "after\n"
    )
    got = blocks(log)
    assert got[0].kind == "panic" and got[0].exc_type == "PanicException"
    assert got[0].text.startswith("=== Tensor Operation Error ===")
    assert "stack backtrace" not in got[0].text and "panicked" not in got[0].text
    assert [b.text for b in got[1:]] == ["after"]  # backtrace frames and notes are not blocks


def test_old_style_panic_keeps_only_the_message() -> None:
    got = blocks("thread 'main' panicked at 'not implemented: conv3d', src/lib.rs:10:5\n")
    assert [(b.kind, b.text) for b in got] == [("panic", "not implemented: conv3d")]


def test_standalone_burn_report_and_exception_prefix() -> None:
    log = "ERROR train: pyo3_runtime.PanicException: " + BURN_REPORT + "\nok\n"
    got = blocks(log)
    assert got[0].kind == "burn-report"
    assert got[0].exc_type == "pyo3_runtime.PanicException"
    assert got[0].text.startswith("=== Tensor") and got[0].end == 5


def test_multiline_candle_debug_value_in_a_log_line() -> None:
    log = "2024-01-01 ERROR step failed: WithBacktrace {\n    inner: Msg(\"x { y\"),\n}\nnext\n"
    got = blocks(log)
    assert got[0].kind == "debug" and got[0].end == 3
    assert got[0].text.startswith("WithBacktrace {")
    assert got[1].text == "next"


def test_pytest_e_lines_lose_their_prefix() -> None:
    log = (
        "    def test_add():\n"
        ">       a.add(b)\n"
        "E       pyo3_runtime.PanicException: === Tensor Operation Error ===\n"
        "E         Operation: 'Add'\n"
        "E         Reason:\n"
        "\n"
    )
    got = [b for b in blocks(log) if b.kind == "pytest"]
    assert len(got) == 1
    assert got[0].error_type == "pyo3_runtime.PanicException"
    assert got[0].text.splitlines()[1] == "  Operation: 'Add'"
    assert got[0].message.startswith("=== Tensor Operation Error ===")


def test_errhint_notes_and_chain_separators_are_skipped() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "m.py", line 1, in <module>\n'
        f"ValueError: {CANDLE_DTYPE_BT}\n"
        "errhint: unsupported dtype I64 for op matmul (huggingface/candle)\n"
        "  fix: cast\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
    )
    got = blocks(log)
    assert [b.kind for b in got] == ["traceback"]
    assert "errhint:" not in got[0].text


def test_colour_codes_and_carriage_returns_are_removed() -> None:
    assert clean_lines("\x1b[31mValueError: x\x1b[0m\r\nok\r\n") == ["ValueError: x", "ok"]


def test_excerpt_is_one_bounded_line_with_the_type() -> None:
    b = Block(1, 3, "panic", "=== Tensor Operation Error ===\n  Operation: 'Add'", "PanicException")
    assert b.excerpt == "PanicException: === Tensor Operation Error ==="
    long = Block(1, 1, "line", "x" * 500)
    assert len(long.excerpt) == 160 and long.excerpt.endswith("...")


def test_every_line_belongs_to_at_most_one_block() -> None:
    log = "a\n" + PANIC_HEADER + "\n" + BURN_REPORT + "\nb\nTraceback (most recent call last):\n  File \"x\"\nKeyError: 'k'\nc\n"
    got = blocks(log)
    covered = [n for b in got for n in range(b.line, b.end + 1)]
    assert len(covered) == len(set(covered))
    assert [b.kind for b in got] == ["line", "panic", "line", "traceback", "line"]
