"""Grouped convolutions (burn ``Conv*Config`` through pyburn): ``Both channels must be divisible
by the number of groups. Got channels_in={channels_in}, channels_out={channels_out}, groups={groups}``."""

from __future__ import annotations

import ast
from math import gcd

from typing import Optional

from errhint.advice.base import Advice, Context, const_int


def advise(ctx: Context) -> Optional[Advice]:
    cin, cout, groups = ctx.int("channels_in"), ctx.int("channels_out"), ctx.int("groups")
    if cin is None or cout is None or groups is None or groups <= 0:
        return None
    common = gcd(cin, cout)
    valid = [d for d in range(1, common + 1) if common % d == 0]
    best = max(d for d in valid if d <= groups) if any(d <= groups for d in valid) else 1
    cause = (f"groups={groups} must divide both channel counts ({cin} in, {cout} out); the values that do are "
             f"{', '.join(str(d) for d in valid)}.")
    code = None
    site = ctx.site
    call = site.node if site is not None and not site.deeper and isinstance(site.node, ast.Call) else None
    if call is not None:
        hits = [k for k in call.keywords if k.arg == "groups" and const_int(k.value) == groups]
        if len(hits) == 1:
            args = [ast.unparse(a) for a in call.args]
            args += [f"groups={best}" if k is hits[0] else ast.unparse(k) for k in call.keywords]
            code = site.rewrite(f"{ast.unparse(call.func)}({', '.join(args)})")
    fix = f"Use groups={best}, the largest of those not above {groups}, or change the channel counts."
    return Advice(cause, fix, code, ctx.language)
