"""Broadcasting: candle's ``broadcast_*`` ops (Python ``a + b``), ``broadcast_as``, and burn's
TensorCheck "incompatible shapes" for element-wise ops (pyburn ``a.add(b)``).

Shapes are aligned from the right; each pair of sizes must be equal or contain a 1.  burn
0.18 broadcasts only tensors of the same rank.
"""

from __future__ import annotations

import ast

from typing import List, Optional, Tuple

from errhint.advice import callsite
from errhint.advice.base import Advice, Context
from errhint.advice.values import fmt, py_shape

CANDLE_OPS = {"broadcast_add": ast.Add, "broadcast_sub": ast.Sub, "broadcast_mul": ast.Mult,
              "broadcast_div": ast.Div}
SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
BURN_OPS = {"Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div"}


def bad_axes(lhs: List[int], rhs: List[int]) -> List[Tuple[int, int, int]]:
    """(axis of the broadcast result, lhs size, rhs size) of every pair that cannot broadcast."""
    rank = max(len(lhs), len(rhs))
    a = [1] * (rank - len(lhs)) + lhs
    b = [1] * (rank - len(rhs)) + rhs
    return [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y and x != 1 and y != 1]


def missing_axis(small: List[int], big: List[int]) -> Optional[int]:
    """The axis of ``big`` that ``small`` lacks (one rank less, every other size equal), the
    last such axis when several fit; None otherwise."""
    if len(small) + 1 != len(big):
        return None
    fits = [i for i in range(len(big)) if big[:i] + big[i + 1:] == small]
    return fits[-1] if fits else None


def result(lhs: List[int], rhs: List[int]) -> List[int]:
    rank = max(len(lhs), len(rhs))
    a = [1] * (rank - len(lhs)) + lhs
    b = [1] * (rank - len(rhs)) + rhs
    return [max(x, y) for x, y in zip(a, b)]


def _operands(ctx: Context, op: str) -> Optional[Tuple[str, str]]:
    """The user's left and right operand expressions, with a ``node`` ready to rewrite."""
    site = ctx.site
    if site is None or site.deeper:
        return None
    if ctx.binding == "candle":
        node = callsite.failing_binop(site)
        if node is not None and isinstance(node.op, CANDLE_OPS.get(op, ())):
            return callsite.source(node.left), callsite.source(node.right)
        site.node = site.node if not isinstance(site.node, ast.BinOp) else None
        call = callsite.failing_call(site, (op,))
    else:
        call = callsite.failing_call(site, (BURN_OPS.get(op, ""),))
    if call is None or len(call.args) != 1 or call.keywords:
        return None
    return callsite.source(call.func.value), callsite.source(call.args[0])


def _expr(ctx: Context, op: str, a: str, b: str) -> str:
    if ctx.binding == "candle" and isinstance(ctx.site.node, ast.BinOp):
        return f"{a} {SYMBOLS[type(ctx.site.node.op)]} {b}"
    method = op if ctx.binding == "candle" else BURN_OPS.get(op, op.lower())
    return f"{a}.{method}({b})"


def advise(ctx: Context) -> Optional[Advice]:
    lhs, rhs = ctx.shape("lhs"), ctx.shape("rhs")
    if "src_shape" in ctx.values:
        lhs, rhs = ctx.shape("src_shape"), ctx.shape("dst_shape")
        if lhs is None or rhs is None:
            return None
        bad = bad_axes(lhs, rhs)
        axis = missing_axis(lhs, rhs)
        if bad and axis is not None:
            shaped = lhs[:axis] + [1] + lhs[axis:]
            site = ctx.site
            call = callsite.failing_call(site, ("broadcast_as",)) if site is not None and not site.deeper else None
            code = None
            if call is not None and len(call.args) == 1:
                code = site.rewrite(f"{callsite.source(call.func.value)}.unsqueeze({axis}).broadcast_as({ast.unparse(call.args[0])})")
            return Advice(
                f"broadcast_as aligns {fmt(lhs)} with {fmt(rhs)} from the right: "
                + "; ".join(f"axis {i} has {x}, the target {y}" for i, x, y in bad) + ".",
                f"Its sizes are the target's without axis {axis}: `x.unsqueeze({axis})` gives {fmt(shaped)}, "
                f"which broadcasts to {fmt(rhs)}.", code, ctx.language)
        return Advice(
            f"broadcast_as cannot expand {fmt(lhs)} to {fmt(rhs)}: "
            + "; ".join(f"axis {i} has {x}, the target {y}" for i, x, y in bad)
            + " (only size-1 axes are expanded).",
            f"Pick a target that keeps every non-1 axis of {fmt(lhs)} (aligned from the right).",
            None, ctx.language) if bad else None
    op = ctx.op
    burn = ctx.repo == "tracel-ai/burn" and op in BURN_OPS
    if lhs is None or rhs is None or not (burn or op in CANDLE_OPS or op.startswith("broadcast_")):
        return None
    bad = bad_axes(lhs, rhs)
    if burn and len(lhs) == len(rhs):
        bad = [(i, x, y) for i, (x, y) in enumerate(zip(lhs, rhs)) if x != y and x != 1 and y != 1]
    if not bad:
        return None
    first = bad[0]
    where = "; ".join(f"axis {i}: {x} vs {y}" for i, x, y in bad)
    cause = (f"{op} cannot broadcast {fmt(lhs)} with {fmt(rhs)}: {where}"
             f" (aligned from the right, each pair must be equal or one of them 1).")
    ops = _operands(ctx, op)
    a, b = ops if ops else ("a", "b")
    # the right operand laid out the other way round: transposing it fits (candle only)
    if len(lhs) == len(rhs) == 2 and rhs[::-1] == lhs and ctx.binding != "pyburn":
        code = _expr(ctx, op, a, f"{b}.t()") if ops else f"{a} + {b}.t()"
        fix = (f"The right operand is {fmt(lhs)} transposed: "
               f"{ctx.code(code, 'lhs.broadcast_add(&rhs.t()?)?')} gives {fmt(lhs)}.")
        return Advice(cause, fix, ctx.site.rewrite(code) if ops else None, ctx.language)
    # a lower-rank operand that is the other's shape without one axis: give it that axis as 1
    for small, big, name in ((rhs, lhs, b), (lhs, rhs, a)):
        axis = missing_axis(small, big)
        if axis is not None and ctx.binding != "pyburn":
            shaped = small[:axis] + [1] + small[axis:]
            moved = f"{name}.unsqueeze({axis})"
            code = None
            if ops:
                expr = _expr(ctx, op, moved, b) if small is lhs else _expr(ctx, op, a, moved)
                code = ctx.site.rewrite(expr)
            fix = (f"{fmt(small)} is {fmt(big)} without axis {axis}: "
                   f"{ctx.code(moved, f'{name}.unsqueeze({axis})?')} gives {fmt(shaped)}, "
                   f"which broadcasts to {fmt(big)}.")
            return Advice(cause, fix, code, ctx.language)
    i, x, y = first
    rank = max(len(lhs), len(rhs))
    equal = list(rhs)
    equal[i - (rank - len(rhs))] = x
    fix = (f"Make axis {i} equal ({x} in both) or 1 in one operand; with rhs {fmt(equal)} the "
           f"result is {fmt(result(lhs, equal))}." if not bad[1:] else
           f"Make every listed axis equal or 1 in one operand (aligned from the right).")
    if ctx.binding == "pyburn":
        fix = (f"Make axis {i} equal ({x} in both) or 1 in one operand: pyburn 0.1.7's TensorPy has "
               f"no reshape or transpose, so create the operand with the shape you need (for example "
               f"`TensorPy.ones({fmt(lhs)}, {len(lhs)})` has lhs's shape).")
    return Advice(cause, fix, None, ctx.language)
