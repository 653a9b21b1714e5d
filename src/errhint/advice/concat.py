"""candle ``cat``/``stack``: ``ShapeMismatchCat { dim, first_shape, n, nth_shape }``.

``dim`` is the first axis (other than the joined one) where operand ``n`` differs from the
first; ``stack`` inserts a size-1 axis at its ``dim`` first, then joins along it, so the
shapes it reports carry that extra axis.
"""

from __future__ import annotations

import ast

from typing import Optional

from errhint.advice import callsite
from errhint.advice.base import Advice, Context, const_int
from errhint.advice.values import fmt


def _swapped(a: list, b: list) -> Optional[tuple]:
    """(i, j) when ``b`` is ``a`` with two axes swapped (and differs from it)."""
    differ = [k for k, (x, y) in enumerate(zip(a, b)) if x != y]
    if len(a) == len(b) and len(differ) == 2:
        i, j = differ
        if a[i] == b[j] and a[j] == b[i]:
            return i, j
    return None


def advise(ctx: Context) -> Optional[Advice]:
    first, nth = ctx.shape("first_shape"), ctx.shape("nth_shape")
    dim, n = ctx.int("dim"), ctx.int("n")
    if first is None or nth is None or dim is None or n is None:
        return None
    if len(first) != len(nth):
        return ctx.says(f"Operand 1 has rank {len(first)} ({fmt(first)}) and operand {n} rank {len(nth)} "
                        f"({fmt(nth)}); every operand must have the same rank.",
                        "Give every operand the same rank before joining them.")
    differ = [i for i, (x, y) in enumerate(zip(first, nth)) if x != y]
    site = ctx.site
    call = kind = None
    if site is not None and not site.deeper:
        for qualified in ("candle.cat", "candle.stack"):
            call = callsite.failing_function_call(site, qualified)
            if call is not None:
                kind = qualified.split(".")[1]
                break
    joined = const_int(call.args[1]) if call is not None and len(call.args) == 2 else None
    items = call.args[0] if call is not None and call.args and isinstance(call.args[0], ast.List) else None
    if kind == "stack" and joined is not None and 0 <= joined < len(first) and first[joined] == 1:
        a = first[:joined] + first[joined + 1:]
        b = nth[:joined] + nth[joined + 1:]
        axis = dim if dim < joined else dim - 1
        swap = _swapped(a, b)
        if swap is not None and items is not None and n == 2 and len(items.elts) == 2:
            i, j = swap
            second = callsite.source(items.elts[1])
            moved = f"{second}.t()" if len(b) == 2 else f"{second}.transpose({i}, {j})"
            code = f"candle.stack([{ast.unparse(items.elts[0])}, {moved}], {joined})"
            return Advice(
                f"stack needs operands of one shape: operand 1 is {fmt(a)}, operand 2 is {fmt(b)}, "
                f"the same sizes with axes {i} and {j} swapped.",
                f"Swap them back: `{code}` stacks two {fmt(a)} tensors.",
                site.rewrite(code, ("candle",)), ctx.language)
        return Advice(
            f"stack needs operands of one shape: operand 1 is {fmt(a)}, operand {n} is {fmt(b)} "
            f"(they differ on axis {axis}).",
            f"Make operand {n} {fmt(a)} before stacking, or use `candle.cat` along axis {axis} "
            f"if joining along it is what you meant.", None, ctx.language)
    cause = (f"Operand 1 is {fmt(first)} and operand {n} is {fmt(nth)}: they differ on axis {dim}"
             + (f", while the join is along axis {joined}" if joined is not None else "")
             + "; every other axis must be equal.")
    if len(differ) == 1 and joined is not None and joined != dim and items is not None and len(items.elts) == 2:
        out = list(first)
        out[dim] = first[dim] + nth[dim]
        code = f"candle.cat({ast.unparse(items)}, {dim})"
        fix = f"If you meant to join along axis {dim}, `{code}` gives {fmt(out)}."
        return Advice(cause, fix, site.rewrite(code, ("candle",)) if site is not None else None, ctx.language)
    fix = (f"Make axis {dim} of operand {n} equal to {first[dim]}, or join along axis {dim} "
           f"({ctx.code(f'candle.cat(tensors, {dim})', f'Tensor::cat(&tensors, {dim})?')}) if that is what you meant.")
    return Advice(cause, fix, None, ctx.language)
