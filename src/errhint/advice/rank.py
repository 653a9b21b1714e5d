"""Rank mismatches: burn's ``Given dimensions differ from the tensor rank`` (pyburn
``TensorPy.ones(shape, rank)``) and candle ``UnexpectedNumberOfDims { expected, got, shape }``."""

from __future__ import annotations

import ast

from typing import Optional, Tuple

from errhint.advice.base import Advice, Context, const_int
from errhint.advice import callsite
from errhint.advice.values import fmt, py_shape

CREATORS = frozenset({"ones", "zeros", "random", "empty"})


def advise(ctx: Context) -> Optional[Advice]:
    dims, rank = ctx.shape("dims"), ctx.int("D")
    if dims is not None and rank is not None and "rank" in ctx.message:
        cause = (f"The shape {fmt(dims)} has {len(dims)} axes but the rank argument says {rank}; "
                 f"they must agree.")
        code = None
        site = ctx.site
        call = site.node if site is not None and not site.deeper and isinstance(site.node, ast.Call) else None
        if call is not None and isinstance(call.func, ast.Attribute) and call.func.attr in CREATORS:
            hits = [i for i, a in enumerate(call.args) if i > 0 and const_int(a) == rank]
            if len(hits) == 1:
                args = [ast.unparse(a) for a in call.args]
                args[hits[0]] = str(len(dims))
                code = site.rewrite(f"{ast.unparse(call.func)}({', '.join(args)})")
        fix = (f"Pass the rank {len(dims)} with {fmt(dims)}: `TensorPy.ones({fmt(dims)}, {len(dims)})`."
               if ctx.binding == "pyburn" else
               f"Use a rank-{len(dims)} tensor type for {fmt(dims)} (`Tensor::<B, {len(dims)}>`).")
        return Advice(cause, fix, code, ctx.language)
    expected, got, shape = ctx.int("expected"), ctx.int("got"), ctx.shape("shape")
    if expected is None or got is None or shape is None or got != len(shape):
        return None
    cause = f"The op expects a {expected}-D tensor and got the {got}-D {fmt(shape)}."
    if expected > got:
        new = [1] * (expected - got) + shape
        how = f"add {expected - got} leading size-1 ax{'is' if expected - got == 1 else 'es'}"
    elif all(d == 1 for d in shape[: got - expected]):
        new = shape[got - expected:]
        how = f"drop the {got - expected} leading size-1 ax{'is' if got - expected == 1 else 'es'}"
    else:
        return Advice(cause, f"Give the input {expected} axes before the call.", None, ctx.language)
    code, name = _reshaped(ctx, shape, new)
    fix = (f"If the missing axes are batch/channel axes, {how}: "
           f"{ctx.code(f'{name}.reshape({py_shape(new)})', f'{name}.reshape({py_shape(new)})?')} gives {fmt(new)}.")
    return Advice(cause, fix, code, ctx.language)


def _reshaped(ctx: Context, shape: list, new: list) -> Tuple[Optional[str], str]:
    """The failing call with the one tensor of ``shape`` among its receiver and arguments
    (names only, read from the frame) reshaped to ``new``, and that tensor's expression
    (``x`` when it cannot be told)."""
    site = ctx.site
    call = site.node if site is not None and not site.deeper and isinstance(site.node, ast.Call) else None
    if call is None:
        return None, "x"
    exprs = [call.func.value] if isinstance(call.func, ast.Attribute) else []
    for a in call.args:
        exprs.extend(a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a])
    found = [e for e in exprs if site.tensor_shape(e) == shape]
    if len(found) != 1:
        return None, "x"
    name = callsite.source(found[0])
    return site.rewrite(f"{name}.reshape({py_shape(new)})", target=found[0]), name
