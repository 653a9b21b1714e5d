"""``errhint run``: a script (or ``-m`` module) with errhint installed, in a real interpreter."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_support import CANDLE_DTYPE, DTYPE_ID, DTYPE_MARK, child_env, cli_data, run_module  # noqa: F401

SCRIPT = f"""
import sys
print("args", sys.argv[1:])


def forward(x):
    raise ValueError({CANDLE_DTYPE!r})


forward(1)
"""


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def test_uncaught_error_shows_the_traceback_with_the_hint(script: Path, cli_data: Path) -> None:
    proc = run_module("run", "--data", str(cli_data), str(script), "--lr", "3")
    assert proc.returncode == 1
    assert proc.stdout == "args ['--lr', '3']\n"
    err = proc.stderr
    assert err.startswith("Traceback (most recent call last):\n")
    assert f'File "{script}", line 10, in <module>' in err
    assert "runpy" not in err and "errhint/cli" not in err  # the runner's own frames are hidden
    assert "ValueError: " + CANDLE_DTYPE in err
    assert f"Cast the I64 tensor to F32 before matmul ({DTYPE_MARK})" in err


def test_full_hints(script: Path, cli_data: Path) -> None:
    proc = run_module("run", "--full", "--data", str(cli_data), str(script))
    assert "No kernel exists for this dtype" in proc.stderr


@pytest.mark.parametrize(
    "body, code, stderr",
    [("pass", 0, ""), ("raise SystemExit(3)", 3, ""), ("import sys; sys.exit('bye')", 1, "bye\n")],
)
def test_exit_status_is_the_programs(tmp_path: Path, body: str, code: int, stderr: str) -> None:
    path = tmp_path / "prog.py"
    path.write_text(body + "\n", encoding="utf-8")
    proc = run_module("run", str(path))
    assert (proc.returncode, proc.stderr) == (code, stderr)


def test_module_mode(tmp_path: Path, cli_data: Path) -> None:
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "job.py").write_text(SCRIPT, encoding="utf-8")
    env = child_env(PYTHONPATH=str(tmp_path) + ":" + child_env()["PYTHONPATH"])
    proc = run_module("run", "--data", str(cli_data), "-m", "mypkg.job", "x", env=env)
    assert proc.returncode == 1
    assert proc.stdout == "args ['x']\n"
    assert DTYPE_MARK in proc.stderr


def test_children_are_told_to_install(tmp_path: Path) -> None:
    path = tmp_path / "env.py"
    path.write_text("import os; print(os.environ.get('ERRHINT_INSTALL'))\n", encoding="utf-8")
    assert run_module("run", str(path)).stdout == "1\n"


def test_json_describes_how_the_program_ended(script: Path, cli_data: Path, tmp_path: Path) -> None:
    proc = run_module("run", "--json", "--data", str(cli_data), str(script))
    assert proc.returncode == 1
    printed, _, document = proc.stdout.partition("\n")
    assert printed == "args []"
    doc = json.loads(document)
    assert set(doc) == {"exitCode", "exception", "matches"}
    assert doc["exitCode"] == 1
    assert doc["exception"] == {"type": "ValueError", "message": CANDLE_DTYPE}
    assert doc["matches"][0]["id"] == DTYPE_ID
    assert "Traceback" in proc.stderr  # the traceback is still printed as usual

    ok = tmp_path / "ok.py"
    ok.write_text("raise SystemExit(4)\n", encoding="utf-8")
    proc = run_module("run", "--json", str(ok))
    assert proc.returncode == 4
    assert json.loads(proc.stdout) == {"exitCode": 4, "exception": None, "matches": []}


@pytest.mark.skipif(sys.version_info < (3, 11), reason="notes are printed by the interpreter from 3.11")
def test_errhint_disabled_by_environment(script: Path, cli_data: Path) -> None:
    proc = run_module("run", "--data", str(cli_data), str(script), env=child_env(ERRHINT="0"))
    assert proc.returncode == 1 and "ValueError" in proc.stderr and DTYPE_MARK not in proc.stderr
