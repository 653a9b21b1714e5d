"""Python 3.9/3.10, where nothing prints notes: errhint prints the hints itself, once,
after the output of the hook it chains to.

Runs real 3.9/3.10 interpreters that can import errhint's dependencies (``/work/venv39``,
``/work/venv310`` or ``ERRHINT_TEST_OLD_PYTHONS``, a list separated by ``os.pathsep``);
skips when there is none.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path
from typing import List

import pytest

from hooks_support import MARK, PANIC_MARK, PANIC_PRELUDE, Runner, added_lines, base_env, hint_data, run  # noqa: F401


@functools.lru_cache(maxsize=None)
def old_pythons() -> List[str]:
    candidates = [p for p in os.environ.get("ERRHINT_TEST_OLD_PYTHONS", "").split(os.pathsep) if p]
    candidates += ["/work/venv39/bin/python", "/work/venv310/bin/python"]
    found = []
    for exe in candidates:
        if not os.path.exists(exe):
            continue
        probe = subprocess.run([exe, "-c", "import sys, regex; print(sys.version_info[:2] < (3, 11))"],
                               capture_output=True, text=True, env=base_env(), timeout=60)
        if probe.stdout.strip() == "True" and exe not in found:
            found.append(exe)
    return found


pythons = pytest.mark.parametrize(
    "py",
    old_pythons() or [pytest.param("", marks=pytest.mark.skip(reason="no Python 3.9/3.10 with errhint's dependencies"))],
)


def compare(run: Runner, py: str, code: str, mark: str = MARK, env: dict = None) -> List[str]:
    on = run(code, python=py, env=env)
    off = run(code, python=py, env={**(env or {}), "ERRHINT": "0"})
    assert on.returncode == off.returncode, on.stderr
    assert added_lines(on.stdout, off.stdout) == []
    block = added_lines(on.stderr, off.stderr)
    assert block and block[0].startswith("errhint:"), on.stderr
    assert "\n".join(block).count(mark) == 1, on.stderr
    return block


@pythons
def test_main_thread_prints_after_traceback(run: Runner, py: str) -> None:
    proc = run("errhint.install()\nraise ValueError(MSG)\n", python=py)
    err = proc.stderr
    assert err.count(MARK) == 1 and err.index("ValueError: WithBacktrace") < err.index(MARK), err
    compare(run, py, "errhint.install()\nraise ValueError(MSG)\n")


@pythons
def test_guard_sets_dunder_notes(run: Runner, py: str) -> None:
    proc = run("""
        try:
            with errhint.guard():
                raise ValueError(MSG)
        except ValueError as e:
            print(len(e.__notes__), all(n.startswith("errhint:") for n in e.__notes__))
    """, python=py)
    count, marked = proc.stdout.split()
    assert int(count) >= 1 and marked == "True", proc.stderr


@pythons
def test_guard_then_uncaught_prints_once(run: Runner, py: str) -> None:
    compare(run, py, """
        errhint.install()
        def forward():
            with errhint.guard():
                raise ValueError(MSG)
        try:
            forward()
        except ValueError as e:
            raise RuntimeError("model failed") from e
    """)


@pythons
def test_thread(run: Runner, py: str) -> None:
    compare(run, py, PANIC_PRELUDE + """
errhint.install()
import threading
def work():
    raise PanicException(PANIC)
t = threading.Thread(target=work); t.start(); t.join()
""", mark=PANIC_MARK)


@pythons
def test_unraisable(run: Runner, py: str) -> None:
    compare(run, py, """
        errhint.install()
        class H:
            def __del__(self):
                raise ValueError(MSG)
        H()
    """)


@pythons
def test_logging_and_asyncio(run: Runner, py: str) -> None:
    compare(run, py, """
        import logging
        errhint.install()
        logging.basicConfig()
        try:
            raise ValueError(MSG)
        except ValueError:
            logging.getLogger("app").exception("failed")
    """)
    compare(run, py, """
        import asyncio, gc
        errhint.install()
        async def step():
            raise ValueError(MSG)
        async def main():
            asyncio.ensure_future(step())
            await asyncio.sleep(0.01)
        asyncio.run(main())
        gc.collect()
    """)


@pythons
def test_process_child(run: Runner, py: str) -> None:
    compare(run, py, """
        import multiprocessing as mp
        errhint.install()
        def work():
            raise ValueError(MSG)
        if __name__ == "__main__":
            p = mp.get_context("fork").Process(target=work); p.start(); p.join()
    """)


@pythons
def test_exceptiongroup_hook_shows_notes_so_no_duplicate(run: Runner, py: str) -> None:
    """With the exceptiongroup backport's hook in front, the notes are printed by it, once."""
    probe = run("import exceptiongroup\n", python=py)
    if probe.returncode != 0:
        pytest.skip("exceptiongroup backport not installed for this interpreter")
    proc = run("import exceptiongroup\nerrhint.install()\nraise ValueError(MSG)\n", python=py)
    assert proc.stderr.count(MARK) == 1, proc.stderr


@pythons
def test_pytest_report(tmp_path: Path, hint_data: Path, py: str) -> None:
    if subprocess.run([py, "-c", "import pytest"], env=base_env(), capture_output=True).returncode:
        pytest.skip("pytest not installed for this interpreter")
    (tmp_path / "test_m.py").write_text(
        f"from hooks_support import CANDLE_TEXT\ndef test_x():\n    raise ValueError(CANDLE_TEXT)\n", encoding="utf-8")
    env = base_env(ERRHINT_DATA=str(hint_data))
    env["PYTHONPATH"] += os.pathsep + str(Path(__file__).resolve().parents[1])
    proc = subprocess.run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "errhint", "test_m.py"],
                          capture_output=True, text=True, cwd=str(tmp_path), env=env, timeout=120)
    assert "1 failed" in proc.stdout and proc.stdout.count(MARK) == 1, proc.stdout + proc.stderr
