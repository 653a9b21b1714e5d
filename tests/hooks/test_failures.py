"""Fault injection: when errhint fails inside a hook, the user sees exactly what they would
without errhint, plus at most one ``errhint: internal error: ...`` line, same exit status."""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import pytest

from hooks_support import Runner, added_lines, hint_data, run  # noqa: F401

FAULTS: Dict[str, str] = {
    # errhint's data layer blows up while loading the dataset
    "dataset_raises": """
import errhint.data as _d
def _boom(*a, **k):
    raise RuntimeError("dataset exploded while loading")
for _name in ("extra_records", "shipped_index", "read_shipped_line", "load_dataset"):
    if hasattr(_d, _name):
        setattr(_d, _name, _boom)
import errhint.engine as _e
if hasattr(_e, "reset"):
    _e.reset()
def fail():
    raise ValueError(MSG)
""",
    "engine_raises": """
import errhint.engine as _e
def _boom(*a, **k):
    raise RuntimeError("engine exploded")
_e.lookup = _boom
def fail():
    raise ValueError(MSG)
""",
    "engine_recurses": """
import errhint.engine as _e
def _deep(*a, **k):
    return _deep(*a, **k)
_e.lookup = _deep
def fail():
    raise ValueError(MSG)
""",
    "str_raises": """
class BrokenStr(Exception):
    def __str__(self):
        raise RuntimeError("no str")
def fail():
    raise BrokenStr(MSG)
""",
    "str_not_str": """
class NotStr(Exception):
    def __str__(self):
        return 42
def fail():
    raise NotStr(MSG)
""",
    "user_recursion": """
def fail(depth=0):
    return fail(depth + 1)
""",
    "notes_not_a_list": """
def fail():
    e = ValueError(MSG)
    e.__notes__ = ("a tuple, so add_note fails",)
    raise e
""",
}

PLAIN_FAIL = """
def fail():
    raise ValueError(MSG)
"""

SURFACES: Dict[str, str] = {
    "main": """
errhint.install()
fail()
""",
    "guard": """
errhint.install()
with errhint.guard():
    fail()
""",
    "thread": """
import threading
errhint.install()
t = threading.Thread(target=fail, name="worker")
t.start(); t.join()
""",
    "unraisable": """
errhint.install()
class Holder:
    def __del__(self):
        fail()
h = Holder()
del h
""",
    "asyncio": """
import asyncio, gc
errhint.install()
async def step():
    fail()
async def main():
    asyncio.ensure_future(step())
    await asyncio.sleep(0.01)
asyncio.run(main())
gc.collect()
""",
    "logging": """
import logging
errhint.install()
logging.basicConfig()
try:
    fail()
except BaseException:
    logging.getLogger("app").exception("failed")
""",
    "process": """
import multiprocessing as mp
errhint.install()
if __name__ == "__main__":
    p = mp.get_context("fork").Process(target=fail)
    p.start(); p.join()
""",
}


@pytest.fixture
def malformed(tmp_path: Path) -> Path:
    path = tmp_path / "malformed.jsonl"
    path.write_text('{"record": {"id": "nothex", "repo": 3}}\nnot json at all\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("surface", sorted(SURFACES))
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fault_leaves_original_output(run: Runner, fault: str, surface: str) -> None:
    code = FAULTS[fault] + SURFACES[surface]
    on = run(code)
    off = run(code, env={"ERRHINT": "0"})
    assert on.returncode == off.returncode, (on.stderr, off.stderr)
    assert added_lines(on.stdout, off.stdout) == []
    block = added_lines(on.stderr, off.stderr)
    assert len(block) <= 1, block
    if block:
        assert block[0].startswith("errhint: internal error: "), block
    assert "Error in sys.excepthook" not in on.stderr


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_malformed_user_data_is_warned_and_the_original_output_kept(run: Runner, malformed: Path, surface: str) -> None:
    """A bad ERRHINT_DATA is not a fault: each bad line is one warning, never an internal error."""
    code = PLAIN_FAIL + SURFACES[surface]
    env = {"ERRHINT_DATA": str(malformed)}
    on = run(code, env=env)
    off = run(code, env={**env, "ERRHINT": "0"})
    assert on.returncode == off.returncode, (on.stderr, off.stderr)
    assert added_lines(on.stdout, off.stdout) == []
    lines = on.stderr.splitlines(keepends=True)
    warnings = [line for line in lines if line.startswith("errhint: warning: ")]
    assert len(warnings) % 2 == 0 and warnings, on.stderr  # both bad lines, once per process that looked up
    assert f"{malformed}:1: record nothex" in warnings[0] and f"{malformed}:2: not valid JSON" in warnings[1]
    rest = "".join(line for line in lines if not line.startswith("errhint: warning: "))
    block = added_lines(rest, off.stderr)  # the original output intact around errhint's notes
    assert not any("internal error" in line for line in block), block


@pytest.mark.parametrize("fault", ["engine_raises", "engine_recurses", "dataset_raises"])
def test_fault_is_reported(run: Runner, fault: str) -> None:
    """A failure that reaches the hooks is not silent: one line names it."""
    proc = run(FAULTS[fault] + SURFACES["main"])
    lines = [line for line in proc.stderr.splitlines() if line.startswith("errhint: internal error: ")]
    assert len(lines) == 1, proc.stderr
    assert proc.returncode == 1


def test_debug_reraises_internal_errors(run: Runner) -> None:
    proc = run(FAULTS["engine_raises"] + SURFACES["main"], env={"ERRHINT_DEBUG": "1"})
    assert "RuntimeError: engine exploded" in proc.stderr
    assert "errhint: internal error" not in proc.stderr
    assert "ValueError: WithBacktrace" in proc.stderr, "the original is still printed"
    assert proc.returncode == 1
