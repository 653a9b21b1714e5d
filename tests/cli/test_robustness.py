"""The CLI under conditions of its environment: never a Python traceback.

Non-UTF-8 output, closed or full stdout, unreadable files, Ctrl-C; ``run -m`` from the
current directory; ``validate`` on every problem; ``search`` taking words literally;
plurals; record ids kept whole in narrow tables. Real interpreters where the condition
needs one (an encoding, a closed descriptor, a signal).
"""

from __future__ import annotations

import builtins
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict

import pytest
from cli_support import CANDLE_DTYPE, DTYPE_ID, child_env, cli, cli_data, run_module, shipped_cli  # noqa: F401

ERRHINT = str(Path(sys.executable).with_name("errhint"))


def _shipped(**extra: str) -> Dict[str, str]:
    return child_env(shipped=True, **extra)


@pytest.mark.parametrize("argv", [["explain", CANDLE_DTYPE], ["explain", "--full", CANDLE_DTYPE]])
def test_ascii_stdout_gets_ascii_marks(argv: list) -> None:
    proc = run_module(*argv, env=_shipped(PYTHONIOENCODING="ascii"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and "errhint show" in proc.stdout
    assert " - https://github.com/" in proc.stdout  # the separator dot became a dash
    utf8 = run_module(*argv, env=_shipped())
    assert "\u00b7" in utf8.stdout


def test_ascii_stdout_scan_text_and_json(tmp_path: Path) -> None:
    log = tmp_path / "a.log"
    log.write_text(f"ValueError: {CANDLE_DTYPE}\n", encoding="utf-8")
    text = run_module("scan", str(log), env=_shipped(PYTHONIOENCODING="ascii"))
    assert text.returncode == 0 and text.stderr == "" and "1 error with hints in 1 file" in text.stdout
    doc = run_module("scan", "--json", str(log), env=_shipped(PYTHONIOENCODING="ascii"))
    assert doc.returncode == 0 and doc.stdout.isascii()
    assert json.loads(doc.stdout)["count"] == 1


def test_closed_stdout_is_one_line_and_exit_1() -> None:
    proc = subprocess.run(
        f"{sys.executable} -m errhint explain '{CANDLE_DTYPE}' >&-",
        shell=True, capture_output=True, text=True, env=_shipped(), cwd="/",
    )
    assert proc.returncode == 1
    assert proc.stderr == "errhint explain: cannot write output: standard output is closed\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_stdout_is_one_line_and_exit_1() -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "errhint", "explain", CANDLE_DTYPE],
            stdout=full, stderr=subprocess.PIPE, text=True, env=_shipped(), cwd="/",
        )
    assert proc.returncode == 1
    assert proc.stderr == "errhint explain: cannot write output: No space left on device\n"


def test_a_file_that_cannot_be_read_is_one_line_and_exit_2(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.log"
    good.write_text(f"ValueError: {CANDLE_DTYPE}\n", encoding="utf-8")
    res = cli("scan", "--data", str(cli_data), str(good), str(tmp_path))  # a folder is not readable as a log
    assert res.code == 2 and res.out == ""  # checked before anything is printed
    assert res.err == f"errhint scan: cannot read {tmp_path}: Is a directory\n"


def _wait_until_reading_stdin(pid: int, seconds: float = 60.0) -> None:
    """Return once process ``pid`` is blocked reading its stdin (Linux: ``/proc/<pid>/syscall``
    shows read(0, ...)), so a signal meets the CLI's loop and not the interpreter's start-up,
    however loaded the machine; elsewhere wait 3 s."""
    syscall = Path(f"/proc/{pid}/syscall")
    if not syscall.exists():
        time.sleep(3)
        return
    read_numbers = {"0", "63"}  # read() on x86_64 and on aarch64
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            fields = syscall.read_text().split()
        except OSError:
            fields = []
        if len(fields) > 1 and fields[0] in read_numbers and fields[1] == "0x0":
            time.sleep(0.2)
            if syscall.read_text().split()[:2] == fields[:2]:  # still there: not a passing read
                return
        time.sleep(0.05)


def test_ctrl_c_exits_130_without_a_traceback() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "errhint", "scan", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_shipped(), cwd="/",
    )
    assert proc.stdin is not None
    proc.stdin.write(b"INFO step 1\n")
    proc.stdin.flush()
    _wait_until_reading_stdin(proc.pid)  # the scan is waiting for more of the pipe
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert b"Traceback" not in err


@pytest.mark.skipif(not os.path.exists(ERRHINT), reason="the errhint console script is not installed")
def test_run_m_finds_a_package_in_the_current_directory(tmp_path: Path) -> None:
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text("import sys\nprint('ran', __name__, sys.argv[1:])\n")
    proc = subprocess.run([ERRHINT, "run", "-m", "mypkg.train", "--lr", "3"], capture_output=True, text=True,
                          env=_shipped(), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ran __main__ ['--lr', '3']\n"


# ---------------------------------------------------------------- validate


def test_validate_reports_every_bad_line_in_every_file_of_a_tree(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "records").mkdir(parents=True)
    (root / "records" / "a.jsonl").write_text("{x\n[1]\n" + cli_data.read_text(encoding="utf-8") + "nope\n{y\n{z\n")
    (root / "b.jsonl").write_text(cli_data.read_text(encoding="utf-8"))  # the same ids again: duplicates
    res = cli("validate", "--json", str(root))
    doc = res.json()
    assert res.code == 1 and doc["ok"] is False
    assert doc["files"] == [str(root / "b.jsonl"), str(root / "records" / "a.jsonl")]
    where = [(Path(p["file"]).name, p["line"], p["field"]) for p in doc["problems"]]
    assert [w for w in where if w[0] == "a.jsonl"] == [  # every line, in order: 5 not JSON/objects, 3 duplicates
        ("a.jsonl", 1, None), ("a.jsonl", 2, None), ("a.jsonl", 3, "id"), ("a.jsonl", 4, "id"), ("a.jsonl", 5, "id"),
        ("a.jsonl", 6, None), ("a.jsonl", 7, None), ("a.jsonl", 8, None),
    ]
    assert not [w for w in where if w[0] == "b.jsonl"]


def test_validate_the_shipped_folder_checks_its_records(shipped_cli: Callable[..., Any]) -> None:
    import errhint_data

    res = shipped_cli("validate", "--json", os.path.dirname(errhint_data.__file__))
    doc = res.json()
    assert res.code == 0 and doc["ok"] is True
    assert doc["files"] and doc["records"] > 1000


def test_validate_an_unreadable_file_is_a_problem_not_a_traceback(cli: Callable[..., Any], cli_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = builtins.open

    def guarded(file: Any, *a: Any, **kw: Any) -> Any:
        if str(file) == str(cli_data):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *a, **kw)

    monkeypatch.setattr(builtins, "open", guarded)
    res = cli("validate", str(cli_data))
    assert res.code == 1 and f"{cli_data}: cannot read: Permission denied" in res.out


def test_validate_a_folder_without_records_is_a_problem(cli: Callable[..., Any], tmp_path: Path) -> None:
    res = cli("validate", str(tmp_path))
    assert res.code == 1 and "no *.jsonl file" in res.out


# ---------------------------------------------------------------- search and plurals


def test_search_takes_words_literally_and_regex_only_with_the_flag(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("search", "--data", str(cli_data), "(a+)+$")
    assert res.code == 1 and "--regex" in res.err
    start = time.perf_counter()
    rx = cli("search", "--data", str(cli_data), "--json", "--regex", "(a+)+$")
    assert time.perf_counter() - start < 30
    assert rx.code in (0, 1) and json.loads(rx.out)["query"] == "(a+)+$"  # a legal pattern, bounded in time
    bad = cli("search", "--data", str(cli_data), "--regex", "(unclosed")
    assert bad.code == 2 and "not a regular expression" in bad.err
    one = cli("search", "--data", str(cli_data), "--regex", r"unsupported dtype \{0")
    assert one.code == 0 and "1 record; details" in one.out and DTYPE_ID in one.out


def test_one_hint_is_singular(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    log = tmp_path / "one.log"
    log.write_text(f"ValueError: {CANDLE_DTYPE}\n", encoding="utf-8")
    out = cli("scan", "--data", str(cli_data), "--limit", "1", str(log)).out
    assert "1 error with hints in 1 file (1 distinct record, 1 hint)" in out


def test_record_ids_are_never_wrapped_in_narrow_tables(tmp_path: Path, cli_data: Path) -> None:
    pytest.importorskip("rich")
    env = child_env(COLUMNS="60", FORCE_COLOR="1")
    proc = run_module("search", "--data", str(cli_data), "--color", "always", "shape", env=env)
    assert proc.returncode == 0
    assert "c11000000000b1a5" in proc.stdout  # the id in one piece on its line
