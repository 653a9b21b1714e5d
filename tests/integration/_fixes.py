"""Run the fix scripts of ``fixes/`` and read ``docs/fixes.md``; shared by the fix tests.

Every script runs in its own interpreter (``fixes/_apply.py``) with RUST_BACKTRACE set
explicitly: Rust reads it once per process, and a pyburn panic can poison burn's global locks
for the rest of a process. Results are cached per RUST_BACKTRACE value for the session.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FIXES = HERE / "fixes"
APPLY = FIXES / "_apply.py"
DOC = ROOT / "docs" / "fixes.md"
MARKER = "@@fix@@ "
if str(FIXES) not in sys.path:
    sys.path.insert(0, str(FIXES))
_LISTED = re.compile(r"^\|\s*`(?P<script>[\w.]+\.py)`\s*\|(?P<reason>[^|]+)\|", re.M)


def scripts() -> List[Path]:
    """The fix scripts: every ``candle_*.py`` and ``pyburn_*.py`` of ``fixes/``."""
    return sorted(p for p in FIXES.glob("*.py") if p.name.startswith(("candle_", "pyburn_")))


def _env(backtrace: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT")}
    env["RUST_BACKTRACE"] = backtrace
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return env


def run_script(script: Path, backtrace: str) -> dict:
    """One script in a fresh interpreter; the harness's JSON result."""
    proc = subprocess.run(
        [sys.executable, str(APPLY), str(script)],
        capture_output=True, text=True, env=_env(backtrace), timeout=300, cwd=str(FIXES),
    )
    for line in proc.stdout.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    raise AssertionError(f"{script.name}: the harness printed no result (exit {proc.returncode}):\n{proc.stderr[-3000:]}")


@functools.lru_cache(maxsize=None)
def results(backtrace: str) -> Dict[str, dict]:
    """Every script's result with RUST_BACKTRACE=``backtrace``, by script file name."""
    return {s.name: run_script(s, backtrace) for s in scripts()}


def listed_failures(text: str) -> Dict[str, str]:
    """``docs/fixes.md``'s table rows: script file name -> reason."""
    return {m.group("script"): m.group("reason").strip() for m in _LISTED.finditer(text)}


def main() -> int:
    """``python tests/integration/_fixes.py [0|1]``: the summary and the failing scripts, to update docs/fixes.md."""
    backtrace = sys.argv[1] if len(sys.argv) > 1 else "0"
    found = results(backtrace)
    failing = {name: r for name, r in found.items() if not r.get("fix_ok")}
    listed = listed_failures(DOC.read_text()) if DOC.exists() else {}
    records = {r["record_id"] for r in found.values() if r.get("record_id")}
    raised = sum(r.get("raised", False) for r in found.values())
    print(f"RUST_BACKTRACE={backtrace}: {len(found)} scripts, {raised} raised, {len(records)} distinct records, "
          f"fixes ran: {len(found) - len(failing)}/{len(found)}")
    for name, r in sorted(failing.items()):
        mark = "listed" if name in listed else "NOT LISTED"
        print(f"  {name} [{mark}]: {r.get('fix_error')} | fix_code={r.get('fix_code')!r} | {r.get('error', '')[:120]!r}")
    for name in sorted(set(listed) - set(failing)):
        print(f"  {name}: listed in docs/fixes.md but its fix now runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
