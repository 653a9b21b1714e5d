"""``errhint scan``: every known error in a noisy log, each with its hint, then a count per record."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from cli_support import (  # noqa: F401 (fixtures)
    BURN_ID,
    BURN_MARK,
    BURN_REPORT,
    CANDLE_DTYPE,
    CANDLE_DTYPE_BT,
    DTYPE_ID,
    DTYPE_MARK,
    SHAPE_ID,
    SHAPE_MARK,
    cli,
    cli_data,
)

PANIC_HEADER = (
    "thread '<unnamed>' panicked at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/"
    "burn-tensor-0.18.0/src/tensor/api/numeric.rs:47:9:"
)

# A training log: noise, a burn panic echoed by its PanicException traceback, a candle
# traceback with a backtrace, a multi-line Debug value, a logged message, a pytest report.
LOG = (
    "2024-05-01 10:00:00 INFO epoch 1 loss=0.31\n"  # 1
    + PANIC_HEADER + "\n"  # 2
    + BURN_REPORT  # 3-7
    + "\n"  # 8
    + "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"  # 9
    + "Traceback (most recent call last):\n"  # 10
    + '  File "train.py", line 40, in <module>\n'  # 11
    + "    c = a.add(b)\n"  # 12
    + "pyo3_runtime.PanicException: " + BURN_REPORT  # 13-17
    + "\n"  # 18
    + "2024-05-01 10:00:05 INFO retrying with candle\n"  # 19
    + "Traceback (most recent call last):\n"  # 20
    + '  File "infer.py", line 7, in <module>\n'  # 21
    + "    y = x.matmul(x)\n"  # 22
    + f"ValueError: {CANDLE_DTYPE_BT}\n"  # 23
    + "2024-05-01 10:00:06 ERROR step failed: WithBacktrace {\n"  # 24
    + '    inner: ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [2, 3], op: "matmul" },\n'  # 25
    + "    backtrace: <disabled>,\n"  # 26
    + "}\n"  # 27
    + "2024-05-01 10:00:07 WARNING candle said: unsupported dtype U8 for op conv2d\n"  # 28
    + "E       ValueError: " + CANDLE_DTYPE + "\n"  # 29
    + "2024-05-01 10:00:08 INFO KeyError: 'missing' was handled\n"  # 30
)


def write_log(tmp_path: Path, text: str = LOG, name: str = "train.log") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_finds_every_error_once_with_its_line(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    log = write_log(tmp_path)
    res = cli("scan", "--data", str(cli_data), "--json", str(log))
    assert res.code == 0
    doc = res.json()
    found = [(f["line"], f["kind"], f["matches"][0]["id"]) for f in doc["findings"]]
    assert found == [
        (2, "panic", BURN_ID),  # the PanicException traceback at line 10 repeats it: folded
        (20, "traceback", DTYPE_ID),
        (24, "debug", SHAPE_ID),
        (28, "line", DTYPE_ID),
        (29, "pytest", DTYPE_ID),
    ]
    assert doc["count"] == 5
    assert doc["findings"][1]["endLine"] == 23 and doc["findings"][1]["excType"] == "ValueError"


def test_summary_counts_per_record(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    doc = cli("scan", "--data", str(cli_data), "--json", str(write_log(tmp_path))).json()
    assert [(r["id"], r["count"]) for r in doc["summary"]] == [(DTYPE_ID, 3), (SHAPE_ID, 1), (BURN_ID, 1)]  # ties: by repo, then id
    assert doc["summary"][0]["errorMessage"] == "unsupported dtype {0:?} for op {1}"
    assert doc["summary"][0]["repo"] == "huggingface/candle"


def test_json_shape(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    log = write_log(tmp_path)
    doc = cli("scan", "--data", str(cli_data), "--json", str(log)).json()
    assert set(doc) == {"files", "findings", "summary", "count"}
    assert doc["files"] == [{"path": str(log), "lines": 30, "findings": 5}]
    f = doc["findings"][0]
    assert set(f) == {"file", "line", "endLine", "kind", "excType", "excerpt", "matches"}
    assert f["file"] == str(log) and f["excType"] == "PanicException"
    assert f["excerpt"] == "PanicException: === Tensor Operation Error ==="
    assert set(doc["summary"][0]) == {"id", "repo", "errorMessage", "count"}


def test_text_output_has_hints_locations_and_summary(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    log = write_log(tmp_path)
    out = cli("scan", "--data", str(cli_data), str(log)).out
    assert f"{log}:2: PanicException: === Tensor Operation Error ===" in out
    assert f"{log}:20: ValueError: WithBacktrace" in out
    for mark in (BURN_MARK, DTYPE_MARK, SHAPE_MARK):
        assert mark in out
    assert "Cast the U8 tensor to F32 before conv2d" in out  # captures of that very line
    assert "5 errors with hints in 1 file (3 distinct records, 5 hints)" in out
    summary = cli("scan", "--data", str(cli_data), "--summary-only", str(log)).out
    assert DTYPE_MARK not in summary and summary.splitlines()[0].startswith("5 errors")


def test_several_files_and_stdin(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    a = write_log(tmp_path, f"ValueError: {CANDLE_DTYPE}\n", "a.log")
    b = write_log(tmp_path, "all good\n", "b.log")
    doc = cli("scan", "--data", str(cli_data), "--json", str(a), str(b), "-", stdin=f"x: {CANDLE_DTYPE}\n").json()
    assert [(f["path"], f["findings"]) for f in doc["files"]] == [(str(a), 1), (str(b), 0), ("-", 1)]
    assert doc["summary"] == [{"id": DTYPE_ID, "repo": "huggingface/candle", "errorMessage": "unsupported dtype {0:?} for op {1}", "count": 2}]


def test_nothing_found_exits_1(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    log = write_log(tmp_path, "Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'w'\nok\n")
    res = cli("scan", "--data", str(cli_data), str(log))
    assert res.code == 1 and "No known candle or burn errors in 1 file." in res.out
    assert cli("scan", "--data", str(cli_data), "--json", str(log)).json()["findings"] == []


def test_unreadable_file_is_a_usage_error(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    res = cli("scan", "--data", str(cli_data), str(tmp_path / "missing.log"))
    assert res.code == 2 and "cannot read" in res.err


def test_binary_noise_and_colour_codes_do_not_break_the_scan(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    path = tmp_path / "noisy.log"
    path.write_bytes(b"\xff\xfe\x00garbage\n\x1b[31mValueError: " + CANDLE_DTYPE.encode() + b"\x1b[0m\r\n")
    doc = cli("scan", "--data", str(cli_data), "--json", str(path)).json()
    assert [(f["line"], f["matches"][0]["id"]) for f in doc["findings"]] == [(2, DTYPE_ID)]
