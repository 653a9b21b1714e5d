"""The hot-site worklist: ranking by location and releases, and stable ranks across rebuilds."""

from __future__ import annotations

from builder.hot import hot_sites, score

LABELS = {"huggingface/candle": ["0.4.2", "0.11.0"]}


def _rec(i: str, path: str, versions=("0.11.0",), tag="internal-invariant"):
    return {"id": i, "repo": "huggingface/candle", "filePath": path, "versions": list(versions), "backgroundTag": tag,
            "errorType": "exception", "errorMessage": "m", "documentation": "d", "triggerScenarios": "t", "solutions": ["s"], "exampleFix": "f"}


def test_core_tensor_sites_in_the_binding_release_rank_first():
    hot = _rec("a", "candle-core/src/tensor.rs", ("0.4.2", "0.11.0"), "shape-mismatch-binary-op")
    cold = _rec("b", "candle-core/src/metal_backend/mod.rs")
    assert score(hot, LABELS) > score(cold, LABELS)
    assert [h["id"] for h in hot_sites([cold, hot], LABELS, count=2)] == ["a", "b"]


def test_previous_ranks_are_kept_and_gaps_refilled():
    recs = [_rec("a", "candle-core/src/tensor.rs"), _rec("b", "candle-nn/src/ops.rs"), _rec("c", "candle-core/src/x.rs")]
    out = hot_sites(recs, LABELS, previous=["c", "gone", "a"], count=3)
    assert [h["id"] for h in out] == ["c", "a", "b"]
    assert [h["rank"] for h in out] == [1, 2, 3]


def test_rows_carry_pattern_line_and_commit_for_curators():
    rec = dict(_rec("a", "candle-core/src/tensor.rs"), messagePattern="m(?P<x>[^\\n]+)", lineNumber=42, analyzedSha="c" * 40)
    row = hot_sites([rec], LABELS, count=1)[0]
    assert (row["messagePattern"], row["lineNumber"], row["analyzedSha"]) == ("m(?P<x>[^\\n]+)", 42, "c" * 40)
