"""Family catalogue (``curation/families.json``): assigning a ``backgroundTag`` to each draft.

Rules are data, not code: each family lists rules whose conditions (variant name, message
keywords, crate, file path, enclosing function, site kind, repository) must all hold.  Rules are tried by rank (variant names
first, then message keywords, then crates, then site kinds; a rule may set its rank), and in
catalogue order within a rank, so that a message about dtypes in a Metal kernel is classed as a
dtype problem before the Metal fallback sees it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Pattern, Sequence, Tuple

from builder.merge import Draft

TEXT_FIELDS = (
    "title",
    "documentation",
    "triggerScenarios",
    "commonSituations",
    "solutions",
    "exampleFix",
    "preventionTips",
    "handlingStrategy",
)


@dataclass(frozen=True)
class Rule:
    rank: float
    order: int
    tag: str
    variant: Optional[Pattern[str]]
    message: Optional[Pattern[str]]
    crate: Optional[Pattern[str]]
    kind: Optional[Tuple[str, ...]]
    repo: Optional[str]
    path: Optional[Pattern[str]] = None
    fn: Optional[Pattern[str]] = None
    """Searched in the enclosing function names of the newest release's sites (``max_pool2d``)."""

    def holds(self, draft: Draft) -> bool:
        site = draft.site
        if self.repo is not None and draft.repo != self.repo:
            return False
        if self.variant is not None:
            name = str((site.variant or {}).get("name") or "")
            if not name or not self.variant.fullmatch(name):
                return False
        if self.message is not None and not self.message.search(rule_text(draft)):
            return False
        if self.path is not None and not self.path.search(site.path):
            return False
        if self.fn is not None and not any(self.fn.search(f) for f in (draft.fns or ([site.fn] if site.fn else []))):
            return False
        if self.crate is not None and not self.crate.fullmatch(site.crate or ""):
            return False
        if self.kind is not None and not any(k in self.kind for k in draft.kinds):
            return False
        return True


class Catalogue:
    """The family entries keyed by tag, plus the compiled assignment rules."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.families: Dict[str, Dict[str, Any]] = {}
        rules: List[Rule] = []
        for order, fam in enumerate(data["families"]):
            tag = fam["tag"]
            self.families[tag] = {k: fam[k] for k in TEXT_FIELDS}
            for r in fam.get("rules", []):
                rank = r.get("rank")
                if rank is None:
                    rank = 1 if "variant" in r else 2 if "message" in r else 2.5 if ("path" in r or "fn" in r) else 3 if "crate" in r else 4
                rules.append(
                    Rule(
                        rank=float(rank),
                        order=order,
                        tag=tag,
                        variant=re.compile(r["variant"]) if "variant" in r else None,
                        message=re.compile(r["message"], re.I) if "message" in r else None,
                        crate=re.compile(r["crate"]) if "crate" in r else None,
                        kind=tuple(r["kind"]) if "kind" in r else None,
                        repo=r.get("repo"),
                        path=re.compile(r["path"]) if "path" in r else None,
                        fn=re.compile(r["fn"]) if "fn" in r else None,
                    )
                )
        self.rules = sorted(rules, key=lambda r: (r.rank, r.order))
        self.default = data["families"][-1]["tag"]

    @classmethod
    def load(cls, path: Path) -> "Catalogue":
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def assign(self, draft: Draft) -> str:
        for rule in self.rules:
            if rule.holds(draft):
                return rule.tag
        return self.default

    def shipped(self) -> Dict[str, Any]:
        """``errhint_data/families.json``: {"families": {tag: {title, documentation, ...}}} with the
        role placeholders reduced to plain ``{role}`` names the renderer understands."""
        out: Dict[str, Any] = {}
        for tag in sorted(self.families):
            fam = self.families[tag]
            entry: Dict[str, Any] = {}
            for k in TEXT_FIELDS:
                v = fam[k]
                if isinstance(v, dict):
                    default = v.get("default") or next(iter(v.values()))
                    entry[k] = [plain_roles(x) for x in default] if isinstance(default, list) else default
                    entry[k + "ByRepo"] = {
                        r: ([plain_roles(x) for x in t] if isinstance(t, list) else t) for r, t in sorted(v.items()) if r != "default"
                    }
                elif isinstance(v, list):
                    entry[k] = [plain_roles(x) for x in v]
                elif isinstance(v, str):
                    entry[k] = plain_roles(v)
                else:
                    entry[k] = v
            out[tag] = entry
        return {"families": out}


def rule_text(draft: Draft) -> str:
    """The text message rules search: the literal message with placeholders as ``{name}``."""
    parts = [draft.template]
    if draft.site.tail is not None:
        parts.append(draft.site.tail)
    out = []
    for tpl in parts:
        for p in tpl.pieces:
            out.append(p if isinstance(p, str) else "{" + p.group + "}")
        out.append(" ")
    return "".join(out)


def for_repo(value: Any, repo: str) -> Any:
    """A family field that may be per repository: ``{repo: value, "default": value}``."""
    if isinstance(value, dict):
        key = "tracel-ai/burn" if repo == "KwachOjunga/wrap-burn" else repo
        return value.get(key) or value.get("default") or next(iter(value.values()))
    return value


ROLE = re.compile(r"\{([a-z_]+)(?:\|([^{}]*))?\}")
FACT = re.compile(r"\[\[([a-z_]+)\]\]")


def plain_roles(text: str) -> str:
    """``{dtype|the input dtype}`` → ``{dtype}`` (for the shipped catalogue)."""
    return ROLE.sub(lambda m: "{" + m.group(1) + "}", text)
