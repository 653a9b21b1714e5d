"""Each record's own text: its family's remediation, specialised with the facts of the site.

Facts used: the crate, the enclosing function, the file, the operation names that reach a burn
check, the variant, how the error reaches Python (a ``ValueError`` from candle-nn, a
``PanicException`` from pyburn), the releases that have the message, and the capture groups of
the pattern (``{dtype}`` in family text becomes the record's own dtype group, or a fallback
phrase when the message has no such value).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence

from builder.families import FACT, ROLE, for_repo
from builder.merge import Draft
from builder.sites import PANIC_KINDS
from builder.template import Placeholder, Template

# capture role → words that identify it (in a group name or in the literal word before it)
ROLE_WORDS: Dict[str, Sequence[str]] = {
    "dtype": ("dtype", "dt", "ty", "dtypes", "type", "precision"),
    "op": ("op", "ops", "op_name", "operation", "kernel"),
    "lhs": ("lhs", "l", "left", "a"),
    "rhs": ("rhs", "r", "right", "b"),
    "shape": ("shape", "dims", "shapes", "layout"),
    "src_shape": ("src_shape", "src", "from"),
    "dst_shape": ("dst_shape", "dst", "to", "target"),
    "dim": ("dim", "axis", "dimension"),
    "device": ("device", "dev", "location"),
    "path": ("path", "file", "filename", "dir"),
    "name": ("name", "key", "tensor_name", "var"),
    "index": ("index", "idx", "id", "ids"),
    "len": ("len", "length", "count"),
    "start": ("start", "offset", "begin"),
}

NEUTRAL = {
    "dtype": "the tensor's dtype",
    "op": "the operation",
    "lhs": "the left operand",
    "rhs": "the right operand",
    "shape": "the tensor's shape",
    "src_shape": "the source shape",
    "dst_shape": "the target shape",
    "dim": "the dimension",
    "device": "the device",
    "path": "the file",
    "name": "the requested name",
    "index": "the index",
    "len": "the requested length",
    "start": "the start offset",
}

REPO_NAMES = {
    "huggingface/candle": "candle",
    "tracel-ai/burn": "burn",
    "KwachOjunga/wrap-burn": "pyburn",
}


def roles_of(tpl: Template) -> Dict[str, str]:
    """Map capture roles to this template's group names (first match wins).

    A group's role comes from its own name (``dtype``, ``lhs``), the field it prints, or the word
    just before it in the message (``unsupported dtype {0:?}`` → dtype).
    """
    out: Dict[str, str] = {}
    prev = ""
    for p in tpl.pieces:
        if isinstance(p, str):
            prev = p
            continue
        assert isinstance(p, Placeholder)
        words = [p.group.lower(), re.sub(r"_\d+$", "", p.group.lower())]
        if p.field is not None and not p.field.isdigit():
            words.append(p.field.lower())
        tail = re.findall(r"[A-Za-z_]+", prev[-24:])
        if tail and re.search(r"[A-Za-z_][ :=(]{0,2}$", prev):
            words.append(tail[-1].lower())
        for role, names in ROLE_WORDS.items():
            if role not in out and any(w in names for w in words):
                out[role] = p.group
                break
        prev = ""
    return out


def fill_roles(text: str, roles: Dict[str, str]) -> str:
    def sub(m: "re.Match[str]") -> str:
        role, fallback = m.group(1), m.group(2)
        if role in roles:
            return "{" + roles[role] + "}"
        if fallback is not None:
            return fallback
        return NEUTRAL.get(role, "the value")

    return ROLE.sub(sub, text)


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


def first_sentence(text: str) -> str:
    return _SENTENCE.split(text.strip(), 1)[0]


def fill_facts(text: str, facts: Dict[str, str]) -> str:
    return FACT.sub(lambda m: facts.get(m.group(1), m.group(0)), text)


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
        raised = sorted({fn for _, _, fn in draft.raised_at if fn})
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
        "expect": "panics with this message (plus the underlying error) when a step it relies on fails",
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


def version_note(draft: Draft, newest: Dict[str, str], all_labels: Dict[str, List[str]]) -> Optional[str]:
    """A solution line when the message is gone from, or new in, the newest release."""
    latest = newest.get(draft.repo)
    labels = all_labels.get(draft.repo, [])
    if latest is None or len(labels) < 2:
        return None
    name = REPO_NAMES.get(draft.repo, draft.repo)
    if latest not in draft.versions:
        return f"Last seen in {name} {draft.versions[-1]}, gone in {latest}: upgrading changes this check"
    return None


def compose(draft: Draft, family: Dict[str, Any], error_type: str, newest: Dict[str, str], all_labels: Dict[str, List[str]]) -> Dict[str, Any]:
    """The text fields of one record."""
    roles = roles_of(draft.template)
    site = draft.site
    facts = {
        "fn": site.fn or "this function",
        "crate": site.crate,
        "file": site.path,
        "ops": ", ".join(draft.tags) if draft.tags else (site.fn or "the operation"),
    }

    def render(text: str) -> str:
        return fill_facts(fill_roles(text, roles), facts)

    fam = {k: for_repo(v, draft.repo) for k, v in family.items()}
    doc = " ".join(x for x in (site_sentence(draft), first_sentence(render(fam["documentation"])), surfacing_sentence(draft, error_type), kind_history(draft)) if x)
    trigger = render(fam["triggerScenarios"])
    if draft.tags and site.kind == "tensor_check":
        trigger += f" Operations that run this check: {_code_list(draft.tags, 6)}."
    elif site.fn and site.kind not in ("error_variant", "display_arm"):
        trigger += f" Raised in `{site.fn}` ({site.crate})."
    elif site.kind in ("error_variant", "display_arm") and draft.raised_at:
        fns = sorted({fn for _, _, fn in draft.raised_at if fn})
        if fns:
            trigger += f" {site.crate} raises it from {_code_list(fns)}."
    # the first two, specialised; the renderer appends the rest of the family's list
    solutions = [render(s) for s in fam["solutions"][:2]]
    node = onnx_node(draft)
    if node and draft.site.crate in ONNX_CRATES:
        solutions.insert(0, f"Inspect the `{node}` node of the exported graph - its inputs, attributes and opset - for example in Netron or via `[n for n in onnx.load(path).graph.node if n.op_type == \"{node}\"]`")
    note = version_note(draft, newest, all_labels)
    if note:
        solutions.append(note)
    return {
        "documentation": doc,
        "triggerScenarios": trigger,
        # the family's situations and tips are shown with every record (families.json), so the
        # record keeps only what is its own
        "commonSituations": "",
        "solutions": solutions,
        "exampleFix": fam["exampleFix"],
        "handlingStrategy": fam["handlingStrategy"],
        "preventionTips": [],
        "tryCatchPattern": try_catch(draft, error_type),
    }
