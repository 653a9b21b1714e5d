"""Real errors for the computed advice (``errhint.advice``): one script per case, run by
``advice_runner.py`` in a fresh interpreter per RUST_BACKTRACE value.

Each case: ``(id, script, expected fix code or None, substrings the computed text must hold)``.
The script's last statement raises; sizes differ between cases and from the sizes old canned
texts used, so a canned value cannot pass.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

Case = Tuple[str, str, Optional[str], Tuple[str, ...]]

C = "import candle\n"
NN = "import candle\nimport candle.nn as nn\n"
PB = "import pyburn\nTensorPy = pyburn.ndarray.ndarray_tensor.TensorPy\n"

CASES: List[Case] = [
    ("matmul-transpose-rhs", C + "x = candle.randn((5, 7))\nw = candle.randn((6, 7))\ny = x.matmul(w)",
     "y = x.matmul(w.t())", ("[5, 7]", "[6, 7]", "is 7", "is 6", "[5, 6]")),
    ("matmul-transpose-lhs", C + "x = candle.randn((7, 5))\nw = candle.randn((7, 6))\ny = x.matmul(w)",
     "y = x.t().matmul(w)", ("[7, 5]", "[5, 6]")),
    ("matmul-3d-transpose", C + "q = candle.randn((2, 9, 8))\nk = candle.randn((2, 9, 8))\ns = q.matmul(k)",
     "s = q.matmul(k.transpose(1, 2))", ("[2, 9, 9]",)),
    ("matmul-vector", C + "x = candle.randn((5, 7))\nv = candle.randn((7,))\ny = x.matmul(v)",
     "y = x.matmul(v.unsqueeze(1)).squeeze(1)", ("1-D", "[5]")),
    ("matmul-dot", C + "u = candle.randn((6,))\nv = candle.randn((6,))\ns = u.matmul(v)",
     "s = (u * v).sum_all()", ("1-D", "two vectors of 6")),
    ("matmul-rank3-by-2d", C + "x = candle.randn((4, 5, 7))\nw = candle.randn((7, 6))\ny = x.matmul(w)",
     "y = x.reshape((20, 7)).matmul(w).reshape((4, 5, 6))", ("3-D", "[4, 5, 6]")),
    ("matmul-no-fit", C + "x = candle.randn((5, 7))\nw = candle.randn((6, 8))\ny = x.matmul(w)",
     None, ("is 7", "is 6", "No transpose")),
    ("matmul-u32", C + "a = candle.Tensor([[1, 2], [3, 4]])\ny = a.matmul(a)",
     "y = a.to_dtype(candle.f32).matmul(a.to_dtype(candle.f32))", ("U32", "F16, F32, F64")),
    ("add-transposed", C + "a = candle.randn((5, 7))\nb = candle.randn((7, 5))\nc = a + b",
     "c = a + b.t()", ("axis 0: 5 vs 7",)),
    ("div-missing-axis", C + "x = candle.randn((5, 6, 7))\nnorm = candle.randn((5, 7))\ny = x / norm",
     "y = x / norm.unsqueeze(1)", ("[5, 1, 7]",)),
    ("mul-no-fit", C + "a = candle.randn((5, 7))\nb = candle.randn((6, 7))\nc = a.broadcast_mul(b)",
     None, ("axis 0: 5 vs 6",)),
    ("broadcast-as-column", C + "v = candle.randn((9,))\ne = v.broadcast_as((9, 11))",
     "e = v.unsqueeze(1).broadcast_as((9, 11))", ("[9, 1]",)),
    ("cat-axis", C + "a = candle.randn((5, 7))\nb = candle.randn((5, 6))\nc = candle.cat([a, b], 0)",
     "c = candle.cat([a, b], 1)", ("axis 1", "[5, 13]")),
    ("stack-transposed", C + "a = candle.randn((6, 9))\nb = candle.randn((9, 6))\ns = candle.stack([a, b], 0)",
     "s = candle.stack([a, b.t()], 0)", ("[6, 9]", "[9, 6]")),
    ("reshape-one-axis", C + "a = candle.randn((5, 6))\nb = a.reshape((7, 5))",
     "b = a.reshape((6, 5))", ("30 elements", "35")),
    ("reshape-heads", C + "x = candle.randn((6, 20))\nheads = x.reshape((6, 4, 6))",
     "heads = x.reshape((6, 4, 5))", ("120 elements", "144")),
    ("get-past-end", C + "rows = candle.randn((6, 5))\nlast = rows.get(6)", "last = rows.get(5)", ("0 to 5", "-6 to -1")),
    ("unary-module-function", C + "from candle import functional as F\nx = candle.ones((7, 5), dtype=candle.u8)\ny = F.tanh(x)",
     "y = F.tanh(x.to_dtype(candle.f32))", ("U8",)),
    ("getitem-past-end", C + "batch = candle.randn((8, 5))\nsample = batch[8]", "sample = batch[7]", ("size 8", "0 to 7")),
    ("narrow-len", C + "a = candle.randn((5, 6))\nb = a.narrow(1, 4, 5)",
     "b = a.narrow(1, 4, 2)", ("4 + 5 = 9", "6")),
    ("narrow-dim", C + "x = candle.randn((7, 5))\npart = x.narrow(2, 0, 6)",
     "part = x.narrow(0, 0, 6)", ("2 axes", "pass 0 (or -2)")),
    ("index-out-of-range", C + "a = candle.randn((5, 6))\nb = a.index_select(candle.Tensor([1, 9]), 0)",
     None, ("index 9", "0 to 4")),
    ("embedding-out-of-range", NN + "emb = nn.Embedding(7, 4)\ny = emb(candle.Tensor([[1, 11]]))",
     None, ("7 rows", "Embedding(12")),
    ("sum-dim", C + "a = candle.randn((5, 6))\nb = a.sum_keepdim(7)", "b = a.sum_keepdim(1)", ("0 to 1",)),
    ("squeeze-dim", C + "a = candle.randn((5, 1, 6))\nb = a.squeeze(4)", "b = a.squeeze(1)", ("-3 to -1",)),
    ("squeeze-no-size-1", C + "a = candle.randn((5, 6))\nb = a.squeeze(4)", None, ("-2 to -1",)),
    ("unsqueeze-dim", C + "a = candle.randn((5, 6))\nb = a.unsqueeze(4)", "b = a.unsqueeze(2)", ("0 to 2",)),
    ("dtype-add", C + "a = candle.randn((5, 6))\nb = candle.randn((5, 6)).to_dtype(candle.f64)\nc = a + b",
     "c = a + b.to_dtype(candle.f32)", ("F32", "F64")),
    ("dtype-linear-int", NN + "lin = nn.Linear(6, 2)\nx = candle.Tensor([[1, 2, 3, 4, 5, 6]])\ny = lin(x)",
     "y = lin(x.to_dtype(candle.f32))", ("U32", "F32")),
    ("dtype-ids", C + "x = candle.randn((5, 6))\nids = candle.Tensor([1.0, 2.0])\ny = x.index_select(ids, 0)",
     "y = x.index_select(ids.to_dtype(candle.u32), 0)", ("U8, U32 or I64",)),
    ("dtype-unary", C + "x = candle.Tensor([[1, -2, 3]])\ny = x.exp()", "y = x.to_dtype(candle.f32).exp()", ("I64",)),
    ("dtype-unary-sqrt", C + "x = candle.Tensor([[1, 4]])\ny = x.sqrt()", "y = x.to_dtype(candle.f32).sqrt()", ("U32",)),
    ("dtype-unary-recip", C + "x = candle.Tensor([[1, 4]])\ny = x.recip()", "y = x.to_dtype(candle.f32).recip()", ("U32",)),
    ("rank-pool", C + "import candle.functional as F\nimg = candle.randn((9, 9))\npooled = F.avg_pool2d(img, 3)",
     "pooled = F.avg_pool2d(img.reshape((1, 1, 9, 9)), 3)", ("4-D", "`img.reshape((1, 1, 9, 9))`")),
    ("linear-in-features", NN + "lin = nn.Linear(6, 2)\nx = candle.randn((3, 5))\ny = lin(x)",
     None, ("is 6", "Linear(5, 2)")),
    ("pyburn-ones-rank", PB + "a = TensorPy.ones([5, 7], 4)", "a = TensorPy.ones([5, 7], 2)", ("[5, 7]", "says 4")),
    ("pyburn-sum-dim", PB + "a = TensorPy.ones([5, 7, 2], 3)\nb = a.sum_dim(8)", "b = a.sum_dim(2)", ("3 axes", "0 to 2")),
    ("pyburn-conv-groups", PB + "nn = pyburn.ndarray.ndarray_nn\nconv = nn.conv.Conv2dPy([6, 9], [3, 3], groups=4)",
     "conv = nn.conv.Conv2dPy([6, 9], [3, 3], groups=3)", ("1, 3", "groups=3")),
    ("pyburn-add", PB + "a = TensorPy.ones([5, 7], 2)\nb = TensorPy.ones([7, 5], 2)\nc = a.add(b)",
     None, ("axis 0: 5 vs 7", "TensorPy.ones([5, 7], 2)")),
    ("dtype-name", C + "x = candle.randn((4, 9))\ny = x.to_dtype('float16')", "y = x.to_dtype(candle.f16)",
     ("'float16'", "`candle.f16`")),
    ("dtype-name-unknown", C + "x = candle.randn((4, 9))\ny = x.to_dtype('complex64')", None, ("'complex64'", "f64")),
    ("index-select-other-axis", C + "x = candle.randn((4, 13))\nids = candle.Tensor([2, 10])\ny = x.index_select(ids, 0)",
     "y = x.index_select(ids, 1)", ("index 10", "size 4", "Axis 1 (size 13)")),
    ("pyburn-group-norm", PB + "nn = pyburn.ndarray.ndarray_nn\nnorm = nn.GroupNormPy(7, 18)",
     "norm = nn.GroupNormPy(6, 18)", ("18 % 7 = 4", "1, 2, 3, 6, 9, 18", "Use 6 groups")),
    ("pyburn-rms-eps", PB + "nn = pyburn.ndarray.ndarray_nn\nnorm = nn.RmsNormPy(10, eps=-0.25)",
     "norm = nn.RmsNormPy(10)", ("eps=-0.25", "1e-05")),
    ("pyburn-rotary-theta", PB + "nn = pyburn.ndarray.ndarray_nn\nrope = nn.RotaryEncodingPy(32, 12, theta=0.0)",
     "rope = nn.RotaryEncodingPy(32, 12)", ("theta=0.0", "10000.0")),
    ("pyburn-dropout", PB + "nn = pyburn.ndarray.ndarray_nn\nff = nn.transformer.PositionWiseFeedForwardPy(10, 20, dropout=-0.5)",
     "ff = nn.transformer.PositionWiseFeedForwardPy(10, 20)", ("dropout=-0.5", "between 0 and 1")),
]
