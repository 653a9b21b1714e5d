"""Shared helpers for the tests of hand-written curation files (tests/builder/test_curation_*.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Sequence

from builder import check_curation

ROOT = Path(__file__).resolve().parents[1]
TEXT_FIELDS = ("triggerScenarios", "documentation", "commonSituations", "solutions", "preventionTips")

RUNNER = """
import json, sys
failures = []
for rid, code in json.loads(sys.stdin.read()):
    scope = {"__name__": "__example__"}
    try:
        exec(compile(code, rid, "exec"), scope)
        if "TensorPy" in scope and not hasattr(scope["TensorPy"], "ones"):
            failures.append([rid, "TensorPy has no 'ones'"])
    except BaseException as exc:
        failures.append([rid, type(exc).__name__ + ": " + str(exc)[:200]])
print(json.dumps(failures))
"""
"""Runs ``[id, code]`` pairs read from stdin, each in a fresh namespace; prints the failures."""


def entries(pattern: str) -> List[Dict]:
    """Every entry of ``curation/sites/<pattern>``, in file and line order."""
    out = []
    for path in sorted((ROOT / "curation" / "sites").glob(pattern)):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line))
    return out


def shipped_records() -> Dict[str, Dict]:
    """The shipped records by id (empty when the tree has no dataset)."""
    records: Dict[str, Dict] = {}
    for path in sorted((ROOT / "errhint_data" / "records").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                rec = obj.get("record", obj)
                records[rec["id"]] = rec
    return records


def failing_snippets(snippets: Sequence[Sequence[str]], backtrace: str, cwd: Path) -> List[List[str]]:
    """``[id, error]`` for each ``[id, code]`` snippet that raises in a fresh interpreter run
    with ``RUST_BACKTRACE=backtrace``; raises AssertionError if the runner itself fails."""
    env = dict(os.environ, RUST_BACKTRACE=backtrace)
    proc = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(list(snippets)), capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def placeholder_problems(curated: Sequence[Dict], shipped: Dict[str, Dict]) -> List[tuple]:
    """``(id, field, name)`` for each placeholder problem of the entries (see
    ``builder.check_curation.placeholder_problems``)."""
    return [(e["id"], field, name) for e in curated
            for field, name in check_curation.placeholder_problems(e, shipped[e["id"]]["messagePattern"])]
