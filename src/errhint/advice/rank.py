"""Rank mismatches: burn's ``Given dimensions differ from the tensor rank`` (pyburn
``TensorPy.ones(shape, rank)``) and candle ``UnexpectedNumberOfDims { expected, got, shape }``."""

from __future__ import annotations

import ast

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Optional

from errhint.advice.base import Advice, Context, const_int
from errhint.advice.values import fmt

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
    if expected is not None and got is not None and shape is not None:
        return Advice(
            f"The op expects a {expected}-D tensor and got the {got}-D {fmt(shape)}.",
            f"Reshape or (un)squeeze the input to {expected} axes before the call.", None, ctx.language)
    return None
