"""Advice computed from the user's own values, in the caller's language.

``apply(matches, exc=..., language=...)`` returns the matches with, for each:

* ``captures`` named for what they hold and ``values``, their typed reading (``values.py``);
* computed ``advice``: a cause and a fix whose numbers all come from the error (one small
  module per family: ``matmul``, ``broadcast``, ``concat``, ``reshape``, ``ranges``, ``dims``,
  ``rank``, ``dtype``, ``device``, ``groups``, ``settings``), shown before the record's static text;
* ``fix_code``: a runnable rewrite of the failing statement, for a live exception only
  (``callsite.py`` reads it from the traceback), and ``fix_language``;
* ``site``: the one of the record's sites the call reached, when the values tell (``site.py``).

The caller's language: an error raised through candle-nn gets candle's Python API, through
pyburn pyburn's; a pasted text without a Python traceback gets Rust.  A family that fails in
any way gives no advice (the match keeps its static text).
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from errhint.match import Match

from errhint.advice import base, site as sites, values
from errhint.advice.base import Advice, Context

def _binding_of_repo(repo: str) -> Optional[str]:
    """The binding package whose errors come from ``repo`` (``errhint.bindings``), or None."""
    from errhint import bindings

    return next((name for name, b in bindings.BINDINGS.items() if repo in b.repos), None)


_FAMILIES: list = []


def _families() -> list:
    """The family functions, imported on first use (a list append is atomic: two threads at
    worst import them twice)."""
    if not _FAMILIES:
        from errhint.advice import (broadcast, concat, device, dims, dtype, groups, matmul, ranges, rank, reshape,
                                    settings)

        _FAMILIES[:] = [dtype.advise, dtype.unary, device.advise, device.unavailable, matmul.advise, reshape.advise,
                        ranges.advise, concat.advise, dims.advise, rank.advise, broadcast.advise, groups.advise,
                        groups.group_norm, settings.advise, dtype.names, dtype.quantized]
    return _FAMILIES


def advise(ctx: Context) -> Optional[Advice]:
    """The first family's advice for ``ctx`` (None when no family applies)."""
    for family in _families():
        if ctx.site is not None:
            ctx.site.reset()
        try:
            found = family(ctx)
        except Exception:
            found = None
        if found is not None:
            return found
    return None


def apply(matches: Sequence["Match"], exc: Optional[BaseException] = None, language: Optional[str] = None,
          site: Any = None) -> List["Match"]:
    """``matches`` without unrelated ones (``relevance.py``), with captures cleaned, typed
    values, advice, fix code and chosen site.

    ``exc``: the live exception (Python fix code from its traceback); ``language``: for a
    text, ``python`` when it came with a Python traceback, else ``rust``; ``site``: the
    failing statement in ``exc``'s traceback (``call_site(exc)``), None when unknown.
    """
    if not matches:
        return list(matches)
    matches = _relevant(matches, exc, site)
    python = exc is not None or language == base.PYTHON
    out = []
    for m in matches:
        try:
            out.append(_one(m, site, python))
        except Exception:
            out.append(m)
    return out


def relevant(matches: Sequence["Match"], exc: Optional[BaseException] = None, site: Any = None) -> List["Match"]:
    """``matches`` without the ones unrelated to this error (``relevance.py``); nothing else
    changes. The engine asks this before it decides that its structured pass found nothing;
    ``site`` as for ``apply``."""
    if not matches:
        return list(matches)
    return _relevant(matches, exc, site)


def admitted(match: "Match", site: Callable[[], Any]) -> bool:
    """Whether ``match`` may be offered: always, unless its record is ``onlyVia`` some binding
    calls; then only when the failing statement (``site()``, as for ``apply``; called only for
    such a record) makes such a call. Without a call site (a text) such a record is never offered."""
    if not match.record.get("onlyVia"):
        return True
    try:
        from errhint.advice import relevance

        return relevance.via_call(match, site())
    except Exception:
        return False


def call_site(exc: Optional[BaseException]) -> Any:
    """The failing statement of the user's code in ``exc``'s traceback (None when unknown)."""
    if exc is None:
        return None
    try:
        from errhint.advice import callsite

        return callsite.find(exc)
    except Exception:
        return None


def _relevant(matches: Sequence["Match"], exc: Optional[BaseException], call: Any) -> List["Match"]:
    try:
        from errhint.advice import relevance

        return relevance.keep(matches, exc, call)
    except Exception:
        return list(matches)


def _one(m: "Match", call: Any, python: bool) -> "Match":
    rec = m.record
    caps = values.clean_captures(m.captures)
    typed = values.typed(caps)
    name = sites.variant_name(rec)
    method = None
    if call is not None:
        call.reset()
        node = call.node
        func = getattr(node, "func", None)
        method = getattr(func, "attr", None) if func is not None else None
    binding = _binding_of_repo(rec.repo) if python else None
    if python and binding is None:
        return m.evolve(captures=caps, values=typed, site=sites.choose(rec, typed, name, method))
    ctx = Context(typed, m.message, rec.repo, name, binding, call)
    found = advise(ctx)
    return m.evolve(
        captures=caps, values=typed, site=sites.choose(rec, typed, name, method),
        advice_cause=found.cause if found else None,
        advice_fix=found.fix if found else None,
        fix_code=found.code if found else None,
        fix_language=found.language if found else (base.PYTHON if binding else None),
        record_fix=found.record_fix if found else True,
    )
