"""Devices: candle ``DeviceMismatchBinaryOp { lhs, rhs, op }``."""

from __future__ import annotations

import ast

from typing import Optional

from errhint.advice import callsite
from errhint.advice.base import Advice, Context


def advise(ctx: Context) -> Optional[Advice]:
    if ctx.variant != "DeviceMismatchBinaryOp":
        return None
    lhs, rhs, op = ctx.values.get("lhs"), ctx.values.get("rhs"), ctx.op
    if not isinstance(lhs, str) or not isinstance(rhs, str):
        return None
    cause = f"{op or 'The op'} got lhs on {lhs} and rhs on {rhs}; both operands must be on one device."
    code = None
    site = ctx.site
    node = site.node if site is not None and not site.deeper else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 1 \
            and isinstance(node.func.value, ast.Name):
        recv = node.func.value.id
        code = site.rewrite(f"{recv}.{node.func.attr}({callsite.source(node.args[0])}.to_device({recv}.device))")
    elif isinstance(node, ast.BinOp) and isinstance(node.left, ast.Name):
        left = node.left.id
        symbol = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}.get(type(node.op))
        if symbol:
            code = site.rewrite(f"{left} {symbol} {callsite.source(node.right)}.to_device({left}.device)")
    fix = (f"Move rhs to lhs's device right before the call: "
           f"{ctx.code('b.to_device(a.device)', 'b.to_device(a.device())?')}.")
    return Advice(cause, fix, code, ctx.language)


METAL_FROM = "0.10.0"
"""candle-nn accepts the device name "metal" from this release (candle-pyo3/src/lib.rs
``PyDevice::extract``); before it only "cpu" and "cuda"."""


def _accepted_names() -> str:
    """The device names the installed candle-nn accepts."""
    from errhint import distinfo
    from errhint.versions import is_release, version_key

    installed = distinfo.version("candle-nn")
    metal = installed is not None and is_release(installed) and version_key(installed) >= version_key(METAL_FROM)
    return '"cpu", "cuda" or "metal"' if metal else '"cpu" or "cuda"'


def unavailable(ctx: Context) -> Optional[Advice]:
    """A device candle-nn cannot give: "cuda" from a build without CUDA
    (``NotCompiledWithCudaSupport``), or a name it does not know (``invalid device 'gpu'``).
    The fix replaces the literal device string of the failing call by one chosen at run time
    (CUDA when ``candle.utils.cuda_is_available()``, else the CPU), or by "cpu" for a
    misspelt CPU."""
    if ctx.binding != "candle" or ctx.site is None or not isinstance(ctx.site.node, ast.Call):
        return None
    if ctx.variant == "NotCompiledWithCudaSupport":
        given = "cuda"
        cause = ('This candle build has no CUDA backend (`candle.utils.cuda_is_available()` is False), '
                 'so "cuda" cannot be used.')
    elif "invalid device" in ctx.message and isinstance(ctx.values.get("device"), str):
        given = ctx.values["device"]
        cause = f"candle-nn accepts the device names {_accepted_names()} only; {given!r} is none of them."
    else:
        return None
    name = given.strip().lower()
    call = ctx.site.node
    literal = next((a for a in list(call.args) + [k.value for k in call.keywords]
                    if isinstance(a, ast.Constant) and a.value == given), None)
    if literal is None:
        return None
    if name == "cpu":
        return Advice(cause, 'Write the device name in lower case: "cpu".',
                      ctx.site.rewrite('"cpu"', target=literal), ctx.language)
    if "cuda" not in name and "gpu" not in name:
        return None
    fix = ('Choose the device at run time: "cuda" when `candle.utils.cuda_is_available()`, else "cpu" '
           '(a build without CUDA, such as the candle-nn 0.4.2 pip wheel, then runs on the CPU).')
    code = ctx.site.rewrite('"cuda" if candle.utils.cuda_is_available() else "cpu"', imports=("candle",),
                           target=literal)
    return Advice(cause, fix, code, ctx.language)
