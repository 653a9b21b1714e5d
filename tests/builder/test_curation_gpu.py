"""Hand-written dependency texts (curation/sites/gpu-*.jsonl: wgpu, cubecl, cudarc) against their records.

Checks that every entry names a shipped record of one of the GPU dependency crates, that the
record is one the builder overlays (CUDA result-code records are built from
curation/cuda_codes.json and take no site overlay), that ``{name}`` placeholders are groups of
the record's pattern and stay out of example code, and that the pyburn example fixes run
against the installed pyburn binding.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from curation_support import entries, failing_snippets, placeholder_problems

ROOT = Path(__file__).resolve().parents[2]
GPU_REPOS = {"gfx-rs/wgpu", "tracel-ai/cubecl", "coreylowman/cudarc"}


ENTRIES = entries("gpu-*.jsonl")


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
    assert placeholder_problems(ENTRIES, shipped) == []


@pytest.mark.parametrize("backtrace", ["0", "1"])
def test_pyburn_example_fixes_run_against_the_installed_binding(tmp_path, backtrace):
    pytest.importorskip("pyburn")
    snippets = [[e["id"], e["exampleFix"]] for e in ENTRIES if e.get("exampleFix", "").startswith("import pyburn")]
    assert len(snippets) >= 3
    assert failing_snippets(snippets, backtrace, tmp_path) == []
