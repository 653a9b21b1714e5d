"""Hand-written records and datasets for the engine tests.

The templates are real ones (candle cd29c7cc = 0.4.2, burn v0.18.0, safetensors, wrap-burn
v0.1.7); the prose is ours and kept short. Patterns follow design.md §Patterns: a middle
placeholder is ``(?P<name>.+?)``, a final one ``(?P<name>[^\\n]+)``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Dict, Iterator, List, Optional, Sequence

import pytest

CANDLE = "huggingface/candle"
BURN = "tracel-ai/burn"
SAFETENSORS = "huggingface/safetensors"
WRAP_BURN = "KwachOjunga/wrap-burn"
CANDLE_LABELS = ["0.4.2", "0.6.0", "0.8.0", "0.9.1", "0.11.0"]
BURN_LABELS = ["v0.13.0", "v0.16.0", "v0.18.0", "v0.20.0", "v0.21.0"]
SHA = "cd29c7ccd420a840d883361c290ee92d06b9b96c"


def rid(repo: str, template: str) -> str:
    return hashlib.sha256(f"{repo}\0{template}".encode()).hexdigest()[:16]


def record(
    repo: str,
    template: str,
    pattern: str,
    *,
    error_type: str = "exception",
    site_kind: str = "bail",
    tag: str = "internal-invariant",
    file_path: str = "candle-core/src/tensor.rs",
    versions: Optional[Sequence[str]] = None,
    variant: Optional[Dict[str, Any]] = None,
    error_class: Optional[str] = None,
    pulled_in_by: Optional[Sequence[str]] = None,
    solutions: Optional[List[str]] = None,
    trigger: Optional[str] = None,
    id: Optional[str] = None,
) -> Dict[str, Any]:
    slug = re.sub(r"[^a-z0-9]+", "-", template.lower()).strip("-")[:60] or "x"
    rec: Dict[str, Any] = {
        "id": id or rid(repo, template),
        "repo": repo,
        "slug": slug,
        "errorCode": None,
        "errorMessage": template,
        "messagePattern": pattern,
        "errorType": error_type,
        "errorClass": error_class,
        "httpStatus": None,
        "severity": "error",
        "filePath": file_path,
        "lineNumber": 100,
        "sourceCode": None,
        "sourceCodeStart": 98,
        "sourceCodeEnd": 102,
        "githubUrl": f"https://github.com/{repo}/blob/{SHA}/{file_path}#L98-L102",
        "documentation": f"Raised at {file_path} when: {template}.",
        "triggerScenarios": trigger or f"An argument that the check behind '{template}' rejects.",
        "commonSituations": "Tensors built with the wrong shape or dtype earlier in the program.",
        "solutions": solutions or [f"Fix the input that '{template}' complains about"],
        "exampleFix": "x = x.to_dtype(candle.f32)",
        "handlingStrategy": "validation",
        "validationCode": None,
        "typeGuard": None,
        "tryCatchPattern": None,
        "preventionTips": ["Check shapes and dtypes before the call"],
        "tags": [],
        "backgroundTag": tag,
        "analyzedSha": SHA,
        "analyzedAt": "2024-03-31T22:15:00Z",
        "contentChangedAt": None,
        "schemaVersion": 2,
        "crate": file_path.split("/")[0],
        "siteKind": site_kind,
        "versions": list(versions if versions is not None else (CANDLE_LABELS if repo == CANDLE else BURN_LABELS)),
    }
    if variant is not None:
        rec["variant"] = variant
    if pulled_in_by is not None:
        rec["pulledInBy"] = list(pulled_in_by)
    return rec


def variant(enum: str, name: str, shape: str, fields: Sequence[tuple], display: Optional[str], transparent: bool = False) -> Dict[str, Any]:
    return {
        "enum": enum,
        "name": name,
        "shape": shape,
        "fields": [{"name": n, "debug": d} for n, d in fields],
        "display": display,
        "transparent": transparent,
    }


def dtype_for_op_variant() -> Dict[str, Any]:
    """candle's ``Error::UnsupportedDTypeForOp(DType, &'static str)`` as a record's ``variant``."""
    return variant("Error", "UnsupportedDTypeForOp", "tuple", [("0", True), ("1", False)], "unsupported dtype {0:?} for op {1}")


def fixture_records() -> List[Dict[str, Any]]:
    err = "Error"
    return [
        record(
            CANDLE, "unsupported dtype {0:?} for op {1}",
            r"unsupported dtype (?P<f0>.+?) for op (?P<f1>[^\n]+)",
            site_kind="error_variant", tag="unsupported-dtype-for-op", file_path="candle-core/src/error.rs",
            variant=dtype_for_op_variant(),
            solutions=["Cast the {dtype} tensor to F32 before {op}"],
            trigger="Calling {op} on a {dtype} tensor, a dtype the CPU kernel of {op} does not implement.",
        ),
        record(
            CANDLE, "unsupported dtype {0:?} for op matmul",
            r"unsupported dtype (?P<f0>.+?) for op matmul",
            site_kind="variant_construction", tag="unsupported-dtype-for-op", file_path="candle-core/src/cpu_backend/mod.rs",
            variant=dtype_for_op_variant(),
            solutions=["Cast the {dtype} tensor to F32 before matmul"],
        ),
        record(
            CANDLE, "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}",
            r"shape mismatch in (?P<op>.+?), lhs: (?P<lhs>.+?), rhs: (?P<rhs>[^\n]+)",
            site_kind="error_variant", tag="shape-mismatch-binary-op", file_path="candle-core/src/error.rs",
            variant=variant(err, "ShapeMismatchBinaryOp", "struct", [("lhs", True), ("rhs", True), ("op", False)],
                            "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}"),
            solutions=["Make the shapes {lhs} and {rhs} compatible for {op}"],
        ),
        record(
            CANDLE, "dtype mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}",
            r"dtype mismatch in (?P<op>.+?), lhs: (?P<lhs>.+?), rhs: (?P<rhs>[^\n]+)",
            site_kind="error_variant", tag="dtype-mismatch", file_path="candle-core/src/error.rs",
            variant=variant(err, "DTypeMismatchBinaryOp", "struct", [("lhs", True), ("rhs", True), ("op", False)],
                            "dtype mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}"),
        ),
        record(
            CANDLE, "the candle crate has not been built with cuda support",
            r"the candle crate has not been built with cuda support",
            site_kind="error_variant", tag="not-compiled-with-cuda", file_path="candle-core/src/error.rs",
            variant=variant(err, "NotCompiledWithCudaSupport", "unit", [], "the candle crate has not been built with cuda support"),
        ),
        record(
            CANDLE, "unexpected rank, expected: {expected}, got: {got} ({shape:?})",
            r"unexpected rank, expected: (?P<expected>.+?), got: (?P<got>.+?) \((?P<shape>.+?)\)",
            site_kind="error_variant", tag="rank-mismatch", file_path="candle-core/src/error.rs",
            variant=variant(err, "UnexpectedNumberOfDims", "struct", [("expected", False), ("got", False), ("shape", True)],
                            "unexpected rank, expected: {expected}, got: {got} ({shape:?})"),
        ),
        record(
            CANDLE, "{msg}, expected: {expected:?}, got: {got:?}",
            r"(?P<msg>.+?), expected: (?P<expected>.+?), got: (?P<got>[^\n]+)",
            site_kind="error_variant", tag="dtype-mismatch", file_path="candle-core/src/error.rs",
            variant=variant(err, "UnexpectedDType", "struct", [("msg", False), ("expected", True), ("got", True)],
                            "{msg}, expected: {expected:?}, got: {got:?}"),
        ),
        record(
            CANDLE, "kernel-size {kernel_size:?} is larger than the input size {h},{w}",
            r"kernel-size (?P<kernel_size>.+?) is larger than the input size (?P<h>.+?),(?P<w>[^\n]+)",
            tag="conv-invalid-args",
        ),
        record(
            CANDLE, "quantized tensor must have their last dim divisible by block size {shape:?} {}",
            r"quantized tensor must have their last dim divisible by block size (?P<shape>.+?) (?P<arg0>[^\n]+)",
            tag="quantization", file_path="candle-core/src/quantized/mod.rs",
        ),
        record(
            BURN, "IO error: {0}", r"IO error: (?P<f0>[^\n]+)",
            site_kind="error_variant", tag="dataset-io", file_path="crates/burn-dataset/src/dataset/sqlite.rs",
            variant=variant("SqliteDatasetError", "Io", "tuple", [("0", False)], "IO error: {0}"),
        ),
        record(
            CANDLE, "no unary function for {}",
            r"no unary function for (?P<arg0>[^\n]+)",
            error_type="panic", site_kind="panic", tag="unsupported-dtype-for-op", file_path="candle-core/src/op.rs",
        ),
        record(
            CANDLE, "index {} is out of range",
            r"index (?P<arg0>.+?) is out of range",
            site_kind="python_raise", error_class="IndexError", tag="index-out-of-range",
            file_path="candle-pyo3/py_src/candle/nn/container.py",
        ),
        record(
            CANDLE, "metal col2im1d {dtype:?} not implemented",
            r"metal col2im1d (?P<dtype>.+?) not implemented",
            tag="unsupported-dtype-for-op", file_path="candle-core/src/metal_backend/mod.rs",
        ),
        record(
            SAFETENSORS, "invalid offset for tensor `{name}`",
            r"invalid offset for tensor `(?P<name>.+?)`",
            site_kind="display_arm", tag="safetensors-load", file_path="safetensors/src/tensor.rs",
            variant=variant("SafeTensorError", "InvalidOffset", "tuple", [("0", False)], "invalid offset for tensor `{0}`"),
            pulled_in_by=["huggingface/candle@0.4.2", "huggingface/candle@0.6.0"], versions=["v0.4.2"],
        ),
        record(
            SAFETENSORS, "header too small",
            r"header too small",
            site_kind="display_arm", tag="safetensors-load", file_path="safetensors/src/tensor.rs",
            variant=variant("SafeTensorError", "HeaderTooSmall", "unit", [], "header too small"),
            pulled_in_by=["huggingface/candle@0.4.2"], versions=["v0.4.2"],
        ),
        record(
            BURN, "Given dimensions differ from the tensor rank.",
            r"Given dimensions differ from the tensor rank\.(?: Tensor rank: '(?P<D>.+?)', given dimensions: '(?P<dims>.+?)'\.)?",
            error_type="panic", site_kind="tensor_check", tag="rank-mismatch",
            file_path="crates/burn-tensor/src/tensor/api/check.rs",
        ),
        record(
            BURN, "The provided tensors have incompatible shapes.",
            r"The provided tensors have incompatible shapes\.(?: Incompatible size at dimension '(?P<arg0>.+?)' => '(?P<arg1>.+?) != (?P<arg2>.+?)', which can't be broadcasted\. Lhs tensor shape (?P<arg3>.+?), Rhs tensor shape (?P<arg4>.+?)\.)?",
            error_type="panic", site_kind="tensor_check", tag="broadcast",
            file_path="crates/burn-tensor/src/tensor/api/check.rs",
        ),
        record(
            BURN, "Can't aggregate a tensor with ({D}) dimensions on axis ({dim})",
            r"Can't aggregate a tensor with \((?P<D>.+?)\) dimensions on axis \((?P<dim>.+?)\)",
            error_type="panic", site_kind="tensor_check", tag="dim-out-of-range",
            file_path="crates/burn-tensor/src/tensor/api/check.rs",
            solutions=["Use an axis below {D} for {op}"],
        ),
        record(
            BURN, "Unsupported precision for fusion",
            r"Unsupported precision for fusion",
            error_type="panic", site_kind="unimplemented", tag="fusion-unsupported",
            file_path="crates/burn-cubecl-fusion/src/engine/codegen/ir.rs",
        ),
        record(
            BURN, "Checkpoint {} not found in {}",
            r"Checkpoint (?P<arg0>.+?) not found in (?P<arg1>[^\n]+)",
            error_type="panic", site_kind="todo", tag="record-load", file_path="crates/burn-train/src/checkpoint/file.rs",
        ),
        record(
            BURN, "Batch size mismatch between inputs",
            r"Batch size mismatch between inputs",
            error_type="panic", site_kind="assert_eq", tag="shape-mismatch-binary-op",
            file_path="crates/burn-nn/src/loss/cross_entropy.rs",
        ),
        record(
            BURN, "Should be able to load the record file",
            r"Should be able to load the record file",
            error_type="panic", site_kind="expect", tag="record-load", file_path="crates/burn-core/src/module/base.rs",
        ),
        record(
            BURN, "FileNotFound({0:?})",
            r"FileNotFound\(\"(?P<f0>.+?)\"\)",
            site_kind="error_variant", tag="record-load", file_path="crates/burn-core/src/record/recorder.rs",
            variant=variant("RecorderError", "FileNotFound", "tuple", [("0", False)], None),
        ),
        record(
            WRAP_BURN, "Check input tensor dimensions",
            r"Check input tensor dimensions",
            site_kind="pyerr", error_class="PyValueError", tag="python-binding-args",
            file_path="src/tensor/ndarray_base.rs", versions=["v0.1.7"],
        ),
    ]


FAMILIES: Dict[str, Dict[str, Any]] = {
    "unsupported-dtype-for-op": {
        "title": "Operation not implemented for this dtype",
        "documentation": "Kernels exist only for some dtypes; {op} has none for {dtype}.",
        "triggerScenarios": "Passing a {dtype} tensor to {op}.",
        "commonSituations": "Integer tensors from indexing code reaching float ops.",
        "solutions": ["Cast the {dtype} tensor to F32 before {op}", "Run {op} on a device that supports {dtype}"],
        "exampleFix": "y = x.to_dtype(candle.f32).matmul(w)",
        "preventionTips": ["Keep activations in a float dtype"],
        "handlingStrategy": "conversion",
    },
}


@pytest.fixture
def records() -> List[Dict[str, Any]]:
    return fixture_records()


def installed_candle_dataset() -> Iterator[Any]:
    """Body of a dataset fixture: the fixture records as the engine's dataset, candle 0.4.2 installed.

    In memory, no files; ``yield from`` it so each module keeps its own fixture scope.
    """
    from errhint import engine, indexfile, loaded_index

    ds = engine.Dataset([loaded_index.LoadedIndex(indexfile.build_index(fixture_records()))], families=FAMILIES)
    ds.labels = lambda: {CANDLE: "0.4.2"}  # type: ignore[method-assign]
    engine.use(ds)
    yield ds
    engine.reset()


@pytest.fixture
def debug(monkeypatch: pytest.MonkeyPatch) -> None:
    """ERRHINT_DEBUG=1: errhint's own failures are raised instead of contained."""
    monkeypatch.setenv("ERRHINT_DEBUG", "1")


@pytest.fixture
def engine_dataset(records: List[Dict[str, Any]], monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The fixture records installed as the engine's dataset (in memory, no files)."""
    from errhint import engine, indexfile, loaded_index

    ds = engine.Dataset([loaded_index.LoadedIndex(indexfile.build_index(records))], families=FAMILIES)
    monkeypatch.setattr(ds, "labels", lambda: {CANDLE: "0.4.2", BURN: "v0.18.0"})
    engine.use(ds)
    yield ds
    engine.reset()
