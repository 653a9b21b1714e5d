"""Merge the same template across releases into one draft record.

Key: repository + the template with placeholders reduced to ``{}`` (names and specs do not change
the message a user reads) + the error-enum variant for variant records.  The draft keeps the
file, line and link of the newest release that has the template, and the list of releases.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from errhint.build.scan import SnapshotResult
from errhint.build.sites import Site
from errhint.build.sources import Source
from errhint.build.template import Template

KIND_PRIORITY = [
    "tensor_check",
    "error_variant",
    "display_arm",
    "msg",
    "bail",
    "pyerr",
    "python_raise",
    "variant_construction",
    "panic",
    "unimplemented",
    "todo",
    "unreachable",
    "assert_eq",
    "assert",
    "expect",
    "string_error",
    "io_error",
]
MIN_LITERAL_CHARS = 8


@dataclass
class Draft:
    """One future record before text and gates."""

    repo: str
    key: str
    variant_key: str
    site: Site
    """Representative site at the newest release having the template."""
    commit: str
    date: str
    label: str
    versions: List[str]
    fns: List[str] = field(default_factory=list)
    kinds: List[str] = field(default_factory=list)
    tags: List[str] = field(default_factory=list)
    raised_at: List[Tuple[str, int, Optional[str]]] = field(default_factory=list)
    site_count: int = 0
    pulled_in_by: Optional[List[str]] = None

    @property
    def template(self) -> Template:
        assert self.site.template is not None
        return self.site.template

    @property
    def id(self) -> str:
        return record_id(self.repo, self.key, self.variant_key)


def record_id(repo: str, template_key: str, variant_key: str = "") -> str:
    """First 16 hex chars of sha256(repo \\0 template [\\0 Enum::Variant]): stable across builds."""
    data = repo + "\0" + template_key + ("\0" + variant_key if variant_key else "")
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


def site_key(site: Site) -> Optional[str]:
    if site.template is None:
        return None
    key = site.template.key
    if site.tail is not None and site.tail.pieces:
        key += "\0" + site.tail.key
    return key


def matchable(site: Site) -> Optional[str]:
    """Why a site with a literal cannot become a record (None if it can)."""
    tpl = site.template
    if tpl is None:
        return site.reason or "no literal"
    if tpl.is_passthrough():
        return "passthrough"
    if tpl.literal_chars() < MIN_LITERAL_CHARS:
        return "too generic (<8 literal chars)"
    return None


def _rank(site: Site) -> Tuple[int, int, str, int]:
    kind_rank = KIND_PRIORITY.index(site.kind) if site.kind in KIND_PRIORITY else len(KIND_PRIORITY)
    return (0 if site.definition else 1, kind_rank, site.path, site.line)


def _pulled_in_by(sources: Iterable[Source]) -> Optional[List[str]]:
    """Dependency crates: every release that pulls in *some* version having the template
    (issue 8), not only the newest version's."""
    out = list(dict.fromkeys(p for s in sources for p in (s.pulled_in_by or ())))
    return out or None


def merge(results: Sequence[SnapshotResult]) -> List[Draft]:
    """Drafts for every matchable template, in a deterministic order (repo, key, variant)."""
    by_key: Dict[Tuple[str, str, str], Dict[str, List[Site]]] = {}
    order: Dict[str, List[str]] = {}
    res_by: Dict[Tuple[str, str], SnapshotResult] = {}
    for r in results:
        order.setdefault(r.source.repo, []).append(r.source.label)
        res_by[(r.source.repo, r.source.label)] = r
        for s in r.sites:
            if matchable(s) is not None:
                continue
            k = site_key(s)
            assert k is not None
            by_key.setdefault((r.source.repo, k, s.variant_key), {}).setdefault(r.source.label, []).append(s)
    drafts: List[Draft] = []
    for (repo, key, vkey) in sorted(by_key):
        per_label = by_key[(repo, key, vkey)]
        labels = [lab for lab in order[repo] if lab in per_label]
        newest = labels[-1]
        res = res_by[(repo, newest)]
        sites = sorted(per_label[newest], key=_rank)
        rep = sites[0]
        all_sites = [s for lab in labels for s in per_label[lab]]
        fns = sorted({s.fn for s in per_label[newest] if s.fn})
        kinds = sorted({s.kind for s in all_sites}, key=lambda k: KIND_PRIORITY.index(k) if k in KIND_PRIORITY else 99)
        tags = sorted({t for s in all_sites for t in s.tags})
        raised: List[Tuple[str, int, Optional[str]]] = []
        if vkey:
            raised = sorted(set(res.raised_at.get(f"{rep.crate}:{vkey}", [])))
            raised += sorted({(s.path, s.line, s.fn) for s in per_label[newest] if not s.definition} - set(raised))
        drafts.append(
            Draft(
                repo=repo,
                key=key,
                variant_key=vkey,
                site=rep,
                commit=res.source.commit,
                date=res.date,
                label=newest,
                versions=labels,
                fns=fns,
                kinds=kinds,
                tags=tags,
                raised_at=raised,
                site_count=len(per_label[newest]),
                pulled_in_by=_pulled_in_by(res_by[(repo, lab)].source for lab in labels),
            )
        )
    return drafts
