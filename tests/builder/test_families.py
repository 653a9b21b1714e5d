"""Family assignment rules (curation/families.json) on the messages curators reported mis-tagged,
and the shared family text every repository sees."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

import pytest

from builder import deps
from builder.families import Catalogue
from builder.merge import merge
from builder.scan import SnapshotResult
from builder.sites import Site
from builder.sources import Source
from builder.template import name_placeholders, parse_format, plain

ROOT = Path(__file__).resolve().parents[2]
CURATION = ROOT / "curation"


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue(deps.catalogue_data(CURATION, deps.load_if_present(CURATION)))


def _tag(catalogue: Catalogue, text: str, path: str, *, repo: str = "huggingface/candle", kind: str = "bail", fn: str = "run",
         crate: str = "candle-core", variant: Optional[str] = None, literal: bool = False) -> str:
    tpl = plain(text) if literal else name_placeholders(parse_format(text))
    site = Site(kind=kind, line=1, end_line=1, template=tpl, path=path, crate=crate, fn=fn,
                variant={"name": variant} if variant else None, variant_key=f"Error::{variant}" if variant else "")
    res = SnapshotResult(Source(repo, "v1", "0" * 40), "2024-01-01T00:00:00Z", [site], 1, 0, 1)
    return catalogue.assign(merge([res])[0])


@pytest.mark.parametrize(
    "text, path, kw, expected",
    [
        # 890b86a1a9f67395, a75c31e077913bf5, d63e6b08fa0f9b76
        ("dimension index {dim} is too large for tensor rank {rank}", "candle-pyo3/src/lib.rs", {"kind": "pyerr", "crate": "candle-pyo3"}, "dim-out-of-range"),
        ("dimension index {dim} is too low for tensor rank {rank}", "candle-pyo3/src/lib.rs", {"kind": "pyerr", "crate": "candle-pyo3"}, "dim-out-of-range"),
        ("axis {axis} is too large, tensor rank {rank}", "candle-core/src/tensor.rs", {}, "dim-out-of-range"),
        # be5501676ef986ae, 62bb3771fc13b1d9
        ("step cannot be zero", "candle-core/src/tensor.rs", {"fn": "arange_step"}, "tensor-creation"),
        ("two elements have different shapes {shape:?} {shape0:?}", "candle-core/src/device.rs", {"fn": "shape"}, "tensor-creation"),
        # afbc2d43c636cc8e: GGUF metadata conversion in the Python binding
        ("unsupported type {v:?}", "candle-pyo3/src/lib.rs", {"kind": "pyerr", "crate": "candle-pyo3", "fn": "pyobject_to_gguf_value"}, "gguf-load"),
        # 1b004d40f1a86474: "converted" is not "conv"
        ("Only tensors with 1 element can be converted into scalar.", "crates/burn-tensor/src/tensor/api/check.rs",
         {"repo": "tracel-ai/burn", "kind": "tensor_check", "crate": "burn-tensor", "literal": True}, "tensor-data-conversion"),
        # 3bb9f1d219a8d6c9
        ("kernel-size {kernel_size:?} is larger than the input size {h},{w}", "candle-core/src/tensor.rs", {"fn": "max_pool2d_with_stride"}, "pool-invalid-args"),
        # 3ed97c271c498bb0, 452c4a1d14a6bacd: VarBuilder loading
        ("{msg}, expected: {expected:?}, got: {got:?}", "candle-core/src/error.rs", {"kind": "error_variant", "variant": "UnexpectedShape"}, "safetensors-load"),
        ("Cannot divide tensor of shape {shape:?} equally along dim {dim} into {n_parts}", "candle-core/src/error.rs",
         {"kind": "error_variant", "variant": "ShapeMismatchSplit"}, "safetensors-load"),
        # 40c8242d657f527e and npy headers
        ("unexpected empty stack", "candle-core/src/pickle.rs", {}, "npy-pickle-load"),
        ("magic string mismatch", "candle-core/src/npy.rs", {}, "npy-pickle-load"),
        ("empty objs", "candle-core/src/pickle.rs", {}, "npy-pickle-load"),
        # ggml loading, quantized block internals
        ("cannot find tensor with name '{name}'", "candle-core/src/quantized/ggml_file.rs", {}, "gguf-load"),
        ("vec_dot_q4_1_q8_1: {n}, nb is not divisible by 2", "candle-core/src/quantized/k_quants.rs", {}, "quantization"),
        ("size mismatch {} {} {}", "candle-core/src/quantized/k_quants.rs", {}, "quantization"),
        ("mismatch on matmul dim {a:?} {b:?}", "candle-core/src/quantized/cuda.rs", {}, "quantization"),
        # BatchNorm / VarMap configuration
        ("batch-norm running mean has unexpected shape {s:?}", "candle-nn/src/batch_norm.rs", {"crate": "candle-nn"}, "nn-module-config"),
        ("shape mismatch on {path}: {shape:?} <> {tensor_shape:?}", "candle-nn/src/var_map.rs", {"crate": "candle-nn"}, "nn-module-config"),
        # helper-call sites of burn's conv options
        ("stride must be non-zero", "crates/burn-tensor/src/tensor/ops/modules/base.rs", {"repo": "tracel-ai/burn", "kind": "expect", "crate": "burn-tensor", "literal": True}, "conv-invalid-args"),
        ("groups must be non-zero", "crates/burn-tensor/src/tensor/ops/modules/base.rs", {"repo": "tracel-ai/burn", "kind": "expect", "crate": "burn-tensor", "literal": True}, "conv-invalid-args"),
        # keyword traps
        ("failed to spawn candle barrier pool worker", "candle-core/src/utils.rs", {"kind": "expect"}, "internal-invariant"),
        ("cuda support has not been enabled, add `cuda` feature to enable.", "candle-core/src/dummy_cuda_backend.rs", {}, "not-compiled-with-cuda"),
        ("Metal contiguous affine {dtype:?} not implemented", "candle-core/src/metal_backend/mod.rs", {}, "unsupported-dtype-for-op"),
        ("backward not supported for upsample_bilinear2d", "candle-core/src/backprop.rs", {}, "autodiff-graph"),
    ],
)
def test_reported_mistags_land_in_the_right_family(catalogue, text, path, kw, expected):
    assert _tag(catalogue, text, path, **kw) == expected


TEXT_FIELDS = ("title", "documentation", "triggerScenarios", "commonSituations", "solutions", "preventionTips", "handlingStrategy")
SHAPE_LITERAL = re.compile(r"(?![\[(]0, ?1[\])])[\[(]\d+, ?\d+(?:, ?\d+)*[\])]")  # [0, 1] is a range, not a shape


def _default_text(fam) -> str:
    parts = []
    for k in TEXT_FIELDS:
        v = fam.get(k)
        if isinstance(v, dict):
            v = v.get("default") or ""
        parts.append(json.dumps(v, ensure_ascii=False))
    return " ".join(parts)


def test_shared_family_text_quotes_no_fixed_shape():
    """Family text is shown next to the user's own values: a literal shape like [4, 3] would read
    as theirs. Shapes are {placeholders} or neutral words (exampleFix code may use any)."""
    data = json.loads((CURATION / "families.json").read_text(encoding="utf-8"))
    offenders = [f["tag"] for f in data["families"] if SHAPE_LITERAL.search(_default_text(f))]
    assert offenders == []


@pytest.mark.parametrize("tag", ["broadcast", "matmul-shape", "shape-mismatch-binary-op", "autodiff-graph", "record-load"])
def test_text_of_families_used_by_both_frameworks_names_both_or_neither(tag):
    fam = next(f for f in json.loads((CURATION / "families.json").read_text(encoding="utf-8"))["families"] if f["tag"] == tag)
    doc = fam["documentation"].lower() + " " + fam["title"].lower()
    assert ("candle" in doc) == ("burn" in doc), doc
