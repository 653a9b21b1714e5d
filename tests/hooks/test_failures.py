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
    "malformed_data": """
def fail():
    raise ValueError(MSG)
""",
}

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
def test_fault_leaves_original_output(run: Runner, malformed: Path, fault: str, surface: str) -> None:
    code = FAULTS[fault] + SURFACES[surface]
    env = {"ERRHINT_DATA": str(malformed)} if fault == "malformed_data" else {}
    on = run(code, env=env)
    off = run(code, env={**env, "ERRHINT": "0"})
    assert on.returncode == off.returncode, (on.stderr, off.stderr)
    assert added_lines(on.stdout, off.stdout) == []
    block = added_lines(on.stderr, off.stderr)
    assert len(block) <= 1, block
    if block:
        assert block[0].startswith("errhint: internal error: "), block
    assert "Error in sys.excepthook" not in on.stderr


@pytest.mark.parametrize("fault", ["engine_raises", "engine_recurses", "malformed_data", "dataset_raises"])
def test_fault_is_reported(run: Runner, malformed: Path, fault: str) -> None:
    """A failure that reaches the hooks is not silent: one line names it.

    (A dataset that cannot load makes ``lookup`` raise ``DatasetError``, contained here.)
    """
    env = {"ERRHINT_DATA": str(malformed)} if fault == "malformed_data" else {}
    proc = run(FAULTS[fault] + SURFACES["main"], env=env)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("errhint: internal error: ")]
    assert len(lines) == 1, proc.stderr
    assert proc.returncode == 1


def test_debug_reraises_internal_errors(run: Runner) -> None:
    proc = run(FAULTS["engine_raises"] + SURFACES["main"], env={"ERRHINT_DEBUG": "1"})
    assert "RuntimeError: engine exploded" in proc.stderr
    assert "errhint: internal error" not in proc.stderr
    assert "ValueError: WithBacktrace" in proc.stderr, "the original is still printed"
    assert proc.returncode == 1
