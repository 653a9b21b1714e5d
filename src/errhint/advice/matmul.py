"""candle ``matmul``: rank check and inner-dimension check (``Tensor::matmul``, candle 0.4.2).

candle's matmul takes two tensors of the same rank, at least 2, with equal batch axes; the
last axis of the left operand (``k``) must equal the second-to-last of the right one (``k2``).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from errhint.advice import callsite
from errhint.advice.base import Advice, Context
from errhint.advice.values import elements, fmt, py_shape


def _operands(ctx: Context) -> Optional[Tuple[str, str, object]]:
    """Source of the left and right operands of the failing ``a.matmul(b)`` and the call."""
    site = ctx.site
    if site is None or site.deeper:
        return None
    call = callsite.failing_call(site, ("matmul",))
    if call is None or len(call.args) != 1 or call.keywords:
        return None
    return callsite.source(call.func.value), callsite.source(call.args[0]), call


def _swap_last(rank: int) -> str:
    return ".t()" if rank == 2 else f".transpose({rank - 2}, {rank - 1})"


def _transposed(ctx: Context, side: str, code: str, rust: str, left: list, right: list, out: list) -> str:
    return (f"Transpose the {side} operand: {ctx.code(code, rust)} multiplies {fmt(left)} by "
            f"{fmt(right)} and gives {fmt(out)}.")


def advise(ctx: Context) -> Optional[Advice]:
    shapes = ctx.candle_shapes("matmul")
    if shapes is None:
        return None
    lhs, rhs = shapes
    ops = _operands(ctx)
    a, b = (ops[0], ops[1]) if ops else ("a", "b")
    if len(lhs) < 2 or len(lhs) != len(rhs):
        return _linear(ctx, lhs, rhs) or _rank(ctx, lhs, rhs, a, b, ops is not None)
    batch_l, batch_r = lhs[:-2], rhs[:-2]
    m, k = lhs[-2:]
    k2, n = rhs[-2:]
    if elements(batch_l) != elements(batch_r):
        return Advice(
            f"matmul needs the same batch axes on both operands: {fmt(batch_l)} in lhs {fmt(lhs)} "
            f"against {fmt(batch_r)} in rhs {fmt(rhs)}.",
            "Make the leading (batch) axes of both operands equal before the call.",
            None, ctx.language)
    if k == k2:
        return None
    rank = len(lhs)
    cause = (f"The inner dimensions differ: the last axis of lhs {fmt(lhs)} is {k}, the "
             f"second-to-last of rhs {fmt(rhs)} is {k2}; matmul needs them equal.")
    rust_swap = ".t()?" if rank == 2 else f".transpose({rank - 2}, {rank - 1})?"
    if n == k:
        code = f"{a}.matmul({b}{_swap_last(rank)})"
        fix = _transposed(ctx, "right", code, f"lhs.matmul(&rhs{rust_swap})?", lhs, batch_r + [n, k2], batch_l + [m, k2])
        if m == k2:
            fix += f" Transposing the left one instead (`{a}{_swap_last(rank)}`) would give {fmt(batch_l + [k, n])}."
        return Advice(cause, fix, _rewrite(ctx, ops, code), ctx.language)
    if m == k2:
        code = f"{a}{_swap_last(rank)}.matmul({b})"
        fix = _transposed(ctx, "left", code, f"lhs{rust_swap}.matmul(&rhs)?", batch_l + [k, m], rhs, batch_l + [k, n])
        return Advice(cause, fix, _rewrite(ctx, ops, code), ctx.language)
    fix = f"No transpose makes them fit: the left operand must end in {k2}, or the right one have {k} rows."
    total = elements(rhs)
    if total % k == 0 and rank == 2:
        fix += (f" If rhs's {total} values are really a {k}-row matrix, "
                f"{ctx.code(f'{b}.reshape(({k}, {total // k}))', f'rhs.reshape(({k}, {total // k}))?')} "
                f"gives [{k}, {total // k}] and a result of [{m}, {total // k}].")
    return Advice(cause, fix, None, ctx.language)


def _rewrite(ctx: Context, ops: Optional[tuple], code: str) -> Optional[str]:
    if ops is None or ctx.site is None:
        return None
    return ctx.site.rewrite(code)


def _linear(ctx: Context, lhs: List[int], rhs: List[int]) -> Optional[Advice]:
    """``candle.nn.Linear`` called with an input whose last axis is not its in_features: its
    forward (candle-pyo3/py_src/candle/nn/linear.py at 0.4.2) then multiplies by the weight
    broadcast over the batch, ``[batch, in_features, out_features]``."""
    site = ctx.site
    if site is None or not any("nn.linear" in d for d in site.deeper) or len(rhs) != 3 or len(lhs) != 2:
        return None
    in_w, out = rhs[1], rhs[2]
    return Advice(
        f"The Linear layer takes inputs whose last axis is {in_w} (its in_features); this input is {fmt(lhs)}.",
        f"Give the input {in_w} features, or build the layer for {lhs[-1]}: `candle.nn.Linear({lhs[-1]}, {out})`.",
        None, ctx.language)


def _rank(ctx: Context, lhs: List[int], rhs: List[int], a: str, b: str, have_call: bool) -> Advice:
    """Advice for matmul's rank check. The record's first fix is about the inner-dimension
    check that raises the same text, so it is not shown beside this advice."""
    cause = (f"matmul needs two operands of the same rank, at least 2: lhs {fmt(lhs)} is "
             f"{len(lhs)}-D and rhs {fmt(rhs)} is {len(rhs)}-D (the rank check fires before the "
             f"inner dimensions are compared).")
    fix, code = _rank_fix(ctx, lhs, rhs, a, b)
    rewrite = _rewrite(ctx, _operands(ctx) if have_call else None, code) if code is not None else None
    return Advice(cause, fix, rewrite, ctx.language, record_fix=False)


def _rank_fix(ctx: Context, lhs: List[int], rhs: List[int], a: str, b: str) -> Tuple[str, Optional[str]]:
    """The fix sentence for operands of different ranks, and its Python rewrite (None when
    no rewrite follows from the shapes alone)."""
    if len(lhs) == 1 and len(rhs) == 1 and lhs[0] == rhs[0]:
        code = f"({a} * {b}).sum_all()"
        return (f"For the dot product of two vectors of {lhs[0]}, multiply and sum: "
                f"{ctx.code(code, '(&lhs * &rhs)?.sum_all()?')} gives a scalar."), code
    if len(lhs) == 2 and len(rhs) == 1 and rhs[0] == lhs[1]:
        code = f"{a}.matmul({b}.unsqueeze(1)).squeeze(1)"
        return (f"Make the vector a column: {ctx.code(code, 'lhs.matmul(&rhs.unsqueeze(1)?)?.squeeze(1)?')} "
                f"gives {fmt([lhs[0]])}."), code
    if len(lhs) == 1 and len(rhs) == 2 and lhs[0] == rhs[0]:
        code = f"{a}.unsqueeze(0).matmul({b}).squeeze(0)"
        return (f"Make the vector a row: {ctx.code(code, 'lhs.unsqueeze(0)?.matmul(&rhs)?.squeeze(0)?')} "
                f"gives {fmt([rhs[1]])}."), code
    if len(lhs) > 2 and len(rhs) == 2 and lhs[-1] == rhs[0]:
        out = lhs[:-1] + [rhs[1]]
        code = f"{a}.reshape(({elements(lhs[:-1])}, {lhs[-1]})).matmul({b}).reshape({py_shape(out)})"
        return (f"Flatten the leading axes of lhs, multiply, and restore them: "
                f"{ctx.code(code, 'lhs.broadcast_matmul(&rhs)?')} gives {fmt(out)}."), code
    if len(rhs) > 2 and len(lhs) == 2 and rhs[-2] == lhs[-1]:
        out = rhs[:-2] + [lhs[0], rhs[-1]]
        code = f"{a}.broadcast_left({py_shape(rhs[:-2])}).matmul({b})"
        return (f"Repeat lhs over rhs's batch axes: {ctx.code(code, 'lhs.broadcast_matmul(&rhs)?')} "
                f"gives {fmt(out)}."), code
    return "Reshape the operands to the same rank (at least 2) before the call.", None
