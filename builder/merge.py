"""Merge the same template across releases into one draft record.

Key: repository + the template with placeholders reduced to ``{}`` (names and specs do not change
the message a user reads) + the error-enum variant for variant records.  The draft keeps the
file, line and link of the newest release that has the template, and the list of releases.

Two sites are chosen per draft:

* the *location* (``site``): among the newest release's sites of the template, the definition
  of the message if there is one, then a CPU/generic path before a backend-specific one
  (metal, cuda, hip, wgpu, accelerate, mkl), then by kind, path and line; the other sites are
  listed as ``raised_at``;
* the *kind* (``kind_site``): how the message is raised in the release a pip binding runs
  (candle 0.4.2, burn v0.18.0, wrap-burn v0.1.7, or the dependency versions they pull in) when
  the template exists there, else in the newest release where it fires in release builds (a
  ``debug_assert!`` does not).  A ``bail!`` in 0.4.2 that became a ``debug_assert!`` later is a
  ``ValueError`` for the Python user, not a panic.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from builder.scan import SnapshotResult
from builder.sites import Site
from builder.sources import Source
from builder.template import Template

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
    raised_at: List[Tuple[str, int, Optional[str], Optional[str]]] = field(default_factory=list)
    """Other places raising the message: (path, line, ``Type::fn`` or None, guard clause or None)."""
    site_count: int = 0
    pulled_in_by: Optional[List[str]] = None
    kind_label: str = ""
    """The release whose site gave the kind (siteKind, errorType, errorClass)."""
    kinds_by_version: Dict[str, str] = field(default_factory=dict)
    """release → how the message is raised there (``debug_assert`` for debug-only asserts)."""

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


BACKEND_PATH = re.compile(r"(?:^|[/_.-])(?:metal|cuda|hip|rocm|vulkan|wgpu|webgpu|accelerate|mkl)(?:[/_.-]|$)")
"""A path of one GPU/BLAS backend: the Python wheels run the CPU paths."""


def _rank(site: Site) -> Tuple[int, int, int, str, int]:
    kind_rank = KIND_PRIORITY.index(site.kind) if site.kind in KIND_PRIORITY else len(KIND_PRIORITY)
    backend = 1 if BACKEND_PATH.search(site.path) else 0
    return (0 if site.definition else 1, backend, kind_rank, site.path, site.line)


def _location_rank(loc: Tuple[str, int, Optional[str], Optional[str]]) -> Tuple[int, str, int, str]:
    return (1 if BACKEND_PATH.search(loc[0]) else 0, loc[0], loc[1], loc[2] or "")


def _kind_rank(site: Site) -> Tuple[int, Tuple[int, int, int, str, int]]:
    """Like :func:`_rank`, but a site that fires in release builds first."""
    return (1 if site.debug else 0, _rank(site))


def kind_name(site: Site) -> str:
    """The per-release kind shown in ``siteKindByVersion`` (a debug-only assert is told apart)."""
    return ("debug_" + site.kind) if site.debug else site.kind


def binding_sources(sources: Iterable[Source]) -> List[Source]:
    """The releases pip bindings run, and the dependency versions those releases pull in."""
    sources = list(sources)
    releases = {f"{s.repo}@{s.label}" for s in sources if s.binding_release}
    return [s for s in sources if s.binding_release or any(p in releases for p in (s.pulled_in_by or ()))]


def kind_label(labels: Sequence[str], per_label: Dict[str, List[Site]], binding: Sequence[str]) -> str:
    """The release whose site decides the kind (see the module docstring)."""
    bound = [lab for lab in labels if lab in binding]
    if bound:
        return bound[-1]
    for lab in reversed(labels):
        if any(not s.debug for s in per_label[lab]):
            return lab
    return labels[-1]


def _pulled_in_by(sources: Iterable[Source]) -> Optional[List[str]]:
    """Dependency crates: every release that pulls in *some* version having the template
    (issue 8), not only the newest version's."""
    out = list(dict.fromkeys(p for s in sources for p in (s.pulled_in_by or ())))
    return out or None


def merge(results: Sequence[SnapshotResult]) -> List[Draft]:
    """Drafts for every matchable template, in a deterministic order (repo, key, variant)."""
    by_key: Dict[Tuple[str, str, str], Dict[str, List[Site]]] = {}
    order: Dict[str, List[str]] = {}
    branches: set = set()
    res_by: Dict[Tuple[str, str], SnapshotResult] = {}
    binding: Dict[str, List[str]] = {}
    for src in binding_sources(r.source for r in results):
        binding.setdefault(src.repo, []).append(src.label)
    for r in results:
        order.setdefault(r.source.repo, []).append(r.source.label)
        if r.source.branch:
            branches.add((r.source.repo, r.source.label))
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
        releases = [lab for lab in labels if (repo, lab) not in branches]
        newest = (releases or labels)[-1]  # the branch only when no release has the template
        res = res_by[(repo, newest)]
        sites = sorted(per_label[newest], key=_rank)
        rep = sites[0]
        klabel = kind_label(labels, per_label, binding.get(repo, []))
        by_version = {lab: kind_name(min(per_label[lab], key=_kind_rank)) for lab in labels}
        ksite = min(per_label[klabel], key=_kind_rank)
        if (ksite.kind, ksite.error_class, ksite.debug) != (rep.kind, rep.error_class, rep.debug):
            rep = replace(rep, kind=ksite.kind, error_class=ksite.error_class, debug=ksite.debug)
        all_sites = [s for lab in labels for s in per_label[lab]]
        fns = sorted({s.fn for s in per_label[newest] if s.fn})
        kinds = sorted({s.kind for s in all_sites}, key=lambda k: KIND_PRIORITY.index(k) if k in KIND_PRIORITY else 99)
        tags = sorted({t for s in all_sites for t in s.tags})
        raised: List[Tuple[str, int, Optional[str], Optional[str]]] = []
        if vkey:
            raised = sorted(set(res.raised_at.get(f"{rep.crate}:{vkey}", [])), key=_location_rank)
        # every other site of the template in the newest release, best first
        others = [(s.path, s.line, s.function, s.guard) for s in sites[1:] if not s.definition]
        raised += [o for o in dict.fromkeys(others) if o not in raised and o[:2] != (rep.path, rep.line)]
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
                kind_label=klabel,
                kinds_by_version=by_version if len(set(by_version.values())) > 1 else {},
            )
        )
    return drafts
