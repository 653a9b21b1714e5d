"""dtypes: candle ``UnsupportedDTypeForOp(dtype, op)`` and
``DTypeMismatchBinaryOp { lhs, rhs, op }``.

Which dtypes an op supports is stated only where it was read from the source of the release
the binding runs: candle 0.4.2's CPU matmul (gemm, ``cpu_backend/mod.rs``) takes F16, F32 and
F64; the pip wheel is built without mkl/accelerate, so BF16, U8, U32 and I64 are refused.
"""

from __future__ import annotations

import ast

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
    if op in ("index-select", "gather"):
        return _ids(ctx, op, dtype)
    if op == "where-cond":
        return _method_cast(
            ctx, ("where_cond",), "receiver", "U8",
            f"where_cond takes its mask (the tensor it is called on) as U8, U32 or I64 in candle 0.4.2; this mask is {dtype}.",
            "Cast the mask to U8 before the call: `mask.to_dtype(candle.u8).where_cond(on_true, on_false)`.")
    if op == "elu" and dtype in ("U8", "U32", "I64"):
        return _method_cast(
            ctx, ("powf", "elu"), "receiver", "F32",
            f"candle 0.4.2's CPU powf and elu take float tensors only (powf reports itself as elu there); this one is {dtype}.",
            "Cast the tensor to F32 first: `x.to_dtype(candle.f32).powf(e)`.")
    supported = SUPPORTED.get(op)
    if supported is None:
        return Advice(f"candle's {op} does not accept {dtype} tensors on this backend.",
                      f"Cast the {dtype} operand to a dtype {op} supports before the call.", None, ctx.language)
    target = "F32"
    cause = f"candle 0.4.2's CPU {op} supports {', '.join(supported)} only; this operand is {dtype}."
    site = ctx.site
    code = None
    expr = "a.to_dtype(candle.f32).matmul(b.to_dtype(candle.f32))"
    if site is not None and not site.deeper:
        call = callsite.failing_call(site, ("matmul",))
        if call is not None and len(call.args) == 1:
            expr = f"{_cast(callsite.source(call.func.value), target)}.matmul({_cast(callsite.source(call.args[0]), target)})"
            code = site.rewrite(expr, ("candle",))
    fix = (f"Cast both operands to {target}: "
           f"{ctx.code(expr, 'a.to_dtype(DType::F32)?.matmul(&b.to_dtype(DType::F32)?)?')}"
           f" (an integer tensor built from Python ints is U32, or I64 with a negative value).")
    return Advice(cause, fix, code, ctx.language)


def _method_cast(ctx: Context, methods: tuple, which: str, target: str, cause: str, fix: str) -> Advice:
    """Advice casting the receiver (or the first argument) of the failing method call."""
    site = ctx.site
    code = None
    if site is not None and not site.deeper:
        call = callsite.failing_call(site, methods)
        if call is not None:
            recv = callsite.source(call.func.value)
            args = [ast.unparse(a) for a in call.args] + [ast.unparse(k) for k in call.keywords]
            if which == "receiver":
                recv = _cast(recv, target)
            elif args:
                args[0] = _cast(callsite.source(call.args[0]), target)
            code = site.rewrite(f"{recv}.{call.func.attr}({', '.join(args)})", ("candle",))
    return Advice(cause, fix if ctx.binding else fix.replace("candle.", "DType::").replace("u8", "U8").replace("f32", "F32"),
                  code, ctx.language)


def _ids(ctx: Context, op: str, dtype: str) -> Advice:
    """index_select/gather/Embedding with float ids: candle 0.4.2's CPU backend names the
    *source* tensor's dtype in this error, while the ids are what must be U8, U32 or I64."""
    method = "index_select" if op == "index-select" else "gather"
    cause = (f"{op} needs integer ids (U8, U32 or I64); candle 0.4.2 prints the dtype of the tensor "
             f"indexed ({dtype}) in this message, not the ids'.")
    site = ctx.site
    code = None
    if site is not None and not site.deeper:
        call = callsite.failing_call(site, (method,))
        if call is not None and call.args:
            args = [ast.unparse(a) for a in call.args]
            args[0] = _cast(callsite.source(call.args[0]), "U32")
            code = site.rewrite(f"{callsite.source(call.func.value)}.{method}({', '.join(args)})", ("candle",))
    elif site is not None and any(".sparse." in d for d in site.deeper) and isinstance(site.node, ast.Call) \
            and len(site.node.args) == 1:
        call = site.node
        code = site.rewrite(f"{ast.unparse(call.func)}({_cast(callsite.source(call.args[0]), 'U32')})", ("candle",))
    fix = f"Cast the ids to U32 before the call: {ctx.code('ids.to_dtype(candle.u32)', 'ids.to_dtype(DType::U32)?')}."
    return Advice(cause, fix, code, ctx.language)


def unary(ctx: Context) -> Optional[Advice]:
    """``not yet implemented: no unary function for u8/u32/i64`` (candle 0.4.2 op.rs: float
    unary ops such as exp, sqrt, tanh on an integer tensor)."""
    msg = ctx.message
    if "no unary function for" not in msg or ctx.repo != "huggingface/candle":
        return None
    dtype = msg.rsplit(" ", 1)[-1].strip().upper()
    if dtype not in ("U8", "U32", "I64"):
        return None
    site = ctx.site
    code = None
    expr = "x.to_dtype(candle.f32)"
    if site is not None and not site.deeper and isinstance(site.node, ast.Call) \
            and isinstance(site.node.func, ast.Attribute):
        call = site.node
        args = [ast.unparse(a) for a in call.args] + [ast.unparse(k) for k in call.keywords]
        if isinstance(site.value(call.func.value), type(ast)) and call.args:  # F.tanh(x): a module's function
            args[0] = _cast(callsite.source(call.args[0]), "F32")
            expr = f"{ast.unparse(call.func)}({', '.join(args)})"
        else:
            expr = f"{_cast(callsite.source(call.func.value), 'F32')}.{call.func.attr}({', '.join(args)})"
        code = site.rewrite(expr, ("candle",))
    return Advice(
        f"candle 0.4.2 has no float math (exp, sqrt, tanh, ...) for {dtype} tensors: the CPU kernel is a todo! that panics.",
        f"Cast to F32 first: {ctx.code(expr, 'x.to_dtype(DType::F32)?')}.",
        code, ctx.language)


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
    site = ctx.site
    module_call = site is not None and bool(site.deeper) and any(".nn." in d for d in site.deeper)
    # inside an nn module, rhs is the module's weight: the input is what gets cast
    target = rhs if module_call and op in MATMUL_OPS and rhs in SUPPORTED["matmul"] else _target(lhs, rhs, op)
    cast = [side for side, dt in (("lhs", lhs), ("rhs", rhs)) if dt != target]
    cause = f"{op} needs both operands of one dtype: lhs is {lhs}, rhs is {rhs}."
    code = None
    if site is not None and not site.deeper and op == "cat":
        code = _cat(ctx, target)
    elif site is not None and not site.deeper:
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


def _cat(ctx: Context, target: str) -> Optional[str]:
    """``candle.cat([a, b], d)``: every listed name whose dtype is not ``target`` is cast."""
    site = ctx.site
    call = callsite.failing_function_call(site, "candle.cat") or callsite.failing_function_call(site, "candle.stack")
    if call is None or not call.args or not isinstance(call.args[0], ast.List):
        return None
    items = []
    for elt in call.args[0].elts:
        dt = site.tensor_dtype(elt)
        if dt is None:
            return None
        items.append(_cast(callsite.source(elt), target) if dt != target else ast.unparse(elt))
    rest = [ast.unparse(a) for a in call.args[1:]] + [ast.unparse(k) for k in call.keywords]
    return site.rewrite(f"{ast.unparse(call.func)}([{', '.join(items)}], {', '.join(rest)})", ("candle",))


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


NAMES = {
    "float32": "f32", "float": "f32", "float16": "f16", "half": "f16", "bfloat16": "bf16",
    "float64": "f64", "double": "f64", "int64": "i64", "long": "i64", "uint8": "u8", "uint32": "u32",
}
"""NumPy/PyTorch dtype names -> the names candle 0.4.2's ``DType::from_str`` accepts (u8, u32,
i64, bf16, f16, f32, f64; candle-core/src/dtype.rs)."""


def names(ctx: Context) -> Optional[Advice]:
    """candle-pyo3's ``invalid dtype '{dtype}'``: a dtype given as a string candle does not know.
    The fix swaps the string for candle's DType object when the string has a known counterpart."""
    given = ctx.values.get("dtype")
    if ctx.repo != "huggingface/candle" or not ctx.message.startswith("invalid dtype") or not isinstance(given, str):
        return None
    short = given.rsplit(".", 1)[-1].lower()  # 'torch.float32', 'np.int64'
    name = NAMES.get(short, short if short in NAMES.values() else None)
    cause = f"candle does not know the dtype name '{given}': it accepts u8, u32, i64, bf16, f16, f32 and f64."
    if name is None:
        return Advice(cause, "Pass one of candle's dtypes, e.g. `candle.f32`, instead of the string.", None, ctx.language)
    site = ctx.site
    code = None
    if site is not None and not site.deeper:
        strings = [n for n in ast.walk(site.stmt) if isinstance(n, ast.Constant) and n.value == given]
        if len(strings) == 1:
            code = site.rewrite(f"candle.{name}", ("candle",), target=strings[0])
    fix = f"Use candle's own dtype object: {ctx.code(f'candle.{name}', f'DType::{name.upper()}')} for '{given}'."
    return Advice(cause, fix, code, ctx.language)


QUANTIZED = ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q8_1", "q2k", "q3k", "q4k", "q5k", "q6k", "q8k", "f16", "f32")
"""The names candle-pyo3 0.4.2's ``Tensor.quantize`` accepts, compared lowercased
(``candle-pyo3/src/lib.rs``, the match in ``quantize``). Listed with the 32-element block formats
before the 256-element k-quants, so that the first of several near names asks the least of the
tensor's last dimension."""


def quantized(ctx: Context) -> Optional[Advice]:
    """candle-pyo3's ``unknown quantized-dtype {dt}``: the accepted names nearest to the user's
    (the same letters and digits, or one a prefix of the other: ``q4_k`` → q4k, ``q4_k_m`` → q4k,
    ``q5`` → q5_0, q5_1, q5k). The fix code uses the first of them when there is one."""
    given = ctx.values.get("dt")
    if ctx.repo != "huggingface/candle" or not ctx.message.startswith("unknown quantized-dtype") \
            or not isinstance(given, str) or not given:
        return None

    def letters(name: str) -> str:
        return "".join(ch for ch in name.lower() if ch.isalnum())

    key = letters(given)
    near = [n for n in QUANTIZED if letters(n) == key]
    near = near or [n for n in QUANTIZED if key and (letters(n).startswith(key) or key.startswith(letters(n)))]
    cause = f"'{given}' is not a format name that `quantize` knows; it accepts {', '.join(QUANTIZED)}."
    if not near:
        return Advice(cause, "Pick the GGML format you want from that list.", None, ctx.language)
    first, others = near[0], near[1:]
    fix = f"If you meant {first}, pass {ctx.code(repr(first), f'GgmlDType::{_rust_ggml(first)}')}"
    fix += f" (also near: {', '.join(others)})." if others else "."
    code = None
    site = ctx.site
    if site is not None and not site.deeper:
        strings = [n for n in ast.walk(site.stmt)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.lower() == given]
        if len(strings) == 1:
            code = site.rewrite(repr(first), target=strings[0])
    return Advice(cause, fix, code, ctx.language)


def _rust_ggml(name: str) -> str:
    """``q4_0`` → ``Q4_0``, ``q4k`` → ``Q4K``: the ``GgmlDType`` variant of a quantize name."""
    return name.upper()
