"""Draft → record dict (camelCase, every seed field present, schemaVersion 2)."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from builder.compose import REPO_NAMES, compose
from builder.merge import Draft
from builder.sites import PANIC_KINDS
from builder.template import synthesize, to_regex

MAX_LINK_LINES = 12
MAX_RAISED_AT = 5

# fields a curated line may not override: identity, location, matching
PROTECTED = {
    "id", "repo", "errorMessage", "messagePattern", "filePath", "lineNumber", "githubUrl",
    "analyzedSha", "analyzedAt", "schemaVersion", "versions", "variant", "crate", "siteKind",
    "sourceCode", "sourceCodeStart", "sourceCodeEnd", "pulledInBy", "raisedAt", "siteKindByVersion",
    "errorType", "errorClass", "generic", "function", "condition", "curated",
}
TEXT_FIELDS = ("documentation", "triggerScenarios", "solutions", "exampleFix")
"""A curated entry giving any of these was written for its template (``curated: true``)."""


def error_type(draft: Draft) -> str:
    if draft.site.crate.endswith("-derive"):
        return "compile"
    return "panic" if draft.site.kind in PANIC_KINDS else "exception"


def error_class(draft: Draft, etype: str) -> Optional[str]:
    """The Python exception class a binding user catches, when it is certain."""
    site = draft.site
    if site.kind in ("pyerr", "python_raise"):
        return site.error_class
    if etype == "panic":
        return "PanicException"
    if draft.repo == "huggingface/candle" and etype == "exception":
        return "ValueError"
    return None


def slug(draft: Draft) -> str:
    words = re.findall(r"[a-z0-9]+", draft.template.literal.lower())
    out: List[str] = []
    for w in words:
        if len("-".join(out + [w])) > 60:
            break
        out.append(w)
    return "-".join(out) or "error-site"


def message_text(draft: Draft) -> str:
    text = draft.template.text
    if draft.site.tail is not None and draft.site.tail.pieces:
        text += " " + draft.site.tail.text
    return text


def example(draft: Draft) -> List[str]:
    """Messages synthesised from the template (named values first, neutral values second)."""
    tail = draft.site.tail
    return [synthesize(draft.template, tail), synthesize(draft.template, tail, variant=1)]


def build_record(draft: Draft, tag: str, family: Dict[str, Any], newest: Dict[str, str], all_labels: Dict[str, List[str]]) -> Dict[str, Any]:
    site = draft.site
    etype = error_type(draft)
    start = site.line
    end = max(site.end_line, start)
    end = min(end, start + MAX_LINK_LINES)
    text = compose(draft, family, etype, newest, all_labels)
    tags = [REPO_NAMES.get(draft.repo, draft.repo.split("/")[-1]), site.crate, site.kind, tag]
    tags += list(draft.tags)[:6]
    if site.variant:
        tags.append(str(site.variant.get("name")))
    seen = set()
    tags = [t for t in tags if t and not (t in seen or seen.add(t))]
    record: Dict[str, Any] = {
        "id": draft.id,
        "repo": draft.repo,
        "slug": slug(draft),
        "errorCode": None,
        "errorMessage": message_text(draft),
        "messagePattern": to_regex(draft.template, site.tail if site.tail is not None and site.tail.pieces else None),
        "errorType": etype,
        "errorClass": error_class(draft, etype),
        "httpStatus": None,
        "severity": "error",
        "filePath": site.path,
        "lineNumber": site.line,
        "sourceCode": None,
        "sourceCodeStart": start,
        "sourceCodeEnd": end,
        "githubUrl": f"https://github.com/{draft.repo}/blob/{draft.commit}/{site.path}#L{start}-L{end}",
        "documentation": text["documentation"],
        "triggerScenarios": text["triggerScenarios"],
        "commonSituations": text["commonSituations"],
        "solutions": text["solutions"],
        "exampleFix": text["exampleFix"],
        "handlingStrategy": text["handlingStrategy"],
        "validationCode": None,
        "typeGuard": None,
        "tryCatchPattern": text["tryCatchPattern"],
        "preventionTips": text["preventionTips"],
        "tags": tags,
        "backgroundTag": tag,
        "analyzedSha": draft.commit,
        "analyzedAt": draft.date,
        "contentChangedAt": None,
        "schemaVersion": 2,
        "crate": site.crate,
        "siteKind": site.kind,
        "versions": list(draft.versions),
        "variant": site.variant,
        "pulledInBy": draft.pulled_in_by,
    }
    for optional in ("variant", "pulledInBy"):
        if record[optional] is None:
            del record[optional]
    if draft.kinds_by_version:
        record["siteKindByVersion"] = dict(draft.kinds_by_version)
    if site.function:
        record["function"] = site.function
    if site.guard:
        record["condition"] = site.guard
    record["curated"] = False
    if draft.raised_at:
        record["raisedAt"] = [_raised(p, ln, fn, guard) for p, ln, fn, guard in draft.raised_at[:MAX_RAISED_AT]]
    return record


def _raised(path: str, line: int, fn: Optional[str], guard: Optional[str]) -> Dict[str, Any]:
    # `fn` stays the bare function name (readers match on it); the impl type is in the text
    out: Dict[str, Any] = {"file": path, "line": line, "fn": fn.rsplit("::", 1)[-1] if fn else fn}
    if guard:
        out["condition"] = guard
    return out


def apply_curated(record: Dict[str, Any], curated: Dict[str, Any]) -> Dict[str, Any]:
    """Overlay curated per-site text (curation/sites/*.jsonl) on a generated record."""
    out = dict(record)
    for k, v in curated.items():
        if k in PROTECTED:
            continue
        out[k] = v
    if any(k in curated for k in TEXT_FIELDS):
        out["curated"] = True
    return out
