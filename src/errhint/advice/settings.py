"""Module settings out of range, reached through a pyburn constructor: burn 0.18's
``epsilon must be positive.`` (RmsNorm), ``Theta parameter must be positive (default: 10000).``
(RotaryEncoding) and ``Dropout probability should be between 0 and 1, but got {}`` (Dropout,
built by the transformer modules).

The fix drops the offending keyword argument, so the binding's own default applies; the default
is named only where the binding states it (its text signature or its docstring).
"""

from __future__ import annotations

import ast
import re

from typing import Any, Optional, Tuple

from errhint.advice.base import Advice, Context

CHECKS: Tuple[Tuple[str, Tuple[str, ...], str], ...] = (
    ("epsilon must be positive", ("eps", "epsilon"), "must be greater than 0"),
    ("Theta parameter must be positive", ("theta",), "must be greater than 0"),
    ("Dropout probability should be between 0 and 1", ("dropout", "prob"), "must lie between 0 and 1"),
)
"""message start -> constructor parameter names that carry the setting, and the rule in words."""


def _default(cls: Any, name: str) -> Optional[str]:
    """The default of parameter ``name`` as the binding states it, else None."""
    import inspect  # only for this family's errors: every other hint does without it

    try:
        param = inspect.signature(cls).parameters.get(name)
    except (TypeError, ValueError):
        param = None
    if param is not None and param.default is not inspect.Parameter.empty and param.default is not Ellipsis:
        return repr(param.default)
    doc = getattr(cls, "__doc__", None) or ""
    found = re.search(rf"\b{re.escape(name)}:[^\n]*?Defaults to ([\w.+-]+)", doc)
    return found.group(1).rstrip(".") if found else None


def advise(ctx: Context) -> Optional[Advice]:
    if ctx.binding != "pyburn":
        return None
    check = next((c for c in CHECKS if ctx.message.startswith(c[0])), None)
    site = ctx.site
    if check is None or site is None or site.deeper or not isinstance(site.node, ast.Call):
        return None
    call = site.node
    hits = [k for k in call.keywords if k.arg in check[1]]
    if len(hits) != 1:
        return None
    keyword = hits[0]
    cls = site.value(call.func)
    default = _default(cls, keyword.arg) if callable(cls) else None
    given = ast.unparse(keyword.value)
    cause = f"`{keyword.arg}={given}` is refused: the setting {check[2]}."
    args = [ast.unparse(a) for a in call.args] + [ast.unparse(k) for k in call.keywords if k is not keyword]
    code = site.rewrite(f"{ast.unparse(call.func)}({', '.join(args)})")
    default_text = f" ({default})" if default is not None else ""
    fix = (f"Leave `{keyword.arg}` out to get the binding's default{default_text}, "
           f"or pass the value you meant within that range.")
    return Advice(cause, fix, code, ctx.language)
