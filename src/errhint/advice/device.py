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
