"""Axis arguments out of range: candle ``DimOutOfRange { shape, dim, op }``, the binding's
``dimension index {dim} is too large/low for tensor rank {rank}``, and burn's
``Can't aggregate a tensor with ({D}) dimensions on axis ({dim})`` (pyburn ``sum_dim`` ...), and the
Rust panics that pyburn's ``*_dim`` methods reach with an axis burn 0.18 does not check (records
``onlyVia`` those methods: ``index out of bounds: the len is {rank} ...``, ndarray's assertion)."""

from __future__ import annotations

import ast

from typing import Optional

from errhint.advice.base import Advice, Context, const_int
from errhint.advice.values import fmt

NEGATIVE_OK = frozenset({
    "index_select", "gather", "squeeze", "narrow", "argmax_keepdim", "argmin_keepdim", "max_keepdim",
    "min_keepdim", "flatten_from", "flatten_to", "cat", "softmax",
})
"""candle-nn 0.4.2 functions and methods whose dim argument is an ``i64`` (negative counts from
the end); the others take an unsigned dim (candle-pyo3/src/lib.rs at 0.4.2)."""

INSERTING = frozenset({"unsqueeze", "stack"})
"""Ops whose dim may equal the rank (a new axis at the end)."""


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        f = node.func
        return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return ""


def _narrow_axis(site, call: ast.Call, rank: int, top: int) -> Optional[int]:  # type: ignore[no-untyped-def]
    """For ``x.narrow(dim, start, len)``: the last axis where ``start + len`` fits, when the
    receiver's shape can be read (a name); None when no axis fits or it cannot be told."""
    if not isinstance(call.func, ast.Attribute) or len(call.args) != 3:
        return None
    shape = site.tensor_shape(call.func.value)
    start, length = const_int(call.args[1]), const_int(call.args[2])
    if shape is None or start is None or length is None or len(shape) != rank:
        return None
    fits = [i for i in range(rank) if start + length <= shape[i]]
    return fits[-1] if fits else None


def _squeeze_axis(site, call: ast.Call, rank: int) -> Optional[int]:  # type: ignore[no-untyped-def]
    """For ``x.squeeze(dim)``: the last axis of size 1 of the receiver (a name), else None
    (candle's squeeze leaves an axis of another size in place)."""
    if not isinstance(call.func, ast.Attribute):
        return None
    shape = site.tensor_shape(call.func.value)
    if shape is None or len(shape) != rank:
        return None
    ones = [i for i, d in enumerate(shape) if d == 1]
    return ones[-1] if ones else None


UNCHECKED_AXIS = "axis.index() < self.ndim()"
"""The ndarray crate's assertion that pyburn's ``sum_dim``/``prod_dim`` reach with an axis equal to
the rank (burn 0.18's ``aggregate_dim`` check stops a greater one): the text carries no number."""


def _axis_argument(ctx: Context) -> Optional[int]:
    """The failing call's one axis argument (a literal, or a name bound to an int), else None."""
    site = ctx.site
    call = site.node if site is not None and isinstance(site.node, ast.Call) else None
    if call is None or len(call.args) != 1 or call.keywords:
        return None
    value = const_int(call.args[0])
    if value is None:
        bound = site.value(call.args[0])
        value = bound if type(bound) is int else None
    return value


def advise(ctx: Context) -> Optional[Advice]:
    values = ctx.values
    shape = ctx.shape("shape")
    dim = ctx.int("dim")
    if dim is None and UNCHECKED_AXIS in ctx.message and ctx.binding == "pyburn":
        dim = _axis_argument(ctx)
        if dim is None or dim < 1:
            return None
        rank = dim
        what = (f"the tensor has {rank} axes (burn 0.18 stops a larger axis before this point, so the axis "
                "passed equals the rank)")
    elif dim is None:
        return None
    elif shape is not None and "op" in values and "start" not in values:
        rank = len(shape)
        what = f"{ctx.op}: shape {fmt(shape)} has {rank} axes"
    elif ctx.int("rank") is not None and any(w in ctx.message for w in ("too large", "too low", "index out of bounds")):
        rank = ctx.int("rank")
        what = f"the tensor has {rank} axes"
    elif ctx.int("D") is not None and "aggregate" in ctx.message:
        rank = ctx.int("D")
        what = f"{ctx.op or 'the reduction'}: the tensor has {rank} axes"
    else:
        return None
    site = ctx.site
    call = site.node if site is not None and not site.deeper and isinstance(site.node, ast.Call) else None
    method = _call_name(call) if call is not None else (ctx.op if ctx.binding == "candle" else "")
    top = rank if (method in INSERTING or ctx.op in INSERTING) else rank - 1
    if top < 0:
        return None
    valid = f"0 to {top}"
    if ctx.binding == "candle" and method in NEGATIVE_OK:
        valid += f", or -{rank} to -1 counting from the end"
    cause = f"Axis {dim} does not exist: {what}, so valid axes are {valid}."
    code = None
    if call is not None:
        hits = [i for i, a in enumerate(call.args) if const_int(a) == dim]
        if method == "narrow":
            top = _narrow_axis(site, call, rank, top)
        elif method == "squeeze":
            top = _squeeze_axis(site, call, rank)
        if len(hits) == 1 and top is not None:
            args = [ast.unparse(a) for a in call.args]
            args[hits[0]] = str(top)
            args += [ast.unparse(k) for k in call.keywords]
            head = ast.unparse(call.func)
            code = site.rewrite(f"{head}({', '.join(args)})")
    if top is None:
        return Advice(cause, "", None, ctx.language)
    last = "the new last axis" if top == rank else "the last axis"
    fix = f"If you meant {last}, pass {top}"
    if method == "narrow" and call is not None:
        fix = f"Axis {top} is the last one long enough for this window: pass {top}"
    elif method == "squeeze" and call is not None:
        fix = f"Axis {top} is the last axis of size 1 (squeeze removes only such an axis): pass {top}"
    if ctx.binding == "candle" and method in NEGATIVE_OK and top < rank:
        fix += f" (or {top - rank})"
    return Advice(cause, fix + ".", code, ctx.language)
