"""dtypes: candle ``UnsupportedDTypeForOp(dtype, op)`` and
``DTypeMismatchBinaryOp { lhs, rhs, op }``.

Which dtypes an op supports is stated only where it was read from the source of the release
the binding runs: candle 0.4.2's CPU matmul (gemm, ``cpu_backend/mod.rs``) takes F16, F32 and
F64; the pip wheel is built without mkl/accelerate, so BF16, U8, U32 and I64 are refused.
"""

from __future__ import annotations

import ast

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Optional

from errhint.advice import callsite
from errhint.advice.base import Advice, Context
from errhint.advice.values import FLOAT_DTYPES

SUPPORTED = {"matmul": ("F16", "F32", "F64")}
"""op -> dtypes candle 0.4.2's CPU backend accepts (verified in the source, see above)."""

MATMUL_OPS = ("matmul", "mat_mul")


def _cast(expr: str, dtype: str) -> str:
    return f"{expr}.to_dtype(candle.{dtype.lower()})"


def advise(ctx: Context) -> Optional[Advice]:
    if ctx.repo != "huggingface/candle":
        return None
    if "lhs" in ctx.values and isinstance(ctx.values.get("lhs"), str) and ctx.values.get("lhs") in (
            "U8", "U32", "I64", "BF16", "F16", "F32", "F64"):
        return _mismatch(ctx)
    dtype = ctx.values.get("dtype") or ctx.values.get("f0")
    op = ctx.op or ctx.values.get("f1")
    if not isinstance(dtype, str) or not isinstance(op, str) or "unsupported dtype" not in ctx.message:
        return None
    supported = SUPPORTED.get(op)
    if supported is None:
        return Advice(f"candle's {op} does not accept {dtype} tensors on this backend.",
                      f"Cast the {dtype} operand to a dtype {op} supports before the call.", None, ctx.language)
    target = "F32"
    cause = f"candle 0.4.2's CPU {op} supports {', '.join(supported)} only; this operand is {dtype}."
    site = ctx.site
    code = None
    if site is not None and not site.deeper:
        call = callsite.failing_call(site, ("matmul",))
        if call is not None and len(call.args) == 1:
            code = site.rewrite(
                f"{_cast(callsite.source(call.func.value), target)}.matmul({_cast(callsite.source(call.args[0]), target)})",
                ("candle",))
    fix = (f"Cast both operands to {target}: "
           f"{ctx.code('a.to_dtype(candle.f32).matmul(b.to_dtype(candle.f32))', 'a.to_dtype(DType::F32)?.matmul(&b.to_dtype(DType::F32)?)?')}"
           f" (an integer tensor built from Python ints is U32, or I64 with a negative value).")
    return Advice(cause, fix, code, ctx.language)


def _target(lhs: str, rhs: str, op: str) -> str:
    """The dtype both operands should share: the float one over an integer one, else lhs's;
    for matmul one it supports."""
    if lhs in FLOAT_DTYPES and rhs not in FLOAT_DTYPES:
        target = lhs
    elif rhs in FLOAT_DTYPES and lhs not in FLOAT_DTYPES:
        target = rhs
    else:
        target = lhs
    if op in MATMUL_OPS and target not in SUPPORTED["matmul"]:
        target = "F32"
    return target


def _mismatch(ctx: Context) -> Optional[Advice]:
    lhs, rhs, op = ctx.values.get("lhs"), ctx.values.get("rhs"), ctx.op
    if not isinstance(rhs, str) or lhs == rhs:
        return None
    target = _target(lhs, rhs, op)
    cast = [side for side, dt in (("lhs", lhs), ("rhs", rhs)) if dt != target]
    cause = f"{op} needs both operands of one dtype: lhs is {lhs}, rhs is {rhs}."
    site = ctx.site
    code = None
    module_call = site is not None and bool(site.deeper) and any(".nn." in d for d in site.deeper)
    if site is not None and not site.deeper:
        code = _direct(ctx, target, cast)
    elif module_call and cast == ["lhs"] and isinstance(site.node, ast.Call) and len(site.node.args) == 1:
        call = site.node
        arg = call.args[0]
        if site.tensor_dtype(arg) in (None, lhs):
            head = ast.unparse(call.func)
            code = site.rewrite(f"{head}({_cast(callsite.source(arg), target)})", ("candle",))
    which = " and ".join(cast)
    span = ctx.code(f"b.to_dtype(candle.{target.lower()})", f"b.to_dtype(DType::{target})?")
    if module_call and cast == ["lhs"]:
        fix = f"The module's weights are {rhs}: cast its input from {lhs} to {target} before the call ({span.replace('b.', 'x.')})."
    else:
        fix = f"Cast {which} to {target} right before the call, e.g. {span}."
    return Advice(cause, fix, code, ctx.language)


def _direct(ctx: Context, target: str, cast: list) -> Optional[str]:
    site = ctx.site
    node = site.node
    if isinstance(node, ast.BinOp):
        left, right = callsite.source(node.left), callsite.source(node.right)
        left = _cast(left, target) if "lhs" in cast else left
        right = _cast(right, target) if "rhs" in cast else right
        symbol = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}.get(type(node.op))
        return site.rewrite(f"{left} {symbol} {right}", ("candle",)) if symbol else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 1 and not node.keywords:
        recv, arg = callsite.source(node.func.value), callsite.source(node.args[0])
        recv = _cast(recv, target) if "lhs" in cast else recv
        arg = _cast(arg, target) if "rhs" in cast else arg
        return site.rewrite(f"{recv}.{node.func.attr}({arg})", ("candle",))
    return None
