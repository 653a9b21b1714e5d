"""Group counts: grouped convolutions (burn ``Conv*Config`` through pyburn): ``Both channels must be
divisible by the number of groups. Got channels_in={channels_in}, channels_out={channels_out},
groups={groups}``, and GroupNorm's channel count (``group_norm``)."""

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


def _divisors(n: int) -> list:
    return [d for d in range(1, n + 1) if n % d == 0]


def group_norm(ctx: Context) -> Optional[Advice]:
    """burn's GroupNorm config check (``The number of channels must be divisible by the number of
    groups``, an ``assert_eq`` whose left side is the remainder): the message holds no counts, so
    advice is given only when the failing call is ``GroupNormPy(num_groups, num_channels, ...)``
    with both counts written as int literals."""
    if "channels must be divisible by the number of groups" not in ctx.message or ctx.binding != "pyburn":
        return None
    site = ctx.site
    call = site.node if site is not None and not site.deeper and isinstance(site.node, ast.Call) else None
    if call is None:
        return None
    named = {k.arg: k.value for k in call.keywords}
    nodes = [call.args[i] if i < len(call.args) else named.get(name) for i, name in enumerate(("num_groups", "num_channels"))]
    if any(n is None for n in nodes):
        return None
    groups, channels = const_int(nodes[0]), const_int(nodes[1])
    if groups is None or channels is None or groups <= 0 or channels <= 0:
        return None
    valid = _divisors(channels)
    best = max(d for d in valid if d <= groups)
    cause = (f"{channels} channels do not split into {groups} groups ({channels} % {groups} = {channels % groups}); "
             f"group counts that divide {channels} are {', '.join(str(d) for d in valid)}.")
    code = None
    if call.args and nodes[0] is call.args[0]:
        args = [str(best)] + [ast.unparse(a) for a in call.args[1:]] + [ast.unparse(k) for k in call.keywords]
        code = site.rewrite(f"{ast.unparse(call.func)}({', '.join(args)})")
    fix = (f"Use {best} groups, the largest count not above {groups} that divides {channels} "
           f"(the group count changes how channels are normalised together, not any shape).")
    return Advice(cause, fix, code, ctx.language)
