"""Real errors raised through ``pyburn==0.1.7`` (burn v0.18.0, NdArray backend) and their sites.

burn reports almost everything as a panic, which pyo3 turns into
``pyo3_runtime.PanicException``; Rust also prints ``thread '<unnamed>' panicked at
<file>:<line>`` to stderr, which names the site directly (for ``check!`` reports the line is
the caller in ``tensor/api/*.rs``; the ``TensorError::new`` text is in ``tensor/api/check.rs``).
pyburn's own ``PyValueError``s and ``expect`` messages are sites of KwachOjunga/wrap-burn.
A TensorCheck template is the ``TensorError::new`` description followed by its ``.details``
format string, joined by one space as the report prints them.

Run each case in its own process: a panic inside pyburn while burn's global RNG lock is held
poisons that lock, and every later random initialisation in the process then fails with
``poisoned lock: another task failed inside``.

pyburn 0.1.7's activation, pooling, interpolation and unfold modules take the wgpu tensor
type only; with no GPU adapter, cubecl-wgpu aborts the whole process (not catchable), so
those modules are not exercised here.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

from _site import Site

BURN = "tracel-ai/burn"
PYBURN = "KwachOjunga/wrap-burn"
CHECK = "crates/burn-tensor/src/tensor/api/check.rs"
NN = "crates/burn-core/src/nn"


def _nd():  # type: ignore[no-untyped-def]
    """Import pyburn only when a trigger runs, so this list loads without the binding."""
    import pyburn

    return pyburn.ndarray


def _ones(*shape: int):  # type: ignore[no-untyped-def]
    return _nd().ndarray_tensor.TensorPy.ones(list(shape), len(shape))


def _nn():  # type: ignore[no-untyped-def]
    return _nd().ndarray_nn


def _install_logger_twice(tmp: Path) -> None:
    installer = _nd().ndarray_train.FileApplicationLoggerInstallerPy
    installer(str(tmp / "first.log")).install()
    installer(str(tmp / "second.log")).install()


def _padding_mask_zero_length():  # type: ignore[no-untyped-def]
    return _nn().attention.GeneratePaddingMaskPy(0, [[1, 2, 3, 4, 5]], 0)


CASES: List[Site] = [
    # --- burn-tensor TensorCheck reports (check! panics) -------------------------------------
    Site(
        "ones-rank-mismatch", lambda: _nd().ndarray_tensor.TensorPy.ones([2, 3], 3),
        BURN, "Given dimensions differ from the tensor rank. Tensor rank: '{D}', given dimensions: '{dims:?}'.",
        CHECK, "PanicException", {"D": "3", "dims": "[2, 3]"},
    ),
    Site(
        "add-incompatible-shapes", lambda: _ones(2, 3).add(_ones(4, 5)),
        BURN, "The provided tensors have incompatible shapes. Incompatible size at dimension '{}' => '{} != {}', "
        "which can't be broadcasted. Lhs tensor shape {:?}, Rhs tensor shape {:?}.", CHECK, "PanicException",
        {"lhs": "[2, 3]", "rhs": "[4, 5]"},
    ),
    Site(
        "sum-dim-out-of-range", lambda: _ones(2, 3).sum_dim(5),
        BURN, "Can't aggregate a tensor with ({D}) dimensions on axis ({dim})", CHECK, "PanicException",
        {"D": "2", "dim": "5"},
    ),
    Site(
        "instance-norm-reshape", lambda: _nn().InstanceNormPy(4).forward(_ones(2, 6, 3)),
        BURN, "The given shape doesn't have the same number of elements as the current tensor. "
        "Current shape: {:?}, target shape: {:?}.", CHECK,
        "PanicException", {"current": "[2, 6, 3]", "target": "[2, 4, 4]"},
    ),
    Site(
        "gru-matmul-inner-dim", lambda: _nn().gru.GruPy(4, 3, True).forward(_ones(2, 5, 5), None),
        BURN, "The inner dimension of matmul should be the same, but got {dim_lhs} and {dim_rhs}. "
        "Lhs shape {:?}, rhs shape {:?}.", CHECK,
        "PanicException", {"dim_lhs": "5", "dim_rhs": "4"},
    ),
    Site(
        "prelu-channels", lambda: _nn().PReluPy(4).forward(_ones(2, 5)),
        BURN,
        "Number of channels in input tensor and  number of weights must be equal "
        "Got no. of channels: {channels}, no. of weights: {num_weights}",
        CHECK, "PanicException", {"channels": "5", "num_weights": "4"},
    ),
    Site(
        "prelu-channels-1d", lambda: _nn().PReluPy(4).forward(_ones(5)),
        BURN,
        "Number of channels in input tensor and  number of weights must be equal "
        "Got no. of channels: 1, no. of weights: {}",
        CHECK, "PanicException", {"weights": "4"},
    ),
    Site(
        "conv2d-input-channels", lambda: _nn().conv.Conv2dPy([4, 6], [3, 3]).forward(_ones(1, 3, 8, 8)),
        BURN,
        "Number of channels in input tensor and input channels of convolution must be equal. "
        "got: {channels}, expected: {expected}",
        CHECK, "PanicException", {"channels": "3", "expected": "4"},
    ),
    Site(
        "conv-transpose2d-input-channels",
        lambda: _nn().conv.ConvTranspose2dPy([4, 6], [3, 3]).forward(_ones(1, 3, 8, 8)),
        BURN,
        "Number of channels in input tensor and input channels of convolution must be equal. "
        "got: {channels}, expected: {expected}",
        CHECK, "PanicException", {"channels": "3", "expected": "4"},
    ),
    Site(
        "padding-mask-zero-length", _padding_mask_zero_length,
        BURN, "The provided ranges array has a range where the start index is bigger or equal to its end. "
        "The range at dimension '{}' starts at '{}' and is greater or equal to its end '{}'. "
        "Current tensor shape {:?}, value tensor shape {:?}, provided ranges {:?}.",
        CHECK, "PanicException",
    ),
    # --- burn-ndarray panics --------------------------------------------------------------
    Site(
        "linear-input-features", lambda: _nn().LinearPy(4, 3).forward(_ones(2, 5)),
        BURN, "Dimensions are incompatible for matrix multiplication.", "crates/burn-ndarray/src/ops/matmul.rs",
        "PanicException", display="Dimensions are incompatible for matrix multiplication.",
    ),
    Site(
        "linear-1d-reshape", lambda: _nn().LinearPy(4, 3).forward(_ones(5)),
        BURN, "Shape should be compatible shape={dim:?}: {err:?}", "crates/burn-ndarray/src/tensor.rs",
        "PanicException", {"dim": "[1, 4]"},
    ),
    # --- burn-core nn configuration and forward checks -------------------------------------
    Site(
        "group-norm-groups", lambda: _nn().GroupNormPy(3, 4),
        BURN, "The number of channels must be divisible by the number of groups", f"{NN}/norm/group.rs",
        "PanicException",
    ),
    Site(
        "group-norm-input-channels", lambda: _nn().GroupNormPy(2, 4).forward(_ones(2, 6, 3)),
        BURN,
        "The number of channels in the input tensor should be equal to the number of channels in the "
        "GroupNorm module. Expected {}, got {}",
        f"{NN}/norm/group.rs", "PanicException",
        display="The number of channels in the input tensor should be equal to the number of channels in the "
        "GroupNorm module. Expected 4, got 6",
    ),
    Site(
        "positional-encoding-too-long", lambda: _nn().PositionalEncodingPy(4, 10).forward(_ones(2, 20, 4)),
        BURN, "max_sequence_size({max_sequence_size}) must be greater or equal than length({seq_length})",
        f"{NN}/pos_encoding.rs", "PanicException", {"max_sequence_size": "10", "seq_length": "20"},
        display="max_sequence_size(10) must be greater or equal than length(20)",
    ),
    Site(
        "positional-encoding-d-model", lambda: _nn().PositionalEncodingPy(4, 10).forward(_ones(2, 5, 6)),
        BURN, "d_model({d_model_input}) of the input must be equal to d_model of encoding({d_model})",
        f"{NN}/pos_encoding.rs", "PanicException", {"d_model_input": "6", "d_model": "4"},
        display="d_model(6) of the input must be equal to d_model of encoding(4)",
    ),
    Site(
        "positional-encoding-odd", lambda: _nn().PositionalEncodingPy(5, 10),
        BURN, "d_model must be even", f"{NN}/pos_encoding.rs", "PanicException", display="d_model must be even",
    ),
    Site(
        "rotary-encoding-odd", lambda: _nn().RotaryEncodingPy(10, 5),
        BURN, "The input embedding dimension must be even", f"{NN}/rope_encoding.rs", "PanicException",
    ),
    Site(
        "rotary-encoding-theta", lambda: _nn().RotaryEncodingPy(10, 4, theta=-1.0),
        BURN, "Theta parameter must be positive (default: 10000).", f"{NN}/rope_encoding.rs", "PanicException",
        display="Theta parameter must be positive (default: 10000).",
    ),
    Site(
        "rotary-encoding-1d", lambda: _nn().RotaryEncodingPy(10, 4).forward(_ones(4)),
        BURN, "Input tensor must have at least 2 dimensions for sequence length and hidden dimension",
        f"{NN}/rope_encoding.rs", "PanicException",
        display="Input tensor must have at least 2 dimensions for sequence length and hidden dimension",
    ),
    Site(
        "rms-norm-epsilon", lambda: _nn().RmsNormPy(4, eps=0.0),
        BURN, "epsilon must be positive.", f"{NN}/norm/rms.rs", "PanicException",
        display="epsilon must be positive.",
    ),
    Site(
        "conv2d-groups", lambda: _nn().conv.Conv2dPy([4, 6], [3, 3], groups=4),
        BURN,
        "Both channels must be divisible by the number of groups. Got channels_in={channels_in}, "
        "channels_out={channels_out}, groups={groups}",
        f"{NN}/conv/checks.rs", "PanicException", {"channels_in": "4", "channels_out": "6", "groups": "4"},
        display="Both channels must be divisible by the number of groups. Got channels_in=4, channels_out=6, groups=4",
    ),
    Site(
        "conv2d-same-padding-even-kernel",
        lambda: _nn().conv.Conv2dPy([4, 6], [2, 2], padding=_nn().PaddingConfig2dPy.same),
        BURN, "Same padding with an even kernel size is not supported", f"{NN}/conv/checks.rs", "PanicException",
    ),
    Site(
        "dropout-probability", lambda: _nn().transformer.PositionWiseFeedForwardPy(8, 16, dropout=2.0),
        BURN, "Dropout probability should be between 0 and 1, but got {}", f"{NN}/dropout.rs", "PanicException",
        display="Dropout probability should be between 0 and 1, but got 2",
    ),
    Site(
        "orthogonal-init-bias",
        lambda: _nn().LinearPy(4, 3, True, _nn().Initializer.Orthogonal(1.0)).forward(_ones(2, 4)),
        BURN, "Expected D (in Tensor<B, D>) to be greater or equal 2; (D >= 2)", f"{NN}/initializer.rs",
        "PanicException", display="Expected D (in Tensor<B, D>) to be greater or equal 2; (D >= 2)",
    ),
    Site(
        "conv2d-stride-zero",
        lambda: _nn().conv.Conv2dPy([4, 6], [3, 3], stride=[0, 0]).forward(_ones(1, 4, 8, 8)),
        BURN, "stride must be non-zero", "crates/burn-tensor/src/tensor/ops/modules/base.rs", "PanicException",
        display="stride must be non-zero",
    ),
    Site(
        "conv2d-dilation-zero",
        lambda: _nn().conv.Conv2dPy([4, 6], [3, 3], dilation=[0, 0]).forward(_ones(1, 4, 8, 8)),
        BURN, "dilation must be non-zero", "crates/burn-tensor/src/tensor/ops/modules/base.rs", "PanicException",
        display="dilation must be non-zero",
    ),
    # --- burn-train -----------------------------------------------------------------------
    Site(
        "file-logger-installed-twice", _install_logger_twice,
        BURN, "Failed to install the file logger.", "crates/burn-train/src/learner/application_logger.rs",
        "PanicException", needs_tmp=True,
    ),
    # --- pyburn (wrap-burn) own errors ------------------------------------------------------
    Site(
        "pyburn-add-rank-mismatch", lambda: _ones(2, 3).add(_ones(4)),
        PYBURN, "expected 2 dim tensor", "src/tensor/ndarray_base.rs", "PanicException",
    ),
    Site(
        "pyburn-add-3d-to-2d", lambda: _ones(2, 2, 2).add(_ones(2, 2)),
        PYBURN, "expected 3 dim tensor", "src/tensor/ndarray_base.rs", "PanicException",
    ),
    Site(
        "pyburn-sub-2d-from-1d", lambda: _ones(2).sub(_ones(2, 2)),
        PYBURN, "expected 1 dim tensor", "src/tensor/ndarray_base.rs", "PanicException",
    ),
    Site(
        "pyburn-tensor-rank-6", lambda: _nd().ndarray_tensor.TensorPy.ones([2, 3, 1, 1, 1, 1], 6),
        PYBURN, "Check input tensor dimensions", "src/tensor/tensor_error.rs", "ValueError",
        display="Check input tensor dimensions",
    ),
    Site(
        "pyburn-linear-bool-input", lambda: _nn().LinearPy(4, 3).forward(_ones(2, 4).is_nan()),
        PYBURN, "Method does not apply to this Tensor", "src/tensor/tensor_error.rs", "ValueError",
        display="Method does not apply to this Tensor",
    ),
]
