"""IPython/Jupyter: ``%load_ext errhint`` and ``install()`` inside IPython show the hints.

Cells never reach ``sys.excepthook``; errhint chains the shell's ``showtraceback``. IPython
is optional: these tests skip without it, and errhint never imports it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hooks_support import MARK, PRELUDE, Runner, added_lines, base_env, hint_data, run  # noqa: F401

pytest.importorskip("IPython", reason="IPython is an optional dependency (pip install errhint[ipython])")

SHELL = """
import os
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance(colors="nocolor")
shell.user_ns["MSG"] = MSG
def cell(src):
    shell.run_cell(src)
    sys.stdout.flush()
"""


@pytest.fixture
def ipy_env(tmp_path: Path) -> dict:
    home = tmp_path / "home"
    (home / ".ipython").mkdir(parents=True)
    return {"HOME": str(home), "IPYTHONDIR": str(home / ".ipython")}


def test_load_ext_adds_hint_to_cell_traceback(run: Runner, ipy_env: dict) -> None:
    code = SHELL + """
if os.environ.get("WITH_EXT") == "1":
    cell("%load_ext errhint")
cell("def forward():\\n    raise ValueError(MSG)\\nforward()")
"""
    on = run(code, env={**ipy_env, "WITH_EXT": "1"})
    off = run(code, env=ipy_env)
    assert on.returncode == off.returncode == 0, on.stderr
    block = added_lines(on.stdout, off.stdout)
    assert block and block[0].startswith("errhint:") and "\n".join(block).count(MARK) == 1, on.stdout


def test_install_inside_ipython_terminal(tmp_path: Path, hint_data: Path, ipy_env: dict) -> None:
    """``errhint.install()`` typed into a terminal IPython hooks IPython automatically."""
    lines = [
        "import errhint",
        "errhint.install()",
        PRELUDE.splitlines()[1],  # MSG = ...
        "raise ValueError(MSG)",
        "",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "IPython", "--simple-prompt", "--no-banner", "--colors=nocolor"],
        input="\n".join(lines), capture_output=True, text=True, timeout=120,
        env=base_env(ERRHINT_DATA=str(hint_data), **ipy_env), cwd=str(tmp_path),
    )
    assert "ValueError: WithBacktrace" in proc.stdout, proc.stdout + proc.stderr
    assert proc.stdout.count(MARK) == 1
    assert proc.stdout.index("ValueError: WithBacktrace") < proc.stdout.index(MARK)


def test_unload_ext_restores_the_shell(run: Runner, ipy_env: dict) -> None:
    proc = run(SHELL + """
cell("%load_ext errhint")
print("patched:", "showtraceback" in vars(shell))
cell("%unload_ext errhint")
print("patched:", "showtraceback" in vars(shell))
cell("raise ValueError(MSG)")
""", env=ipy_env)
    assert "patched: True" in proc.stdout and proc.stdout.count("patched: False") == 1
    assert MARK not in proc.stdout and "ValueError: WithBacktrace" in proc.stdout


def test_uninstall_removes_the_ipython_patch(run: Runner, ipy_env: dict) -> None:
    proc = run(SHELL + """
cell("import errhint; print(errhint.install())")
cell("errhint.uninstall()")
print("patched:", "showtraceback" in vars(shell))
cell("raise ValueError(MSG)")
""", env=ipy_env)
    assert "'ipython'" in proc.stdout and "patched: False" in proc.stdout
    assert MARK not in proc.stdout


def test_chains_an_existing_showtraceback_patch(run: Runner, ipy_env: dict) -> None:
    """A tool that patched ``shell.showtraceback`` first (rich does) keeps working and sees the notes."""
    proc = run(SHELL + """
original = shell.showtraceback
def other_tool(*args, **kwargs):
    print("OTHER TOOL", getattr(sys.exc_info()[1], "__notes__", None) is not None)
    return original(*args, **kwargs)
shell.showtraceback = other_tool
cell("%load_ext errhint")
cell("raise ValueError(MSG)")
cell("%unload_ext errhint")
print("restored:", shell.showtraceback is other_tool)
""", env=ipy_env)
    assert "OTHER TOOL True" in proc.stdout, proc.stdout + proc.stderr
    assert proc.stdout.count(MARK) == 1 and "restored: True" in proc.stdout


def test_load_ext_twice_is_once(run: Runner, ipy_env: dict) -> None:
    proc = run(SHELL + """
cell("%load_ext errhint")
cell("%reload_ext errhint")
cell("import errhint; errhint.install()")
cell("raise ValueError(MSG)")
""", env=ipy_env)
    assert proc.stdout.count(MARK) == 1, proc.stdout


def test_internal_error_keeps_the_cell_traceback(run: Runner, ipy_env: dict) -> None:
    code = SHELL + """
import errhint.engine as _e
def _boom(*a, **k):
    raise RuntimeError("engine exploded")
_e.lookup = _boom
if os.environ.get("WITH_EXT") == "1":
    cell("%load_ext errhint")
cell("raise ValueError(MSG)")
"""
    on = run(code, env={**ipy_env, "WITH_EXT": "1"})
    off = run(code, env=ipy_env)
    assert added_lines(on.stdout, off.stdout) == []
    assert added_lines(on.stderr, off.stderr) == ["errhint: internal error: ipython: RuntimeError: engine exploded"]
