"""The pytest plugin: inert when autoloaded, on with ``-p errhint``, ``--errhint`` or ``errhint = true``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import List, Optional

import pytest

from hooks_support import CANDLE_TEXT, MARK, base_env, hint_data  # noqa: F401

pytestmark = pytest.mark.slow  # every test runs pytest in a child process


def entry_point_installed() -> bool:
    try:
        from importlib.metadata import entry_points

        eps = entry_points()
        group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
        return any(ep.value == "errhint.hooks.pytest_plugin" for ep in group)
    except Exception:
        return False


needs_entry_point = pytest.mark.skipif(
    not entry_point_installed(), reason="errhint is not pip-installed here, so pytest has no pytest11 entry point"
)

TESTS = f"""
MSG = {CANDLE_TEXT!r}

def test_candle_error():
    raise ValueError(MSG)

def test_plain_failure():
    assert 1 == 2

def test_passes():
    pass
"""


def run_pytest(tmp_path: Path, data: Path, args: List[str], ini: Optional[str] = None,
               env: Optional[dict] = None) -> subprocess.CompletedProcess:
    (tmp_path / "test_model.py").write_text(TESTS, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n" + (ini or ""), encoding="utf-8")
    extra = {"ERRHINT_DATA": str(data)}
    extra.update(env or {})
    if not entry_point_installed():  # load the module without opting in through -p
        extra["PYTEST_PLUGINS"] = "errhint.hooks.pytest_plugin"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args, "test_model.py"],
        capture_output=True, text=True, cwd=str(tmp_path), env=base_env(**extra), timeout=120,
    )


def test_inert_unless_enabled(tmp_path: Path, hint_data: Path) -> None:
    proc = run_pytest(tmp_path, hint_data, [])
    assert "2 failed, 1 passed" in proc.stdout, proc.stdout + proc.stderr
    assert MARK not in proc.stdout


@needs_entry_point
def test_enabled_with_p_errhint(tmp_path: Path, hint_data: Path) -> None:
    proc = run_pytest(tmp_path, hint_data, ["-p", "errhint"])
    assert "2 failed, 1 passed" in proc.stdout
    assert proc.stdout.count(MARK) == 1, proc.stdout


@pytest.mark.parametrize("tb", ["auto", "short", "long", "native", "line"])
def test_enabled_with_flag_in_every_tb_mode(tmp_path: Path, hint_data: Path, tb: str) -> None:
    if tb == "line" and sys.version_info < (3, 11):
        pytest.skip("--tb=line shows one line per failure and no sections; notes only on 3.11+")
    proc = run_pytest(tmp_path, hint_data, ["--errhint", f"--tb={tb}"])
    assert "2 failed, 1 passed" in proc.stdout
    assert proc.stdout.count(MARK) >= 1, proc.stdout
    if tb != "line":
        assert proc.stdout.count(MARK) == 1, proc.stdout


def test_enabled_with_ini(tmp_path: Path, hint_data: Path) -> None:
    proc = run_pytest(tmp_path, hint_data, [], ini="errhint = true\n")
    assert proc.stdout.count(MARK) == 1, proc.stdout


def test_no_errhint_wins_over_ini(tmp_path: Path, hint_data: Path) -> None:
    proc = run_pytest(tmp_path, hint_data, ["--no-errhint"], ini="errhint = true\n")
    assert MARK not in proc.stdout and "2 failed, 1 passed" in proc.stdout


def test_errhint_0_wins(tmp_path: Path, hint_data: Path) -> None:
    proc = run_pytest(tmp_path, hint_data, ["--errhint"], env={"ERRHINT": "0"})
    assert MARK not in proc.stdout


def test_the_hint_is_under_the_failing_test(tmp_path: Path, hint_data: Path) -> None:
    proc = run_pytest(tmp_path, hint_data, ["--errhint", "--tb=short"])
    out = proc.stdout
    start = out.index("test_candle_error")
    end = out.index("test_plain_failure", start)
    assert MARK in out[start:end], out


def test_engine_failure_leaves_report_intact(tmp_path: Path, hint_data: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        "import errhint.engine as _e\n"
        "def _boom(*a, **k):\n"
        "    raise RuntimeError('engine exploded')\n"
        "_e.lookup = _boom\n",
        encoding="utf-8",
    )
    on = run_pytest(tmp_path, hint_data, ["--errhint"])
    off = run_pytest(tmp_path, hint_data, [])
    assert on.returncode == off.returncode == 1
    strip = lambda s: [ln for ln in s.splitlines() if " in " not in ln or "failed" not in ln]  # noqa: E731
    assert strip(on.stdout) == strip(off.stdout), on.stdout
    assert on.stderr.count("errhint: internal error: pytest: RuntimeError: engine exploded") == 1
