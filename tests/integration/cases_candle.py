"""Real errors raised through ``candle-nn==0.4.2`` (``import candle``) and their upstream sites.

Every trigger performs one real binding call that fails. The site of each error was found by
searching the candle source at cd29c7ccd420 (the 0.4.2 label of the dataset) for the message
text, and for panics by the ``thread '<unnamed>' panicked at <file>:<line>`` line on stderr.

The wheel on PyPI was built from a checkout between 143c481c2 (2024-03-18, exposes ``gather``)
and af7f8b87d (2024-03-21): its panic locations (``candle-core/src/op.rs:595`` for
``unary_op!(Exp ..)``) are 145 lines below cd29c7cc's. Every template used here is identical at
both revisions; only line numbers differ, so cases store paths, not lines.

Safetensors loading errors live in ``cases_safetensors.py``.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import List

from _site import Site

CANDLE = "huggingface/candle"
CORE = "candle-core/src"
PYO3 = "candle-pyo3/src/lib.rs"
PYSRC = "candle-pyo3/py_src/candle"


def _c():  # type: ignore[no-untyped-def]
    """Import candle only when a trigger runs, so this list loads without the binding."""
    import candle

    return candle


def _ones(*shape: int, dtype: str = "f32"):  # type: ignore[no-untyped-def]
    c = _c()
    return c.ones(shape, dtype=getattr(c, dtype))


# --- triggers that need a small file -------------------------------------------------------


def _gguf(tmp: Path, name: str, payload: bytes):  # type: ignore[no-untyped-def]
    path = tmp / name
    path.write_bytes(payload)
    return _c().utils.load_gguf(str(path))


def _ggml(tmp: Path, name: str, payload: bytes):  # type: ignore[no-untyped-def]
    path = tmp / name
    path.write_bytes(payload)
    return _c().utils.load_ggml(str(path))


def _gguf_header(version: int, n_tensors: int, n_kv: int) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, n_tensors, n_kv)


def _gguf_str(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _module():  # type: ignore[no-untyped-def]
    from candle import nn

    return nn


def _add_existing_attribute():  # type: ignore[no-untyped-def]
    nn = _module()
    layer = nn.Linear(2, 2)
    layer.add_module("weight", nn.Module())


def _quantized_linear_4d():  # type: ignore[no-untyped-def]
    c = _c()
    layer = _module().Linear(32, 4)
    layer.weight = c.rand((4, 32)).quantize("q8_0")
    return layer.forward(c.rand((1, 1, 2, 32)))


CASES: List[Site] = [
    # --- candle-core Error variants (Debug form in the ValueError) ---------------------------
    Site(
        "matmul-i64",
        lambda: _ones(2, 3, dtype="i64").matmul(_ones(3, 2, dtype="i64")),
        CANDLE, "unsupported dtype {0:?} for op {1}", f"{CORE}/cpu_backend/mod.rs", "ValueError",
        {"f0": "I64", "f1": "matmul"}, "UnsupportedDTypeForOp",
        "unsupported dtype I64 for op matmul", wrapped=True,
    ),
    Site(
        "index-select-float-ids",
        lambda: _ones(2, 3).index_select(_ones(2), 0),
        CANDLE, "unsupported dtype {0:?} for op {1}", f"{CORE}/cpu_backend/mod.rs", "ValueError",
        {"f0": "F32", "f1": "index-select"}, "UnsupportedDTypeForOp",
        "unsupported dtype F32 for op index-select", wrapped=True,
    ),
    Site(
        "gather-float-ids",
        lambda: _ones(2, 3).gather(_ones(2, 3), 1),
        CANDLE, "unsupported dtype {0:?} for op {1}", f"{CORE}/cpu_backend/mod.rs", "ValueError",
        {"f0": "F32", "f1": "gather"}, "UnsupportedDTypeForOp",
        "unsupported dtype F32 for op gather", wrapped=True,
    ),
    Site(
        "where-cond-float-mask",
        lambda: _ones(2, 3).where_cond(_ones(2, 3), _ones(2, 3)),
        CANDLE, "unsupported dtype {0:?} for op {1}", f"{CORE}/cpu_backend/mod.rs", "ValueError",
        {"f0": "F32", "f1": "where-cond"}, "UnsupportedDTypeForOp",
        "unsupported dtype F32 for op where-cond", wrapped=False,
    ),
    Site(
        "powf-u8",
        lambda: _ones(2, 3, dtype="u8").powf(2.0),
        CANDLE, "unsupported dtype {0:?} for op {1}", f"{CORE}/cpu_backend/mod.rs", "ValueError",
        {"f0": "U8", "f1": "elu"}, "UnsupportedDTypeForOp",
        "unsupported dtype U8 for op elu", wrapped=True,
    ),
    Site(
        "matmul-shape",
        lambda: _ones(2, 3).matmul(_ones(4, 2)),
        CANDLE, "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}", f"{CORE}/tensor.rs", "ValueError",
        {"op": "matmul", "lhs": "[2, 3]", "rhs": "[4, 2]"}, "ShapeMismatchBinaryOp",
        "shape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]", wrapped=True,
    ),
    Site(
        "broadcast-add-shape",
        lambda: _ones(2, 3) + _ones(4, 5),
        CANDLE, "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}", f"{CORE}/shape.rs", "ValueError",
        {"op": "broadcast_add", "lhs": "[2, 3]", "rhs": "[4, 5]"}, "ShapeMismatchBinaryOp",
        "shape mismatch in broadcast_add, lhs: [2, 3], rhs: [4, 5]", wrapped=True,
    ),
    Site(
        "reshape-elem-count",
        lambda: _ones(2, 3).reshape((4, 5)),
        CANDLE, "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}", f"{CORE}/tensor.rs", "ValueError",
        {"op": "reshape", "lhs": "[2, 3]", "rhs": "[4, 5]"}, "ShapeMismatchBinaryOp",
        "shape mismatch in reshape, lhs: [2, 3], rhs: [4, 5]", wrapped=True,
    ),
    Site(
        "index-select-2d-ids",
        lambda: _ones(2, 3).index_select(_ones(2, 2, dtype="u32"), 0),
        CANDLE, "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}", f"{CORE}/tensor.rs", "ValueError",
        {"op": "index-select", "lhs": "[2, 3]", "rhs": "[2, 2]"}, "ShapeMismatchBinaryOp",
        "shape mismatch in index-select, lhs: [2, 3], rhs: [2, 2]", wrapped=True,
    ),
    Site(
        "gather-shape",
        lambda: _ones(2, 3).gather(_ones(3, 3, dtype="u32"), 1),
        CANDLE, "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}", f"{CORE}/tensor.rs", "ValueError",
        {"op": "gather", "lhs": "[2, 3]", "rhs": "[3, 3]"}, "ShapeMismatchBinaryOp",
        "shape mismatch in gather, lhs: [2, 3], rhs: [3, 3]", wrapped=True,
    ),
    Site(
        "where-cond-shape",
        lambda: _ones(2, 3, dtype="u8").where_cond(_ones(2, 3), _ones(3, 3)),
        CANDLE, "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}", f"{CORE}/tensor.rs", "ValueError",
        {"op": "where_cond", "lhs": "[2, 3]", "rhs": "[3, 3]"}, "ShapeMismatchBinaryOp",
        "shape mismatch in where_cond, lhs: [2, 3], rhs: [3, 3]", wrapped=True,
    ),
    Site(
        "matmul-dtype-mismatch",
        lambda: _ones(2, 3).matmul(_ones(3, 2, dtype="f64")),
        CANDLE, "dtype mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}", f"{CORE}/storage.rs", "ValueError",
        {"op": "matmul", "lhs": "F32", "rhs": "F64"}, "DTypeMismatchBinaryOp",
        "dtype mismatch in matmul, lhs: F32, rhs: F64", wrapped=True,
    ),
    Site(
        "cat-dtype-mismatch",
        lambda: _c().cat([_ones(2, 3), _ones(2, 3, dtype="f64")], 0),
        CANDLE, "dtype mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}", f"{CORE}/tensor_cat.rs", "ValueError",
        {"op": "cat", "lhs": "F32", "rhs": "F64"}, "DTypeMismatchBinaryOp",
        "dtype mismatch in cat, lhs: F32, rhs: F64", wrapped=True,
    ),
    Site(
        "where-dtype-mismatch",
        lambda: _ones(2, 3, dtype="u8").where_cond(_ones(2, 3), _ones(2, 3, dtype="f64")),
        CANDLE, "dtype mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}", f"{CORE}/storage.rs", "ValueError",
        {"op": "where", "lhs": "F32", "rhs": "F64"}, "DTypeMismatchBinaryOp",
        "dtype mismatch in where, lhs: F32, rhs: F64", wrapped=True,
    ),
    Site(
        "broadcast-as-incompatible",
        lambda: _ones(2, 3).broadcast_as((4, 5)),
        CANDLE, "cannot broadcast {src_shape:?} to {dst_shape:?}", f"{CORE}/layout.rs", "ValueError",
        {"src_shape": "[2, 3]", "dst_shape": "[4, 5]"}, "BroadcastIncompatibleShapes",
        "cannot broadcast [2, 3] to [4, 5]", wrapped=True,
    ),
    Site(
        "narrow-past-end",
        lambda: _ones(2, 3).narrow(1, 1, 5),
        CANDLE, "narrow invalid args {msg}: {shape:?}, dim: {dim}, start: {start}, len:{len}",
        f"{CORE}/tensor.rs", "ValueError",
        {"msg": "start + len > dim_len", "dim": "1", "start": "1", "len": "5"}, "NarrowInvalidArgs",
        "narrow invalid args start + len > dim_len: [2, 3], dim: 1, start: 1, len:5", wrapped=True,
    ),
    Site(
        "cat-shape-mismatch",
        lambda: _c().cat([_ones(2, 3), _ones(2, 4)], 0),
        CANDLE,
        "shape mismatch in cat for dim {dim}, shape for arg 1: {first_shape:?} shape for arg {n}: {nth_shape:?}",
        f"{CORE}/tensor_cat.rs", "ValueError",
        {"dim": "1", "first_shape": "[2, 3]", "n": "2", "nth_shape": "[2, 4]"}, "ShapeMismatchCat",
        "shape mismatch in cat for dim 1, shape for arg 1: [2, 3] shape for arg 2: [2, 4]", wrapped=True,
    ),
    Site(
        "cat-rank-mismatch",
        lambda: _c().cat([_ones(2, 3), _ones(2, 3, 1)], 0),
        CANDLE, "unexpected rank, expected: {expected}, got: {got} ({shape:?})", f"{CORE}/tensor_cat.rs",
        "ValueError", {"expected": "2", "got": "3", "shape": "[2, 3, 1]"}, "UnexpectedNumberOfDims",
        "unexpected rank, expected: 2, got: 3 ([2, 3, 1])", wrapped=True,
    ),
    Site(
        "t-rank1",
        lambda: _ones(3).t(),
        CANDLE, "unexpected rank, expected: {expected}, got: {got} ({shape:?})", f"{CORE}/tensor.rs",
        "ValueError", {"expected": "2", "got": "1", "shape": "[3]"}, "UnexpectedNumberOfDims",
        "unexpected rank, expected: 2, got: 1 ([3])", wrapped=True,
    ),
    Site(
        "max-pool2d-rank2",
        lambda: _c().functional.max_pool2d(_ones(2, 3), 2),
        CANDLE, "unexpected rank, expected: {expected}, got: {got} ({shape:?})", f"{CORE}/shape.rs",
        "ValueError", {"expected": "4", "got": "2", "shape": "[2, 3]"}, "UnexpectedNumberOfDims",
        "unexpected rank, expected: 4, got: 2 ([2, 3])", wrapped=True,
    ),
    Site(
        "stack-empty",
        lambda: _c().stack([], 0),
        CANDLE, "{op} expects at least one tensor", f"{CORE}/tensor.rs", "ValueError",
        {"op": "stack"}, "OpRequiresAtLeastOneTensor", "stack expects at least one tensor", wrapped=True,
    ),
    Site(
        "unsqueeze-dim",
        lambda: _ones(2, 3).unsqueeze(9),
        CANDLE, "{op}: dimension index {dim} out of range for shape {shape:?}", f"{CORE}/shape.rs",
        "ValueError", {"op": "unsqueeze", "dim": "9", "shape": "[2, 3]"}, "DimOutOfRange",
        "unsqueeze: dimension index 9 out of range for shape [2, 3]", wrapped=True,
    ),
    Site(
        "transpose-dim",
        lambda: _ones(2, 3).transpose(0, 5),
        CANDLE, "{op}: dimension index {dim} out of range for shape {shape:?}", f"{CORE}/shape.rs",
        "ValueError", {"op": "transpose", "dim": "5", "shape": "[2, 3]"}, "DimOutOfRange",
        "transpose: dimension index 5 out of range for shape [2, 3]", wrapped=True,
    ),
    Site(
        "sum-keepdim-dim",
        lambda: _ones(2, 3).sum_keepdim(5),
        CANDLE, "{op}: dimension index {dim} out of range for shape {shape:?}", f"{CORE}/shape.rs",
        "ValueError", {"op": "sum", "dim": "5", "shape": "[2, 3]"}, "DimOutOfRange",
        "sum: dimension index 5 out of range for shape [2, 3]", wrapped=True,
    ),
    Site(
        "sum-keepdim-duplicate",
        lambda: _ones(2, 3).sum_keepdim([0, 0]),
        CANDLE, "{op}: duplicate dim index {dims:?} for shape {shape:?}", f"{CORE}/shape.rs", "ValueError",
        {"op": "sum", "dims": "[0, 0]", "shape": "[2, 3]"}, "DuplicateDimIndex",
        "sum: duplicate dim index [0, 0] for shape [2, 3]", wrapped=True,
    ),
    Site(
        "index-select-oob",
        lambda: _ones(2, 3).index_select(_c().tensor([7]), 0),
        CANDLE, "{op} invalid index {index} with dim size {size}", f"{CORE}/cpu_backend/mod.rs",
        "ValueError", {"op": "index-select", "index": "7", "size": "2"}, "InvalidIndex",
        "index-select invalid index 7 with dim size 2", wrapped=True,
    ),
    Site(
        "gather-oob",
        lambda: _ones(2, 3).gather(_c().tensor([[9, 0, 0], [0, 0, 0]]), 1),
        CANDLE, "{op} invalid index {index} with dim size {size}", f"{CORE}/cpu_backend/mod.rs",
        "ValueError", {"op": "gather", "index": "9", "size": "3"}, "InvalidIndex",
        "gather invalid index 9 with dim size 3", wrapped=True,
    ),
    Site(
        "max-keepdim-empty",
        lambda: _c().tensor([]).max_keepdim(0),
        CANDLE, "empty tensor for {op}", f"{CORE}/cpu_backend/mod.rs", "ValueError",
        {"op": "reduce"}, "EmptyTensor", "empty tensor for reduce", wrapped=True,
    ),
    Site(
        "to-device-cuda",
        lambda: _ones(2, 3).to_device("cuda"),
        CANDLE, "the candle crate has not been built with cuda support", f"{CORE}/dummy_cuda_backend.rs",
        "ValueError", {}, "NotCompiledWithCudaSupport",
        "the candle crate has not been built with cuda support", wrapped=False,
    ),
    # --- candle-core panics (pyo3_runtime.PanicException) -------------------------------------
    Site(
        "tanh-u8",
        lambda: _c().functional.tanh(_ones(2, 3, dtype="u8")),
        CANDLE, "no unary function for u8", f"{CORE}/op.rs", "PanicException",
        display="no unary function for u8",
    ),
    Site(
        "sqrt-u32",
        lambda: _ones(2, 3, dtype="u32").sqrt(),
        CANDLE, "no unary function for u32", f"{CORE}/op.rs", "PanicException",
        display="no unary function for u32",
    ),
    Site(
        "exp-i64",
        lambda: _ones(2, 3, dtype="i64").exp(),
        CANDLE, "no unary function for i64", f"{CORE}/op.rs", "PanicException",
        display="no unary function for i64",
    ),
    # --- candle-core bail! sites (Msg("..") in the ValueError) --------------------------------
    Site(
        "max-pool2d-kernel-too-large",
        lambda: _c().functional.max_pool2d(_ones(1, 1, 2, 2), 5),
        CANDLE, "kernel-size {kernel_size:?} is larger than the input size {h},{w}", f"{CORE}/tensor.rs",
        "ValueError", {"kernel_size": "(5, 5)", "h": "2", "w": "2"},
        display="kernel-size (5, 5) is larger than the input size 2,2", wrapped=True,
    ),
    Site(
        "quantize-block-size",
        lambda: _ones(2, 3).quantize("q4_0"),
        CANDLE, "quantized tensor must have their last dim divisible by block size {shape:?} {}",
        f"{CORE}/quantized/mod.rs", "ValueError", {"shape": "[2, 3]"},
        display="quantized tensor must have their last dim divisible by block size [2, 3] 32", wrapped=True,
    ),
    Site(
        "quantize-scalar",
        lambda: _c().tensor(1.0).quantize("q4_0"),
        CANDLE, "scalar tensor cannot be quantized {shape:?}", f"{CORE}/quantized/mod.rs", "ValueError",
        {"shape": "[]"}, display="scalar tensor cannot be quantized []", wrapped=True,
    ),
    Site(
        "tensor-ragged-list",
        lambda: _c().tensor([[1, 2], [3]]),
        CANDLE, "two elements have different shapes {shape:?} {shape0:?}", f"{CORE}/device.rs", "ValueError",
        {"shape": "[1]", "shape0": "[2]"}, display="two elements have different shapes [1] [2]", wrapped=True,
    ),
    Site(
        "tensor-empty-rows",
        lambda: _c().tensor([[], []]),
        CANDLE, "empty array", f"{CORE}/device.rs", "ValueError", display="empty array", wrapped=True,
    ),
    Site(
        "qmatmul-incompatible",
        lambda: _ones(4, 32).quantize("q8_0").matmul_t(_ones(2, 64)),
        CANDLE, "input tensor {layout:?} incompatible with {:?}", f"{CORE}/quantized/mod.rs", "ValueError",
        {}, wrapped=True,
    ),
    Site(
        "qmatmul-rank1",
        lambda: _ones(4, 32).quantize("q8_0").matmul_t(_ones(32)),
        CANDLE, "input tensor has only one dimension {layout:?}", f"{CORE}/quantized/mod.rs", "ValueError",
        {"layout": "Layout { shape: [32], stride: [1], start_offset: 0 }"}, wrapped=True,
    ),
    Site(
        "load-safetensors-missing-file",
        lambda tmp: _c().utils.load_safetensors(str(tmp / "no-such-weights.safetensors")),
        CANDLE, "Io({0:?})", f"{CORE}/error.rs", "ValueError",
        {"kind": "NotFound"}, "Io", needs_tmp=True, wrapped=False,
    ),
    Site(
        "gguf-bad-magic",
        lambda tmp: _gguf(tmp, "bad_magic.gguf", b"XXXX" + b"\0" * 20),
        CANDLE, "unknown magic 0x{value:08x}", f"{CORE}/quantized/gguf_file.rs", "ValueError",
        {"value": "58585858"}, display="unknown magic 0x58585858", needs_tmp=True, wrapped=True,
    ),
    Site(
        "gguf-bad-version",
        lambda tmp: _gguf(tmp, "bad_version.gguf", b"GGUF" + struct.pack("<I", 99) + b"\0" * 16),
        CANDLE, "gguf: unsupported magic/version {magic:?}/{version}", f"{CORE}/quantized/gguf_file.rs",
        "ValueError", {"magic": "Gguf", "version": "99"},
        display="gguf: unsupported magic/version Gguf/99", needs_tmp=True, wrapped=True,
    ),
    Site(
        "gguf-bad-value-type",
        lambda tmp: _gguf(
            tmp, "bad_value_type.gguf",
            _gguf_header(3, 0, 1) + _gguf_str("a") + struct.pack("<I", 99) + b"\0" * 8,
        ),
        CANDLE, "unrecognized value-type {v:#08x}", f"{CORE}/quantized/gguf_file.rs", "ValueError",
        {"v": "0x000063"}, display="unrecognized value-type 0x000063", needs_tmp=True, wrapped=True,
    ),
    Site(
        "gguf-bad-tensor-dtype",
        lambda tmp: _gguf(
            tmp, "bad_tensor_dtype.gguf",
            _gguf_header(3, 1, 0) + _gguf_str("a") + struct.pack("<I", 1) + struct.pack("<Q", 4)
            + struct.pack("<I", 77) + struct.pack("<Q", 0),
        ),
        CANDLE, "unknown dtype for tensor {u}", f"{CORE}/quantized/mod.rs", "ValueError",
        {"u": "77"}, display="unknown dtype for tensor 77", needs_tmp=True, wrapped=True,
    ),
    Site(
        "ggml-bad-magic",
        lambda tmp: _ggml(tmp, "bad_magic.ggml", b"XXXX" + b"\0" * 40),
        CANDLE, "unknown magic {value:08x}", f"{CORE}/quantized/ggml_file.rs", "ValueError",
        {"value": "58585858"}, display="unknown magic 58585858", needs_tmp=True, wrapped=True,
    ),
    Site(
        "ggml-bad-version",
        lambda tmp: _ggml(tmp, "bad_version.ggml", b"tjgg" + struct.pack("<I", 99) + b"\0" * 40),
        CANDLE, "ggml: unsupported magic/version {magic:?}/{version}", f"{CORE}/quantized/ggml_file.rs",
        "ValueError", {"magic": "Ggjt", "version": "99"},
        display="ggml: unsupported magic/version Ggjt/99", needs_tmp=True, wrapped=True,
    ),
    # --- candle-pyo3 bail! sites (index/dim normalisation in the binding) ----------------------
    Site(
        "narrow-dim-too-large",
        lambda: _ones(2, 3).narrow(5, 0, 1),
        CANDLE, "dimension index {dim} is too large for tensor rank {rank}", PYO3, "ValueError",
        {"dim": "5", "rank": "2"}, display="dimension index 5 is too large for tensor rank 2", wrapped=True,
    ),
    Site(
        "flatten-to-dim-too-low",
        lambda: _ones(2, 3).flatten_to(-5),
        CANDLE, "dimension index {dim} is too low for tensor rank {rank}", PYO3, "ValueError",
        {"dim": "-5", "rank": "2"}, display="dimension index -5 is too low for tensor rank 2", wrapped=True,
    ),
    Site(
        "get-index-too-large",
        lambda: _ones(2, 3).get(5),
        CANDLE, "index {index} is too large for tensor dimension {dim}", PYO3, "ValueError",
        {"index": "5", "dim": "2"}, display="index 5 is too large for tensor dimension 2", wrapped=True,
    ),
    Site(
        "narrow-index-too-low",
        lambda: _ones(2, 3).narrow(1, -7, 1),
        CANDLE, "index {index} is too low for tensor dimension {dim}", PYO3, "ValueError",
        {"index": "-7", "dim": "3"}, display="index -7 is too low for tensor dimension 3", wrapped=True,
    ),
    # --- candle-pyo3 PyErr sites ----------------------------------------------------------------
    Site(
        "to-dtype-invalid", lambda: _ones(2, 3).to_dtype("foo"),
        CANDLE, "invalid dtype '{dtype}'", PYO3, "TypeError", {"dtype": "foo"}, display="invalid dtype 'foo'",
    ),
    Site(
        "to-device-invalid", lambda: _ones(2, 3).to_device("tpu"),
        CANDLE, "invalid device '{device}'", PYO3, "TypeError", {"device": "tpu"},
    ),
    Site(
        "to-no-arguments", lambda: _ones(2, 3).to(),
        CANDLE, "No valid dtype or device specified", PYO3, "TypeError",
        display="No valid dtype or device specified",
    ),
    Site(
        "to-two-dtypes", lambda: _ones(2, 3).to(_c().f32, _c().f64),
        CANDLE, "cannot specify multiple dtypes", PYO3, "ValueError", display="cannot specify multiple dtypes",
    ),
    Site(
        "to-two-devices", lambda: _ones(2, 3).to("cpu", "cpu"),
        CANDLE, "cannot specify multiple devices", PYO3, "ValueError", display="cannot specify multiple devices",
    ),
    Site(
        "to-other-and-device", lambda: _ones(2, 3).to(_ones(1), device="cpu"),
        CANDLE, "cannot specify both an output tensor and a device", PYO3, "ValueError",
        display="cannot specify both an output tensor and a device",
    ),
    Site(
        "to-other-and-dtype", lambda: _ones(2, 3).to(_ones(1), dtype=_c().f32),
        CANDLE, "cannot specify both an output tensor and a dtype", PYO3, "ValueError",
        display="cannot specify both an output tensor and a dtype",
    ),
    Site(
        "to-two-tensors", lambda: _ones(2, 3).to(_ones(1), _ones(1)),
        CANDLE, "cannot specify multiple output tensors", PYO3, "ValueError",
        display="cannot specify multiple output tensors",
    ),
    Site(
        "to-bad-argument", lambda: _ones(2, 3).to(3.5),
        CANDLE, "unsupported argument type `{:#?}`", PYO3, "TypeError",
    ),
    Site(
        "quantize-unknown-dtype", lambda: _ones(2, 32).quantize("q9"),
        CANDLE, "unknown quantized-dtype {dt}", PYO3, "ValueError", {"dt": "q9"},
        display="unknown quantized-dtype q9",
    ),
    Site(
        "tensor-from-str", lambda: _c().tensor("abc"),
        CANDLE, "incorrect type {ty} for tensor", PYO3, "TypeError", {"ty": "<class 'str'>"},
        display="incorrect type <class 'str'> for tensor",
    ),
    Site(
        "values-rank4", lambda: _ones(1, 1, 1, 1).values(),
        CANDLE, "TODO: conversion to PyObject is not handled for rank {n}", PYO3, "TypeError", {"n": "4"},
        display="TODO: conversion to PyObject is not handled for rank 4",
    ),
    Site(
        "getitem-out-of-range", lambda: _ones(2, 3)[5],
        CANDLE, "index out of range for dimension '{i}' with indexer '{value}'", PYO3, "ValueError",
        {"i": "0", "value": "5"}, display="index out of range for dimension '0' with indexer '5'",
    ),
    Site(
        "getitem-too-many", lambda: _ones(2, 3)[0, 0, 0],
        CANDLE, "provided too many indices", PYO3, "ValueError", display="provided too many indices",
    ),
    Site(
        "getitem-late-ellipsis", lambda: _ones(2, 3)[0, ...],
        CANDLE, "Ellipsis ('...') can only be used at the start of an indexing operation", PYO3, "TypeError",
        display="Ellipsis ('...') can only be used at the start of an indexing operation",
    ),
    Site(
        "getitem-str", lambda: _ones(2, 3)["a"],
        CANDLE, "unsupported indexer {}", PYO3, "TypeError", display="unsupported indexer a",
    ),
    Site(
        "getitem-2d-tensor", lambda: _ones(2, 3)[_ones(2, 2, dtype="u32")],
        CANDLE, "multi-dimensional tensor indexing is not supported", PYO3, "TypeError",
        display="multi-dimensional tensor indexing is not supported",
    ),
    Site(
        "add-str", lambda: _ones(2, 3) + "a",
        CANDLE, "unsupported rhs for add", PYO3, "TypeError", display="unsupported rhs for add",
    ),
    Site(
        "mul-str", lambda: _ones(2, 3) * "a",
        CANDLE, "unsupported rhs for mul", PYO3, "TypeError", display="unsupported rhs for mul",
    ),
    Site(
        "sub-str", lambda: _ones(2, 3) - "a",
        CANDLE, "unsupported rhs for sub", PYO3, "TypeError", display="unsupported rhs for sub",
    ),
    Site(
        "div-str", lambda: _ones(2, 3) / "a",
        CANDLE, "unsupported rhs for div", PYO3, "TypeError", display="unsupported rhs for div",
    ),
    Site(
        "compare-str", lambda: _ones(2, 3) < "a",
        CANDLE, "unsupported rhs for __richcmp__", PYO3, "TypeError", display="unsupported rhs for __richcmp__",
    ),
    Site(
        "cat-empty", lambda: _c().cat([], 0),
        CANDLE, "empty input to cat", PYO3, "ValueError", display="empty input to cat",
    ),
    Site(
        "save-gguf-not-dict", lambda tmp: _c().utils.save_gguf(str(tmp / "x.gguf"), 3, {}),
        CANDLE, "expected a dict", PYO3, "ValueError", display="expected a dict", needs_tmp=True,
    ),
    Site(
        "save-gguf-int-key", lambda tmp: _c().utils.save_gguf(str(tmp / "x.gguf"), {}, {1: 2}),
        CANDLE, "keys must be strings", PYO3, "ValueError", display="keys must be strings", needs_tmp=True,
    ),
    Site(
        "save-gguf-bad-metadata", lambda tmp: _c().utils.save_gguf(str(tmp / "x.gguf"), {}, {"a": object()}),
        CANDLE, "unsupported type {:?}", PYO3, "ValueError", needs_tmp=True,
    ),
    Site(
        "reshape-two-holes", lambda: _ones(2, 3).reshape((-1, -1)),
        CANDLE, "Invalid dimension in shape: {:?}", "candle-pyo3/src/shape.rs", "ValueError",
        display="Invalid dimension in shape: [-1, -1]",
    ),
    # --- candle-pyo3 Python sources (candle.nn) ----------------------------------------------
    Site(
        "add-module-not-module", lambda: _module().Module().add_module("x", 3),
        CANDLE, "{str(module)} is not a Module subclass", f"{PYSRC}/nn/module.py", "TypeError",
        display="3 is not a Module subclass",
    ),
    Site(
        "add-module-name-not-str", lambda: _module().Module().add_module(3, _module().Module()),
        CANDLE, "module name should be a string. Got {name}", f"{PYSRC}/nn/module.py", "TypeError",
        {"name": "3"}, display="module name should be a string. Got 3",
    ),
    Site(
        "add-module-existing-attribute", _add_existing_attribute,
        CANDLE, "attribute '{name}' already exists", f"{PYSRC}/nn/module.py", "KeyError",
        {"name": "weight"},
    ),
    Site(
        "load-state-dict-not-mapping", lambda: _module().Linear(2, 2).load_state_dict(3),
        CANDLE, "Expected state_dict to be dict-like, got {type(state_dict)}.", f"{PYSRC}/nn/module.py",
        "TypeError", display="Expected state_dict to be dict-like, got <class 'int'>.",
    ),
    Site(
        "load-state-dict-missing-keys", lambda: _module().Linear(2, 2).load_state_dict({}),
        CANDLE, "Error(s) in loading state_dict for {}:\n\t{}", f"{PYSRC}/nn/module.py", "RuntimeError",
    ),
    Site(
        "module-to-invalid-argument", lambda: _module().Linear(2, 2).to(3),
        CANDLE, "Module.to() received an invalid combination of arguments. Got: {}", f"{PYSRC}/nn/module.py",
        "TypeError", {"args": "(3,)"},
        display="Module.to() received an invalid combination of arguments. Got: (3,)",
    ),
    Site(
        "module-to-integer-dtype", lambda: _module().Linear(2, 2).to("u8"),
        CANDLE, "candle.Module.to only accepts floating pointdtypes, but got desired dtype={}",
        f"{PYSRC}/nn/module.py", "TypeError", {"dtype": "u8"},
        display="candle.Module.to only accepts floating pointdtypes, but got desired dtype=u8",
    ),
    Site(
        "sequential-index", lambda: _module().Sequential(_module().Linear(2, 2))[5],
        CANDLE, "index {} is out of range", f"{PYSRC}/nn/container.py", "IndexError", {"idx": "5"},
        display="index 5 is out of range",
    ),
    Site(
        "sequential-times-zero", lambda: _module().Sequential(_module().Linear(2, 2)) * 0,
        CANDLE, "Non-positive multiplication factor {other} for {type(self)}", f"{PYSRC}/nn/container.py",
        "ValueError", {"other": "0"},
    ),
    Site(
        "quantized-linear-4d", _quantized_linear_4d,
        CANDLE, "'QTensor.matmul_t' is not implemented for more than 3 dimensions", f"{PYSRC}/nn/linear.py",
        "NotImplementedError", display="'QTensor.matmul_t' is not implemented for more than 3 dimensions",
    ),
]
