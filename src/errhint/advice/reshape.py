"""candle ``reshape``: ``ShapeMismatchBinaryOp { lhs: <current>, rhs: <requested>, op: "reshape" }``.

A reshape keeps the number of elements; the requested shape's product must equal the current one.
"""

from __future__ import annotations

from typing import List, Optional

from errhint.advice import callsite
from errhint.advice.base import Advice, Context
from errhint.advice.values import elements, fmt, py_shape


def candidates(total: int, target: List[int]) -> List[List[int]]:
    """Shapes that change one axis of ``target`` so that it holds ``total`` elements."""
    out = []
    for i in range(len(target)):
        others = elements(target[:i] + target[i + 1:])
        if others and total % others == 0 and total // others != target[i]:
            out.append(target[:i] + [total // others] + target[i + 1:])
    return out


def _prefer_kept_axes(found: List[List[int]], have: List[int]) -> List[List[int]]:
    """Of several one-axis candidates, the one that keeps the most leading axes of the current
    shape (splitting ``[6, 20]`` into heads keeps the 6), when exactly one does."""
    if len(found) < 2:
        return found

    def kept(shape: List[int]) -> int:
        n = 0
        for a, b in zip(shape, have):
            if a != b:
                break
            n += 1
        return n

    best = max(kept(s) for s in found)
    top = [s for s in found if kept(s) == best]
    return top if len(top) == 1 and best > 0 else found


def advise(ctx: Context) -> Optional[Advice]:
    shapes = ctx.candle_shapes("reshape")
    if shapes is None:
        return None
    have, want = shapes
    n_have, n_want = elements(have), elements(want)
    if n_have == n_want:
        return None
    cause = (f"The tensor {fmt(have)} holds {n_have} elements; the requested shape {fmt(want)} "
             f"holds {n_want}.")
    found = _prefer_kept_axes(candidates(n_have, want), have)
    site = ctx.site
    call = None
    if site is not None and not site.deeper:
        call = callsite.failing_call(site, ("reshape",))
    if len(found) == 1:
        shape = found[0]
        code = f"{callsite.source(call.func.value)}.reshape({py_shape(shape)})" if call is not None and len(call.args) == 1 else None
        fix = (f"{fmt(shape)} holds {n_have} elements and differs from the request in one axis: "
               f"{ctx.code(code or f'x.reshape({py_shape(shape)})', f'x.reshape({py_shape(shape)})?')}.")
        return Advice(cause, fix, site.rewrite(code) if code else None, ctx.language)
    fix = f"Choose a shape whose sizes multiply to {n_have}"
    if found:
        fix += ": changing one axis gives " + " or ".join(fmt(s) for s in found[:3])
    return Advice(cause, fix + ".", None, ctx.language)
