"""``errhint demo``: real-shaped errors raised in fresh interpreters with errhint installed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import BURN_MARK, BURN_REPORT, CANDLE_DTYPE, DTYPE_MARK, child_env, cli_data, run_module  # noqa: F401

from errhint.cli import demo


def test_stand_ins_raise_exactly_the_bindings_text(tmp_path: Path) -> None:
    """Run each stand-in without errhint and compare the exception with the real text."""
    for source, expected_type, expected_text in (
        (demo.CANDLE_STANDIN, "ValueError", CANDLE_DTYPE),
        (demo.BURN_STANDIN, "pyo3_runtime.PanicException", BURN_REPORT),
    ):
        body = source.replace(demo._PRELUDE, "")
        assert body != source  # the prelude installs errhint; removed here
        script = tmp_path / "standin.py"
        script.write_text(
            "import json, sys\ntry:\n    exec(compile(" + repr(body) + ", 'demo', 'exec'), {'__name__': '__main__'})\n"
            "except BaseException as e:\n"
            "    t = type(e)\n"
            "    print(json.dumps([f'{t.__module__}.{t.__qualname__}'.replace('builtins.', ''), str(e)]))\n",
            encoding="utf-8",
        )
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=child_env())
        assert json.loads(proc.stdout) == [expected_type, expected_text]


def test_simulated_demo_shows_both_hints_and_exits_0(cli_data: Path) -> None:
    proc = run_module("demo", "--simulate", env=child_env(ERRHINT_DATA=str(cli_data)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "stand-in raising the exact text of candle-nn 0.4.2" in out
    assert "Traceback (most recent call last):" in out
    assert "ValueError: " + CANDLE_DTYPE in out
    assert "pyo3_runtime.PanicException: === Tensor Operation Error ===" in out
    if sys.version_info >= (3, 11):
        assert "errhint: unsupported dtype I64 for op matmul (huggingface/candle)" in out
    assert f"Cast the I64 tensor to F32 before matmul ({DTYPE_MARK})" in out
    assert BURN_MARK in out
    assert out.rstrip().splitlines()[-2] == "errhint demo: hints shown for 2 of 2 errors."
    assert "\x1b[" not in out


def test_demo_json_shape(cli_data: Path) -> None:
    proc = run_module("demo", "--simulate", "--only", "burn", "--json", env=child_env(ERRHINT_DATA=str(cli_data)))
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0
    assert set(doc) == {"ok", "scenarios"} and doc["ok"] is True
    (sc,) = doc["scenarios"]
    assert set(sc) == {"name", "title", "real", "script", "exitCode", "hinted", "output"}
    assert sc["name"] == "burn" and sc["real"] is False and sc["hinted"] is True and sc["exitCode"] == 1
    assert BURN_MARK in sc["output"]


def test_demo_exits_1_when_no_hint_is_shown(tmp_path: Path) -> None:
    """Shipped data hidden, the only user dataset broken: no hint (a warning is not one), exit 1."""
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    proc = run_module("demo", "--simulate", "--only", "candle", env=child_env(ERRHINT_DATA=str(broken)))
    assert proc.returncode == 1
    assert "ValueError: " + CANDLE_DTYPE in proc.stdout  # the original traceback is intact
    assert f"errhint: warning: {broken}:1: not valid JSON" in proc.stdout
    assert "hints shown for 0 of 1 error." in proc.stdout


def test_demo_child_inherits_verbosity_and_colour(cli_data: Path) -> None:
    env = child_env(ERRHINT_DATA=str(cli_data), ERRHINT="0")
    proc = run_module("demo", "--simulate", "--only", "candle", "--full", "--color", "always", env=env)
    assert proc.returncode == 0  # ERRHINT=0 in the user's shell does not silence the demo
    assert "No kernel exists for this dtype" in proc.stdout  # --full reached the child
    assert "\x1b[" in proc.stdout


@pytest.mark.skipif(importlib.util.find_spec("candle") is None, reason="candle-nn not installed")
@pytest.mark.parametrize("backtrace", ["0", "1"])
def test_demo_with_the_real_candle_binding(cli_data: Path, backtrace: str) -> None:
    env = child_env(ERRHINT_DATA=str(cli_data), RUST_BACKTRACE=backtrace)
    doc = json.loads(run_module("demo", "--only", "candle", "--json", env=env).stdout)
    (sc,) = doc["scenarios"]
    assert sc["real"] is True and sc["hinted"] is True
    assert ("WithBacktrace { inner: " + CANDLE_DTYPE in sc["output"]) == (backtrace == "1")
    assert f"Cast the I64 tensor to F32 before matmul ({DTYPE_MARK})" in sc["output"]


@pytest.mark.skipif(importlib.util.find_spec("pyburn") is None, reason="pyburn not installed")
def test_demo_with_the_real_burn_binding(cli_data: Path) -> None:
    env = child_env(ERRHINT_DATA=str(cli_data), RUST_BACKTRACE="0")
    doc = json.loads(run_module("demo", "--only", "burn", "--json", env=env).stdout)
    (sc,) = doc["scenarios"]
    assert sc["real"] is True and sc["hinted"] is True
    assert "pyo3_runtime.PanicException: " + BURN_REPORT.split("\n")[0] in sc["output"]
    assert BURN_MARK in sc["output"]
