"""The shipped dataset on errors written by the crates underneath candle and burn
(cudarc, safetensors, cubecl, wgpu, the ONNX importers), alone and inside candle/burn's own
messages.  A composite must give a match for each layer: what candle/burn was doing and what
the dependency said.

The GPU-only shapes are the exact texts the code prints (format strings and derived ``Debug``
of the pinned versions); the safetensors errors are raised for real through candle-nn 0.4.2
in tests/integration/test_safetensors_real.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pytest

import errhint
from errhint import engine

ROOT = Path(__file__).resolve().parents[2]
CUDA_CODES = json.loads((ROOT / "curation" / "cuda_codes.json").read_text(encoding="utf-8"))

CANDLE = "huggingface/candle"
BURN = "tracel-ai/burn"
CUDARC = "coreylowman/cudarc"
SAFETENSORS = "huggingface/safetensors"
CUBECL = "tracel-ai/cubecl"
WGPU = "gfx-rs/wgpu"
BURN_ONNX = "tracel-ai/burn-onnx"


@pytest.fixture(autouse=True)
def shipped_dataset(monkeypatch: pytest.MonkeyPatch):
    """The shipped data only: no user datasets from the environment, a fresh singleton."""
    monkeypatch.delenv("ERRHINT_DATA", raising=False)
    engine.reset()
    yield
    engine.reset()


def explain(text: str, limit: int = 6) -> List[errhint.Match]:
    matches = errhint.explain(text, limit=limit, min_score=0.0)
    assert matches, f"no match for {text!r}"
    return matches


def variant_name(rec: object) -> Optional[str]:
    var = getattr(rec, "variant", None)
    return None if var is None else var["name"]


def layer(matches: Sequence[errhint.Match], repo: str, *, message: Optional[str] = None,
          code: Optional[str] = None, variant: Optional[str] = None) -> errhint.Match:
    """The first match from ``repo`` (with the given template, errorCode or variant name)."""
    for m in matches:
        rec = m.record
        if rec.repo != repo:
            continue
        if message is not None and rec.error_message != message:
            continue
        if code is not None and rec.error_code != code:
            continue
        if variant is not None and variant_name(rec) != variant:
            continue
        return m
    found = [(m.record.repo, m.record.error_code or m.record.error_message[:60]) for m in matches]
    raise AssertionError(f"no {repo} match ({message or code or variant}) among {found}")


# --------------------------------------------------------------------------- candle around cudarc

DRIVER_NOT_FOUND = 'DriverError(CUDA_ERROR_NOT_FOUND, "named symbol not found")'
LOAD_TEMPLATE = "{cuda} when loading {module_name}"


@pytest.mark.parametrize(
    "text",
    [
        # Display (candle >= 0.8.2 in Python; any version from Rust)
        f"{DRIVER_NOT_FOUND} when loading cast_f32_bf16",
        # candle 0.4.2's Python binding prints the Debug form
        f'Cuda(Load {{ cuda: {DRIVER_NOT_FOUND}, module_name: "cast_f32_bf16" }})',
        # ... wrapped by .bt() when RUST_BACKTRACE is set
        f'WithBacktrace {{ inner: Cuda(Load {{ cuda: {DRIVER_NOT_FOUND}, module_name: "cast_f32_bf16" }}), backtrace: <disabled> }}',
        # ... inside a Rust panic from an unwrap in user code
        f"thread 'main' panicked at src/main.rs:12:40:\ncalled `Result::unwrap()` on an `Err` value: "
        f'Cuda(Load {{ cuda: {DRIVER_NOT_FOUND}, module_name: "cast_f32_bf16" }})',
    ],
)
def test_candle_kernel_load_explains_both_layers(text: str) -> None:
    matches = explain(text)
    outer = layer(matches, CANDLE, message=LOAD_TEMPLATE)
    assert outer.captures.get("module_name") == "cast_f32_bf16"
    assert "CUDA_ERROR_NOT_FOUND" in outer.captures.get("cuda", "")
    inner = layer(matches, CUDARC, code="CUDA_ERROR_NOT_FOUND")
    # what the driver said is explained by the code record: the bf16 / compute-capability cause
    assert "bf16" in inner.record.documentation and "compute_cap" in " ".join(inner.record.solutions)
    assert matches[0].record.repo in (CANDLE, CUDARC)


@pytest.mark.parametrize(
    "entry", CUDA_CODES["codes"], ids=[c["code"] for c in CUDA_CODES["codes"]]
)
def test_every_cuda_code_is_the_top_match_of_its_own_debug_shape(entry: Dict[str, str]) -> None:
    text = CUDA_CODES["shapes"][entry["library"]].format(code=entry["code"], errorString=entry.get("errorString", ""))
    top = explain(text)[0]
    assert top.record.repo == CUDARC and top.record.error_code == entry["code"]
    assert top.record.site_kind == "error_code"


@pytest.mark.parametrize(
    "text, code",
    [
        ('called `Result::unwrap()` on an `Err` value: DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")', "CUDA_ERROR_OUT_OF_MEMORY"),
        ("Cuda(Cublas(CublasError(CUBLAS_STATUS_NOT_SUPPORTED)))", "CUBLAS_STATUS_NOT_SUPPORTED"),
        ('WithBacktrace { inner: Cuda(Cuda(DriverError(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device"))), backtrace: <disabled> }',
         "CUDA_ERROR_NO_BINARY_FOR_GPU"),
        ("thread '<unnamed>' panicked at cubecl-cuda/src/compute/server.rs:504:25:\n"
         'DriverError(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")', "CUDA_ERROR_ILLEGAL_ADDRESS"),
    ],
)
def test_cuda_code_is_found_inside_wrappers(text: str, code: str) -> None:
    layer(explain(text), CUDARC, code=code)


def test_a_longer_code_name_does_not_fire_the_shorter_one() -> None:
    matches = errhint.explain('DriverError(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "mapped resource not available for access as an array")', min_score=0.0)
    assert not any(m.record.error_code == "CUDA_ERROR_NOT_MAPPED" for m in matches)


# --------------------------------------------------------------------------- safetensors


SAFETENSORS_DEBUG = [
    ("SafeTensor(HeaderTooSmall)", "HeaderTooSmall", None),
    ("SafeTensor(HeaderTooLarge)", "HeaderTooLarge", None),
    ("SafeTensor(InvalidHeaderLength)", "InvalidHeaderLength", None),
    ("SafeTensor(InvalidHeader)", "InvalidHeader", None),
    ("SafeTensor(InvalidHeaderStart)", "InvalidHeaderStart", None),
    ("SafeTensor(InvalidHeaderDeserialization)", "InvalidHeaderDeserialization", None),
    ("SafeTensor(TensorInvalidInfo)", "TensorInvalidInfo", None),
    ("SafeTensor(MetadataIncompleteBuffer)", "MetadataIncompleteBuffer", None),
    ("SafeTensor(ValidationOverflow)", "ValidationOverflow", None),
    ('SafeTensor(InvalidOffset("w"))', "InvalidOffset", "w"),
    ('SafeTensor(TensorNotFound("model.embed_tokens.weight"))', "TensorNotFound", "model.embed_tokens.weight"),
]


@pytest.mark.parametrize("text, variant, value", SAFETENSORS_DEBUG)
def test_candle_042_safetensors_debug_forms_top_match(text: str, variant: str, value: Optional[str]) -> None:
    """candle-nn 0.4.2 prints ``SafeTensor(<SafeTensorError Debug>)``; the top match is the
    safetensors record of that very variant, with its value captured."""
    top = explain(text)[0]
    assert top.record.repo == SAFETENSORS
    assert variant_name(top.record) == variant
    if value is not None:
        assert value in top.captures.values() or f'"{value}"' in top.captures.values()


def test_unit_variant_does_not_fire_inside_a_longer_name() -> None:
    matches = explain("SafeTensor(InvalidHeaderLength)")
    assert not any(m.record.repo == SAFETENSORS and variant_name(m.record) == "InvalidHeader" for m in matches)


@pytest.mark.parametrize(
    "text",
    [
        'called `Result::unwrap()` on an `Err` value: SafeTensor(InvalidOffset("w"))',
        "thread 'main' panicked at src/main.rs:10:5:\ncalled `Result::unwrap()` on an `Err` value: SafeTensorError(InvalidOffset(\"w\"))",
    ],
)
def test_unwrap_of_a_safetensors_error(text: str) -> None:
    m = layer(explain(text), SAFETENSORS, variant="InvalidOffset")
    assert "w" in m.captures.values() or '"w"' in m.captures.values()


def test_burn_store_wrapper_and_safetensors_display() -> None:
    """burn-store (burn >= 0.20) prefixes safetensors' Display with its own text."""
    matches = explain("SafeTensors error: invalid offset for tensor `w`")
    outer = layer(matches, BURN, message="SafeTensors error: {}")
    assert "invalid offset" in " ".join(outer.captures.values())
    inner = layer(matches, SAFETENSORS, variant="InvalidOffset")
    assert "w" in inner.captures.values()


def test_safetensors_records_say_which_releases_pull_them_in() -> None:
    m = layer(explain("SafeTensor(HeaderTooSmall)"), SAFETENSORS, message="HeaderTooSmall")
    assert "huggingface/candle@0.4.2" in (m.record.pulled_in_by or ())
    assert "v0.4.1" in (m.record.versions or ())


# --------------------------------------------------------------------------- burn around cubecl / wgpu


def test_burn_expect_around_a_cubecl_launch_error() -> None:
    text = 'Kernel to never fail: OutOfMemory { reason: "Unable to allocate 4294967296 bytes", backtrace: BackTrace }'
    matches = explain(text)
    layer(matches, BURN, message="Kernel to never fail")
    inner = layer(matches, CUBECL, variant="OutOfMemory")
    assert inner.captures.get("reason") == "Unable to allocate 4294967296 bytes"


def test_wgpu_default_handler_around_a_validation_error() -> None:
    text = (
        "wgpu error: Validation Error\n\nCaused by:\n    In Device::create_buffer\n"
        "    Buffer size 4294967296 is greater than the maximum buffer size (268435456)\n\n"
    )
    matches = explain(text)
    layer(matches, WGPU, message="wgpu error: {err}\n")
    inner = layer(matches, WGPU, message="Buffer size {requested} is greater than the maximum buffer size ({maximum})")
    assert inner.captures.get("requested") == "4294967296" and inner.captures.get("maximum") == "268435456"
    assert inner.record.background_tag == "wgpu-validation"


def test_cubecl_no_adapter_panic() -> None:
    top = explain("No possible adapter available for backend. Falling back to first available.")[0]
    assert top.record.repo == CUBECL and "burn@v0.18.0" in " ".join(top.record.pulled_in_by or ())


# --------------------------------------------------------------------------- ONNX import


def test_burn_018_onnx_parse_failure_and_burn_onnx_unsupported_ops() -> None:
    layer(explain("Unable to parse ONNX file: WireError(UnexpectedEof)"), BURN, message="Unable to parse ONNX file")
    m = layer(explain("Unsupported ONNX operation(s): Loop, If"), BURN_ONNX)
    assert m.record.background_tag == "onnx-import"
    assert list(m.record.pulled_in_by or ()) == ["tracel-ai/burn@v0.21.0"]


# --------------------------------------------------------------------------- dataset facts


def _shipped_records() -> List[Dict[str, object]]:
    import errhint_data

    base = Path(list(errhint_data.__path__)[0])
    manifest = json.loads((base / "manifest.json").read_text(encoding="utf-8"))
    out: List[Dict[str, object]] = []
    for name in sorted(n for n in manifest["files"] if n.startswith("records/")):
        for line in (base / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["record"])
    return out


@pytest.mark.parametrize("repo", [CUDARC, SAFETENSORS, CUBECL, WGPU, BURN_ONNX])
def test_each_dependency_ships_records_naming_the_releases_that_pull_it_in(repo: str) -> None:
    mine = [r for r in _shipped_records() if r["repo"] == repo]
    assert len(mine) >= 15, (repo, len(mine))
    for r in mine:
        pulled = r.get("pulledInBy") or []
        assert pulled and all(p.split("@")[0] in (CANDLE, BURN, "KwachOjunga/wrap-burn") for p in pulled), r["id"]
