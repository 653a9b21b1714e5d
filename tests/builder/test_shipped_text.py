"""The shipped records' text (issue 15): no boilerplate first solutions, no family text in
records nobody wrote for, and the facts the builder states from the source."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "errhint_data"
MAX_SHARED = 10
"""A first solution shared word for word with more than this many other templates is boilerplate."""
MAX_BOILERPLATE_SHARE = 0.05

pytestmark = pytest.mark.skipif(not (DATA / "manifest.json").exists(), reason="dataset not built")


@pytest.fixture(scope="module")
def records() -> List[Dict[str, Any]]:
    out = []
    for path in sorted((DATA / "records").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["record"])
    return out


@pytest.fixture(scope="module")
def families() -> Dict[str, Any]:
    return json.loads((DATA / "families.json").read_text(encoding="utf-8"))["families"]


def boilerplate(records: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Records whose first solution is shared word for word with more than MAX_SHARED other
    templates (a template: repository + message)."""
    templates: Dict[str, Set[Tuple[str, str]]] = defaultdict(set)
    for r in records:
        if r.get("solutions"):
            templates[" ".join(r["solutions"][0].split())].add((r["repo"], r["errorMessage"]))
    return [
        r for r in records
        if r.get("solutions") and len(templates[" ".join(r["solutions"][0].split())] - {(r["repo"], r["errorMessage"])}) > MAX_SHARED
    ]


def test_boilerplate_first_solutions_stay_below_five_percent(records):
    shared = boilerplate(records)
    share = len(shared) / len(records)
    assert share <= MAX_BOILERPLATE_SHARE, f"{len(shared)} of {len(records)} records ({share:.1%}) share their first solution with >{MAX_SHARED} other templates"


def test_the_metric_counts_shared_first_solutions():
    """The metric itself: twelve templates with one first solution are all boilerplate, a
    solution written for two templates is not, and an empty list is not a shared solution."""
    same = [{"repo": "r/x", "errorMessage": f"m{i}", "solutions": ["Reduce the tensor size."]} for i in range(12)]
    pair = [{"repo": "r/x", "errorMessage": f"p{i}", "solutions": ["Cast to f32."]} for i in range(2)]
    empty = [{"repo": "r/x", "errorMessage": f"e{i}", "solutions": []} for i in range(20)]
    assert len(boilerplate(same + pair + empty)) == 12
    assert boilerplate(same[:11] + pair) == []


def test_every_mined_record_says_whether_its_text_was_written(records):
    mined = [r for r in records if r.get("siteKind") and r.get("errorCode") is None]
    assert mined and all(isinstance(r.get("curated"), bool) for r in mined)


def test_family_text_never_stands_in_for_a_records_own_text(records, families):
    """No record presents its family's text as its own cause or trigger; a record nobody has
    written text for (none ship today: every template is written) carries no remediation."""
    checked = 0
    for r in records:
        fam = families[r["backgroundTag"]]
        for text in (fam.get("triggerScenarios") or "", fam.get("documentation") or ""):
            first = text.split(". ")[0]
            if first:
                checked += 1
                assert first not in r["triggerScenarios"] + r["documentation"], (r["id"], first)
        if r.get("curated") is False:
            assert r["solutions"] == [] and r["exampleFix"] == "" and r["preventionTips"] == [] and r["commonSituations"] == "", r["id"]
    assert checked > 1000


def test_most_sites_state_their_function_and_condition(records):
    """The builder states the enclosing function of nearly every Rust site, and a guard for most."""
    rust = [r for r in records if r.get("siteKind") not in (None, "python_raise", "error_variant", "display_arm", "error_code")]
    with_fn = sum(1 for r in rust if r.get("function"))
    with_guard = sum(1 for r in rust if r.get("condition"))
    assert with_fn / len(rust) > 0.9
    assert with_guard / len(rust) > 0.6
    for r in rust:
        if r.get("condition"):
            assert r["condition"].startswith("`") and "\n" not in r["condition"], r["id"]
            assert f"when {r['condition']}" in r["triggerScenarios"] or r.get("curated"), r["id"]


# ---------------------------------------------------------------- dependency records (issue 15, item 6)


def _by_id(records, rid: str) -> Dict[str, Any]:
    return next(r for r in records if r["id"] == rid)


def test_cuda_out_of_memory_speaks_about_candle_and_burn(records):
    oom = next(r for r in records if r.get("errorCode") == "CUDA_ERROR_OUT_OF_MEMORY")
    text = " ".join(oom["solutions"]) + oom["documentation"]
    for needle in ("candle:", "burn:", "CUDA_VISIBLE_DEVICES", "batch_size", "candle.f16", "Cuda<burn::tensor::f16>"):
        assert needle in text, needle


def test_cuda_not_found_when_loading_says_how_to_rebuild(records):
    nf = next(r for r in records if r.get("errorCode") == "CUDA_ERROR_NOT_FOUND")
    assert nf["solutions"][0].startswith("The kernel was not compiled for this GPU's architecture")
    assert "CUDA_COMPUTE_CAP=" in nf["solutions"][0]
    load = _by_id(records, "36f54fd3a72b4036")  # candle's "{cuda} when loading {module_name}"
    assert load["curated"] is True and "CUDA_COMPUTE_CAP=" in load["solutions"][0]


WGPU_WRITTEN = ("30594a612f2980cd", "4ba68ba3eb5e9a87", "bdf024609d0010db", "91cdb032490e6dfe", "719a385300832aa5", "7305505f6888502b")


@pytest.mark.parametrize("rid", WGPU_WRITTEN)
def test_wgpu_errors_are_explained_per_error(records, rid):
    rec = _by_id(records, rid)
    assert rec["curated"] is True
    name = rec["variant"]["name"]
    assert f"`{rec['variant']['enum']}::{name}`" in rec["documentation"]  # the error itself, by name
    assert "wgpu error:" in rec["documentation"]  # how it reaches a burn user
