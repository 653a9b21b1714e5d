"""Hand-written candle texts (curation/sites/candle-*.jsonl) against the records they override.

Checks that every entry names a shipped record, that its ``{name}`` placeholders are groups of
that record's pattern (and never sit in code, where a capture would be pasted into it), and
that the Python example fixes run against the installed candle-nn binding.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITES = sorted((ROOT / "curation" / "sites").glob("candle-*.jsonl"))
TEXT_FIELDS = ("triggerScenarios", "documentation", "commonSituations", "solutions", "preventionTips")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
GROUP = re.compile(r"\(\?P<([A-Za-z_][A-Za-z0-9_]*)>")


def _entries() -> List[Dict]:
    out = []
    for path in SITES:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line))
    return out


def _shipped_records() -> Dict[str, Dict]:
    records: Dict[str, Dict] = {}
    for path in sorted((ROOT / "errhint_data" / "records").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                rec = obj.get("record", obj)
                records[rec["id"]] = rec
    return records


ENTRIES = _entries()


@pytest.fixture(scope="module")
def shipped() -> Dict[str, Dict]:
    records = _shipped_records()
    if not records:
        pytest.skip("no shipped dataset in this tree")
    return records


def test_there_are_candle_entries_and_each_id_appears_once():
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) > 100
    assert len(ids) == len(set(ids))


def test_every_entry_names_a_shipped_candle_record(shipped):
    unknown = [e["id"] for e in ENTRIES if e["id"] not in shipped]
    assert unknown == []
    assert {shipped[e["id"]]["repo"] for e in ENTRIES} == {"huggingface/candle"}


def test_placeholders_are_pattern_groups_and_stay_out_of_code(shipped):
    problems = []
    for e in ENTRIES:
        groups = set(GROUP.findall(shipped[e["id"]]["messagePattern"]))
        for field in TEXT_FIELDS:
            value = e.get(field) or []
            for text in value if isinstance(value, list) else [value]:
                problems += [(e["id"], field, n) for n in PLACEHOLDER.findall(text) if n not in groups]
        problems += [(e["id"], "exampleFix", n) for n in PLACEHOLDER.findall(e.get("exampleFix", "")) if n in groups]
    assert problems == []


def test_python_example_fixes_name_only_real_binding_attributes():
    candle = pytest.importorskip("candle")
    called = re.compile(r"\bcandle\.([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?")
    import importlib

    missing = []
    for e in ENTRIES:
        code = e.get("exampleFix", "")
        if not code.startswith("import candle"):
            continue
        for top, sub in called.findall(code):
            if not hasattr(candle, top):
                try:
                    importlib.import_module("candle." + top)
                except ImportError:
                    missing.append((e["id"], top))
                    continue
            obj = getattr(candle, top, None) or importlib.import_module("candle." + top)
            if sub and not hasattr(obj, sub):
                missing.append((e["id"], top + "." + sub))
    assert missing == []


RUNNER = """
import json, sys, traceback
failures = []
for rid, code in json.loads(sys.stdin.read()):
    try:
        exec(compile(code, rid, "exec"), {"__name__": "__example__"})
    except BaseException as exc:
        failures.append([rid, type(exc).__name__ + ": " + str(exc)[:200]])
print(json.dumps(failures))
"""


@pytest.mark.parametrize("backtrace", ["0", "1"])
def test_python_example_fixes_run_against_the_installed_binding(tmp_path, backtrace):
    pytest.importorskip("candle")
    snippets = [[e["id"], e["exampleFix"]] for e in ENTRIES if e.get("exampleFix", "").startswith("import candle")]
    assert len(snippets) >= 30
    env = dict(os.environ, RUST_BACKTRACE=backtrace)
    proc = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(snippets), capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []
