"""The pyburn exampleFix of every curated burn/wrap-burn entry (curation/sites/burn-*.jsonl).

Each pyburn exampleFix is written as setup lines, one ``# before: <statement>`` line that
shows the failing call, and the corrected lines after it.  Two checks per entry, each in a
fresh interpreter (a burn panic can poison burn's global RNG lock for the rest of a process):

* the script as written (the failing call commented out) runs and exits 0 with pyburn 0.1.7;
* the setup plus the ``before`` statement raises, and errhint's top match for that error is
  the entry's own record, so the fix is shown for the template it was written for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
from _site import require_binding

require_binding("pyburn")

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
BEFORE = "# before:"

_PROBE = """
import json, sys
import errhint
try:
    exec(compile(sys.stdin.read(), "<before>", "exec"), {})
except BaseException as exc:  # PanicException is a BaseException
    matches = errhint.lookup(exc)
    print(json.dumps({"raised": type(exc).__name__, "top": matches[0].id if matches else None}))
else:
    print(json.dumps({"raised": None, "top": None}))
"""


def _entries() -> List[Dict[str, str]]:
    out = []
    for path in sorted((ROOT / "curation" / "sites").glob("burn-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("exampleFix", "").startswith("import pyburn"):
                out.append(entry)
    return out


ENTRIES = _entries()


def _split(fix: str) -> Tuple[str, str]:
    """Setup lines and the failing statement of an exampleFix (its ``# before:`` line)."""
    lines = fix.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(BEFORE))
    statement = lines[index][len(BEFORE):].split("#", 1)[0].strip()
    return "\n".join(lines[:index]), statement


def _run(args: List[str], stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT")}
    env["RUST_BACKTRACE"] = "0"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True, env=env, timeout=300)


def test_there_are_pyburn_fixes_to_check() -> None:
    assert len(ENTRIES) >= 15, len(ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["id"])
def test_fix_runs(entry: Dict[str, str]) -> None:
    proc = _run(["-c", entry["exampleFix"]])
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["id"])
def test_before_raises_the_entrys_template(entry: Dict[str, str]) -> None:
    setup, statement = _split(entry["exampleFix"])
    proc = _run(["-c", _PROBE], stdin=f"{setup}\n{statement}\n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["raised"] is not None, statement
    assert result["top"] == entry["id"], (statement, result)
