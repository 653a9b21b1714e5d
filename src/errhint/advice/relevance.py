"""Nothing unrelated: which matches of one error are dropped before advice is computed.

* The same headline twice from one repository, with the same values captured, is one error
  raised at several sites: the later
  match becomes an ``also`` id of the first (a short generic pattern such as candle's
  ``dtype mismatch in {op}`` of ``CpuStorage::concat`` no longer rides along with the
  ``DTypeMismatchBinaryOp`` match of the same message).
* A ``generic: true`` record (a short pattern that also matches other records' texts) is
  not a second hint beside a full, specific match of the same message: it becomes ``also``.
* When the error's origin is known, a record of another repository is not offered: the
  failing call of the user's code is a ``candle``/``pyburn`` call (its module, or a tensor of
  that binding as the receiver), or the text is a candle Debug form while candle alone of
  the bindings is imported.  A record
  belongs to a binding when its repository is the binding's or it is a dependency release
  pulled in by it (``pulledInBy``).
* A record with ``onlyVia`` (a generic Rust text, such as an index out of bounds inside a
  dependency, that is about one binding method) is offered only when the failing call of the
  user's code is one of those methods of that binding (``via_call``); never for a text.
* A ``generic: true`` record is not offered for an exception raised as another package's
  class (``pydantic_core.ValidationError``): its one-word pattern matches unrelated text.
* A live exception whose text is a bare message cannot come from a candle *returned* error
  through candle-nn < 0.8.2, which shows every ``candle::Error`` in its Debug form
  (``Msg("...")``, ``Variant { .. }``): such a match (``bail``/``msg``/variant kinds, no site
  in candle-pyo3, which raises some texts itself) is dropped, so ``[1, 2, 3][::0]`` does not get candle's ``slice step cannot be zero`` (only for
  an exception that was raised: a constructed one may carry a text pasted from anywhere).
"""

from __future__ import annotations

import sys

from typing import Any, List, Optional, Sequence

from errhint.match import Match

from errhint import bindings

BINDING_REPOS = {name: tuple(b.repos) for name, b in bindings.BINDINGS.items()}
"""Binding package -> the repositories of its errors (from ``errhint.bindings``)."""
RETURNED_KINDS = frozenset({"bail", "msg", "error_variant", "variant_construction", "display_arm"})
DEBUG_FORM_UNTIL = (0, 8, 2)
"""candle-nn releases before this show candle errors in their Debug form (docs/matching.md)."""


def _version(text: Optional[str]) -> Optional[tuple]:
    if not text:
        return None
    parts = []
    for p in text.split(".")[:3]:
        digits = "".join(ch for ch in p if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None


def origin(site: Any) -> Optional[str]:
    """``candle``/``pyburn`` when the failing call of the user's code is the binding's."""
    if site is not None:
        import ast  # a call site exists, so ast is loaded already

        node = site.node
        if isinstance(node, ast.Call):
            func = node.func
            while isinstance(func, ast.Attribute):
                found = _binding_of_value(site, func.value)
                if found:
                    return found
                func = func.value
            if isinstance(func, ast.Name):
                found = _binding_of_value(site, func)
                if found:
                    return found
        elif isinstance(node, ast.BinOp):
            for side in (node.left, node.right):
                found = _binding_of_value(site, side)
                if found:
                    return found
    return None


def via_call(match: "Match", site: Any) -> bool:
    """Whether the failing call of ``site`` is one of the ``binding.method`` names in the record's
    ``onlyVia`` (``pyburn.mean_dim``): a method call whose receiver is that binding's."""
    wanted = match.record.get("onlyVia") or ()
    if site is None or not wanted:
        return False
    import ast  # a call site exists, so ast is loaded already

    node = site.node
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    binding = origin(site)
    return binding is not None and f"{binding}.{node.func.attr}" in wanted


def _debug_form(text: str) -> bool:
    """``Name(..)``/``Name { .. }``: how candle-nn < 0.8.2 shows every candle error."""
    head = text.lstrip()
    i = 0
    while i < len(head) and (head[i].isalnum() or head[i] == "_"):
        i += 1
    return i > 0 and head[0].isupper() and head[i:i + 1] in ("(", " ") and head[i:i + 2] in ("(", " {") or head[i:i + 1] == "("


def fallback_origin(raw: str) -> Optional[str]:
    """Without a call site: a candle Debug form while candle alone of the bindings is imported."""
    loaded = [b for b in BINDING_REPOS if b in sys.modules]
    return "candle" if loaded == ["candle"] and _debug_form(raw) else None


def _binding_of_value(site: Any, expr: Any) -> Optional[str]:
    value = site.value(expr)
    name = getattr(value, "__name__", None) if isinstance(value, type(sys)) else None
    if isinstance(name, str) and name.split(".", 1)[0] in BINDING_REPOS:
        return name.split(".", 1)[0]
    candle = sys.modules.get("candle")
    tensor = getattr(candle, "Tensor", None)
    if tensor is not None and isinstance(value, tensor):
        return "candle"
    if type(value).__name__.startswith("TensorPy") and "pyburn" in sys.modules:
        return "pyburn"
    return None


def _belongs(match: "Match", binding: str) -> bool:
    repos = BINDING_REPOS[binding]
    rec = match.record
    if rec.repo in repos:
        return True
    pulled = rec.get("pulledInBy") or ()
    return any(isinstance(p, str) and p.split("@", 1)[0] in repos for p in pulled)


def _bare_candle(match: "Match", raw: str) -> bool:
    rec = match.record
    if rec.repo != "huggingface/candle" or rec.get("siteKind") not in RETURNED_KINDS:
        return False
    if raw.strip() != match.message.strip() or _debug_form(raw):
        return False  # another text, or the Debug form itself (a record of the Debug text)
    from errhint.advice.site import sites

    if any(s["file"].startswith("candle-pyo3/") for s in sites(match.record)):
        return False  # the binding raises this text itself (a PyErr), bare
    from errhint import distinfo

    installed = _version(distinfo.version("candle-nn"))
    return installed is not None and installed < DEBUG_FORM_UNTIL


def _same_error(a: "Match", b: "Match") -> bool:
    """One error at two sites: same repository, same message, the same values captured (a
    pattern of an outer layer, ``wgpu error: {err}``, captures other values than the inner)."""
    if a.record.repo != b.record.repo or a.message.strip() != b.message.strip():
        return False
    if b.record.get("generic") and a.kind == "full" and not a.record.get("generic"):
        return True  # a short generic pattern beside the specific match of the same message
    va = {v for v in a.captures.values() if v}
    vb = {v for v in b.captures.values() if v}
    return va == vb


BINDING_EXCEPTION_MODULES = frozenset({"builtins", "pyo3_runtime"}) | frozenset(bindings.MODULES)


def _foreign_type(exc: BaseException) -> bool:
    """Raised as a class of another package (``pydantic_core.ValidationError``): the bindings
    raise builtin classes and pyo3's ``PanicException`` only."""
    module = getattr(type(exc), "__module__", "") or ""
    return isinstance(module, str) and module.split(".", 1)[0] not in BINDING_EXCEPTION_MODULES


def keep(matches: Sequence["Match"], exc: Optional[BaseException], site: Any) -> List["Match"]:
    """``matches`` without the unrelated ones (see the module docstring), best first still."""
    out: List["Match"] = []
    raw = None
    if exc is not None:
        from errhint.extract import safe_str

        raw = safe_str(exc)
    # only an exception that was raised (has a traceback) is known to come from this process's
    # binding; a constructed one may carry a text pasted from anywhere
    raised = exc is not None and getattr(exc, "__traceback__", None) is not None
    binding = None
    if exc is not None:
        binding = origin(site) or fallback_origin(raw or "")
    foreign = raised and _foreign_type(exc)
    for m in matches:
        if raised and raw is not None and _bare_candle(m, raw):
            continue
        if foreign and m.record.get("generic"):
            continue
        if binding is not None and not _belongs(m, binding):
            continue
        same = next((i for i, k in enumerate(out) if _same_error(k, m)), None)
        if same is not None:
            out[same] = out[same].evolve(also=tuple(out[same].also) + (m.id,) + tuple(m.also))
            continue
        out.append(m)
    return out
