"""Each record's text from the facts of its site, never from its family.

Facts used: the crate, the enclosing function and its impl type, the condition guarding the site
(:mod:`builder.guards`), the places that raise a message defined once, the operation names that
reach a burn check, the variant, how the error reaches Python (a ``ValueError`` from candle-nn, a
``PanicException`` from pyburn) and the releases that have the message.  Remediation (cause,
solutions, example fix) is written per template in ``curation/sites/*.jsonl``; a record without
such an entry has none (``curated: false``), so the renderer shows only these facts.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence

from builder.merge import Draft

REPO_NAMES = {
    "huggingface/candle": "candle",
    "tracel-ai/burn": "burn",
    "KwachOjunga/wrap-burn": "pyburn",
}


def _where(draft: Draft) -> str:
    site = draft.site
    fn = f"`{site.fn}`" if site.fn else "module-level code"
    return f"{fn} in {site.path}"


def _code_list(names: Sequence[str], limit: int = 4) -> str:
    names = list(names)
    shown = ", ".join(f"`{n}`" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


HELPER_VERBS = {
    "bail": "returns it as an error",
    "msg": "returns it as an error",
    "string_error": "returns it as an error",
    "pyerr": "raises it as a Python exception",
    "python_raise": "raises it as a Python exception",
    "panic": "panics with it",
    "expect": "panics with it (`.expect`) when the value is missing",
    "assert": "panics with it when its check fails",
    "assert_eq": "panics with it when two values differ",
    "unimplemented": "panics with it as not implemented",
    "unreachable": "panics with it",
    "todo": "panics with it as not yet implemented",
    "tensor_check": "reports it as a failed tensor check",
}


def kind_history(draft: Draft) -> str:
    """A sentence when the message is raised differently across releases (``bail`` → debug assert)."""
    if not draft.kinds_by_version:
        return ""
    name = REPO_NAMES.get(draft.repo, draft.repo.split("/")[-1])
    parts = ", ".join(f"{lab} `{kind}`" for lab, kind in draft.kinds_by_version.items())
    return f"How {name} raises it changed across releases ({parts}); the kind shown is that of {draft.kind_label}."


def site_sentence(draft: Draft) -> str:
    """One sentence saying where and how this message is produced."""
    site = draft.site
    crate = site.crate or REPO_NAMES.get(draft.repo, draft.repo)
    kind = site.kind
    var = site.variant or {}
    vname = f"{var.get('enum')}::{var.get('name')}" if var else ""
    if site.helper:
        verb = f"raises it as `{site.error_class}`" if kind == "pyerr" and site.error_class else HELPER_VERBS.get(kind, "raises it")
        return f"{crate} passes this message to its helper `{site.helper}` from {_where(draft)}; `{site.helper}` {verb}."
    if kind in ("error_variant", "display_arm"):
        raised = sorted({r[2] for r in draft.raised_at if r[2]})
        s = f"This is the Display text of `{vname}`, a variant of {crate}'s error type ({site.path})"
        if raised:
            s += f"; it is raised from {_code_list(raised)}"
        elif draft.raised_at:
            s += f"; it is raised at {len(draft.raised_at)} place(s)"
        return s + "."
    if kind == "variant_construction":
        if var.get("display"):
            return f"{crate} raises `{vname}` with this text from {_where(draft)}."
        return f"{crate} raises `{vname}` from {_where(draft)}; the enum has no Display, so users read it through its Debug form `{var.get('name')}(...)`."
    if kind == "tensor_check":
        ops = draft.tags
        target = f"the {_code_list(ops)} operation{'s' if len(ops) > 1 else ''}" if ops else "a tensor operation"
        return f"burn validates the arguments of {target} before running it (`{site.fn or 'TensorCheck'}` in {site.path}); this reason is listed in the \"Tensor Operation Error\" report when the check fails."
    if kind == "pyerr":
        cls = site.error_class or "Exception"
        return f"The Python binding ({crate}) raises `{cls}` with this message from {_where(draft)}."
    if kind == "python_raise":
        cls = site.error_class or "Exception"
        return f"The Python code of the binding raises `{cls}` with this message ({_where(draft)})."
    verbs = {
        "bail": "returns this error",
        "msg": "returns this error",
        "string_error": "returns this message as an error",
        "io_error": "returns this I/O error",
        "panic": "panics with this message",
        "unimplemented": "panics (`not implemented: ` + this text) for a case it does not implement",
        "todo": "panics (`not yet implemented: ` + this text) for a case left for later",
        "unreachable": "panics (`internal error: entered unreachable code: ` + this text) on a state it deems impossible",
        "assert": "panics with this message when an assertion fails",
        "assert_eq": "panics with this message (plus left/right values) when two values differ",
        "expect": "panics with this message when `.expect` gets `None` or an error (an error's Debug text follows the message)",
    }
    verb = verbs.get(kind, "reports this error")
    return f"{crate} {verb} in {_where(draft)}."


def surfacing_sentence(draft: Draft, error_type: str) -> str:
    """How the message reaches a Python user of the bindings."""
    site = draft.site
    if error_type == "compile":
        return "It is reported while compiling Rust code, never at run time."
    if site.kind in ("pyerr", "python_raise"):
        return f"Python code catches it as `{site.error_class or 'Exception'}`."
    if error_type == "panic":
        return "Python sees a `PanicException` (a BaseException: `except Exception` misses it)."
    if draft.repo == "huggingface/candle":
        var = site.variant or {}
        if var.get("name"):
            return f"Python sees a `ValueError` (candle-nn 0.4.2 prints the Debug form `{var.get('name')}..`)."
        return "Python sees a `ValueError` (candle-nn 0.4.2 prints it as `Msg(\"..\")`)."
    if draft.repo == "tracel-ai/burn":
        return "burn returns it as an error; unwrapped in pyburn it becomes a `PanicException`."
    return ""


ONNX_CRATES = {"onnx-ir", "burn-import", "candle-onnx", "burn-onnx"}
_NODE = re.compile(r"^([A-Z][A-Za-z0-9]+)(?: node| op| operator)?:")


def onnx_node(draft: Draft) -> Optional[str]:
    """The ONNX operator an importer message starts with (``Unsqueeze: axes must ..``)."""
    first = draft.template.pieces[0] if draft.template.pieces else ""
    m = _NODE.match(first) if isinstance(first, str) else None
    return m.group(1) if m else None


def keyword(draft: Draft) -> str:
    """A stable piece of the message to test for in ``except`` blocks."""
    var = draft.site.variant or {}
    if var.get("name") and draft.repo == "huggingface/candle" and draft.site.kind in ("error_variant", "display_arm", "variant_construction"):
        return str(var["name"])
    runs = [p.strip() for p in draft.template.pieces if isinstance(p, str)]
    runs = [r for r in runs if r]
    best = max(runs, key=len) if runs else draft.template.literal.strip()
    best = best[:40]
    return best.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def try_catch(draft: Draft, error_type: str) -> Optional[str]:
    kw = keyword(draft)
    if error_type == "compile":
        return None
    if error_type == "panic":
        return (
            f"try:\n    step()\nexcept BaseException as exc:  # PanicException\n    if \"{kw}\" not in str(exc):\n        raise"
        )
    cls = draft.site.error_class or ("ValueError" if draft.repo == "huggingface/candle" else "Exception")
    return f"try:\n    step()\nexcept {cls} as exc:\n    if \"{kw}\" not in str(exc):\n        raise"


def version_fact(draft: Draft, newest: Dict[str, str], all_labels: Dict[str, List[str]]) -> str:
    """A sentence when the message is gone from the newest scanned release."""
    latest = newest.get(draft.repo)
    labels = all_labels.get(draft.repo, [])
    if latest is None or len(labels) < 2 or latest in draft.versions:
        return ""
    name = REPO_NAMES.get(draft.repo, draft.repo)
    return f"The message was last seen in {name} {draft.versions[-1]}; {latest} no longer has it."


MAX_PLACES = 3
"""raisedAt entries quoted (with their conditions) in a definition's ``triggerScenarios``."""


def _place(fn: Optional[str], guard: Optional[str], path: str, crate: str = "") -> str:
    where = f"`{fn}`" if fn else f"module-level code of {path}"
    return where + (f" ({crate})" if crate else "") + (f" when {guard}" if guard else "")


def trigger_facts(draft: Draft) -> str:
    """When the message fires, from the source only: the function (with its impl type) and the
    condition guarding the site, or, for a message defined once and raised elsewhere, the places
    that raise it with their conditions.  No family text."""
    site = draft.site
    crate = site.crate or REPO_NAMES.get(draft.repo, draft.repo)
    if site.kind in ("error_variant", "display_arm"):
        places = [_place(fn, guard, path) for path, _, fn, guard in draft.raised_at[:MAX_PLACES]]
        if not places:
            return ""
        more = len(draft.raised_at) - MAX_PLACES
        tail = f"; and at {more} more place{'s' if more > 1 else ''} (see raisedAt)" if more > 0 else ""
        return f"{crate} raises it in " + "; in ".join(places) + tail + "."
    if site.helper:
        caller = f"`{site.function}`" if site.function else f"module-level code of {site.path}"
        s = f"Raised through {crate}'s helper `{site.helper}`, called from {caller}"
        return s + (f"; `{site.helper}` fails when {site.guard}." if site.guard else ".")
    if site.kind == "tensor_check":
        check = f"`{site.function}`" if site.function else "a tensor check"
        s = f"burn's {check} reports it" + (f" when {site.guard}" if site.guard else "") + "."
        if draft.tags:
            s += f" Operations that run this check: {_code_list(draft.tags, 6)}."
        return s
    s = f"Raised in {_place(site.function, site.guard, site.path, crate)}."
    others = [r for r in draft.raised_at if r[3] and (r[2], r[3]) != (site.function, site.guard)]
    others = list({(r[2], r[3]): r for r in others}.values())[: MAX_PLACES - 1]
    if others:
        s += " Also raised in " + "; in ".join(_place(fn, guard, path) for path, _, fn, guard in others) + "."
    return s


def compose(draft: Draft, family: Dict[str, Any], error_type: str, newest: Dict[str, str], all_labels: Dict[str, List[str]]) -> Dict[str, Any]:
    """The text fields of one record, from the site's facts only.

    Nothing of the family is copied: a record whose template nobody has written for says what
    the source says (where and how the message is raised, the condition guarding it, how Python
    sees it) and has no solutions and no example fix; ``curation/sites/*.jsonl`` supplies the
    written text (``records.apply_curated``).  Only ``handlingStrategy`` (a classification the
    renderer does not show as advice) comes from the family.
    """
    node = onnx_node(draft) if draft.site.crate in ONNX_CRATES else None
    doc = " ".join(
        x
        for x in (
            site_sentence(draft),
            f"The message names the ONNX `{node}` node of the graph being imported." if node else "",
            surfacing_sentence(draft, error_type),
            kind_history(draft),
            version_fact(draft, newest, all_labels),
        )
        if x
    )
    return {
        "documentation": doc,
        "triggerScenarios": trigger_facts(draft),
        "commonSituations": "",
        "solutions": [],
        "exampleFix": "",
        "handlingStrategy": family["handlingStrategy"],
        "preventionTips": [],
        "tryCatchPattern": try_catch(draft, error_type),
    }
