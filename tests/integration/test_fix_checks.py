"""The fix harness's own checks catch what they are for (``fixes/_values.py``, ``fixes/_api.py``).

The inputs are the hint texts errhint 0.1 gave for these errors (issue 16), and the real
binding objects a fix would be resolved against.
"""

from __future__ import annotations

import pytest
from _site import require_binding

import _fixes  # noqa: F401  (puts fixes/ on sys.path)
import _api
import _values

pytestmark = pytest.mark.integration

MATMUL_ERROR = 'ShapeMismatchBinaryOp { lhs: [5, 7], rhs: [6, 7], op: "matmul" }'
MATMUL_SCRIPT = "x = candle.randn((5, 7))\nw = candle.randn((6, 7))\ny = x.matmul(w)\n"


def test_canned_example_shapes_are_foreign() -> None:
    allowed = _values.allowed_numbers(MATMUL_ERROR, MATMUL_SCRIPT)
    canned = "`x.matmul(w)` with `x` of shape (2, 5, 3) and `w` of shape (3, 4): a 3-D activation times a 2-D weight."
    assert 3 in _values.foreign_numbers([canned], allowed)


def test_values_computed_from_the_error_are_allowed() -> None:
    allowed = _values.allowed_numbers(MATMUL_ERROR, MATMUL_SCRIPT)
    computed = "`x` is [5, 7] and `w.t()` is [7, 6]: `x.matmul(w.t())` gives [5, 6]; the last axis is 1 or -1, 35 elements."
    assert _values.foreign_numbers([computed], allowed) == []
    narrow = _values.allowed_numbers("NarrowInvalidArgs { shape: [9, 6], dim: 0, start: 5, len: 7 }", "")
    assert 4 in narrow  # 9 - 5 rows remain


def test_backtrace_numbers_are_not_the_users() -> None:
    wrapped = "WithBacktrace { inner: DimOutOfRange { shape: [5, 6], dim: 3 }, backtrace: Backtrace [{ fn: \"x\", line: 1517 }] }"
    assert 1517 not in _values.allowed_numbers(wrapped, "")


def test_user_values_and_dtypes_are_recognised() -> None:
    distinctive = _values.distinctive_values("x = candle.ones((6, 5), dtype=candle.i64)\ny = x.sqrt()\n")
    assert distinctive == {"6", "5", "i64"}
    assert _values.values_shown("unsupported dtype I64 for op matmul", distinctive) == ["i64"]
    assert _values.values_shown("cast to f32 (16-bit is not enough)", distinctive) == []


def test_rust_is_told_from_python() -> None:
    assert _api.looks_like_rust("bias.unsqueeze::<2>()")
    assert _api.looks_like_rust("t.to_dtype(DType::F32)?.exp()?")
    assert not _api.looks_like_rust("x.to_dtype(candle.f32).exp()")


def test_names_the_candle_binding_lacks_are_reported() -> None:
    require_binding("candle")
    import candle

    namespace = {"candle": candle, "x": candle.ones((5, 7)), "ids": candle.tensor([1, 2])}
    assert _api.unknown_names("y = x.float()", "candle", namespace) == ["x.float"]
    assert _api.unknown_names("ids.max() < 10", "candle", namespace) == ["ids.max"]
    assert _api.unknown_names("candle.nn.Linear(7, 3)(x).t().contiguous()", "candle", namespace) == []
    assert _api.unknown_names("x.t().float()", "candle", namespace) == ["<expr>.float"]
    assert _api.unknown_names("y = broadcast_matmul(x, x)", "candle", namespace) == ["broadcast_matmul"]
    assert _api.unknown_names("import os\nos.path.exists('w.safetensors')", "candle", namespace) == []


def test_names_the_pyburn_binding_lacks_are_reported() -> None:
    require_binding("pyburn")
    import pyburn

    tensor = pyburn.ndarray.ndarray_tensor.TensorPy
    namespace = {"TensorPy": tensor, "a": tensor.ones([5, 7], 2), "nn": pyburn.ndarray.ndarray_nn}
    assert _api.unknown_names("c = a.add(TensorPy.ones([5, 7], 2))", "pyburn", namespace) == []
    assert _api.unknown_names("c = a.transpose().add(a)", "pyburn", namespace) == ["a.transpose"]
    assert _api.unknown_names("layer = nn.Linear(7, 3)", "pyburn", namespace) == ["nn.Linear"]
