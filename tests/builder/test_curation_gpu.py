"""Hand-written dependency texts (curation/sites/gpu-*.jsonl: wgpu, cubecl, cudarc) against their records.

Checks that every entry names a shipped record of one of the GPU dependency crates, that the
record is one the builder overlays (CUDA result-code records are built from
curation/cuda_codes.json and take no site overlay), that ``{name}`` placeholders are groups of
the record's pattern and stay out of example code, and that the pyburn example fixes run
against the installed pyburn binding.
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
SITES = sorted((ROOT / "curation" / "sites").glob("gpu-*.jsonl"))
GPU_REPOS = {"gfx-rs/wgpu", "tracel-ai/cubecl", "coreylowman/cudarc"}
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


ENTRIES = _entries()


@pytest.fixture(scope="module")
def shipped() -> Dict[str, Dict]:
    records: Dict[str, Dict] = {}
    for path in sorted((ROOT / "errhint_data" / "records").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                rec = obj.get("record", obj)
                records[rec["id"]] = rec
    if not records:
        pytest.skip("no shipped dataset in this tree")
    return records


def test_there_are_gpu_entries_and_each_id_appears_once():
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) > 200
    assert len(ids) == len(set(ids))


def test_every_entry_names_a_shipped_gpu_dependency_record(shipped):
    unknown = [e["id"] for e in ENTRIES if e["id"] not in shipped]
    assert unknown == []
    assert {shipped[e["id"]]["repo"] for e in ENTRIES} <= GPU_REPOS


def test_no_entry_targets_a_cuda_result_code_record(shipped):
    # Code records come from curation/cuda_codes.json; an overlay on them would never ship.
    codes = [e["id"] for e in ENTRIES if shipped[e["id"]].get("siteKind") == "error_code"]
    assert codes == []


def test_every_entry_has_its_own_cause_and_no_family_boilerplate(shipped):
    boilerplate = "Reduce the tensor size (batch, sequence length, image size)"
    problems = [e["id"] for e in ENTRIES
                if not e["triggerScenarios"].strip() or not e["documentation"].strip()
                or any(boilerplate in s for s in e["solutions"])]
    assert problems == []


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


RUNNER = """
import json, sys
failures = []
for rid, code in json.loads(sys.stdin.read()):
    try:
        scope = {"__name__": "__example__"}
        exec(compile(code, rid, "exec"), scope)
        if "TensorPy" in scope and not hasattr(scope["TensorPy"], "ones"):
            failures.append([rid, "TensorPy has no 'ones'"])
    except BaseException as exc:
        failures.append([rid, type(exc).__name__ + ": " + str(exc)[:200]])
print(json.dumps(failures))
"""


@pytest.mark.parametrize("backtrace", ["0", "1"])
def test_pyburn_example_fixes_run_against_the_installed_binding(tmp_path, backtrace):
    pytest.importorskip("pyburn")
    snippets = [[e["id"], e["exampleFix"]] for e in ENTRIES if e.get("exampleFix", "").startswith("import pyburn")]
    assert len(snippets) >= 3
    env = dict(os.environ, RUST_BACKTRACE=backtrace)
    proc = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(snippets), capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []
