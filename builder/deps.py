"""The crates underneath candle and burn (issue 8): which versions to scan, what to keep, and
the records the site miner cannot produce on its own.

* ``curation/dependency_sources.json`` lists safetensors, cudarc, cubecl, wgpu and burn-onnx at
  the versions the pinned candle/burn releases pull in, each with ``pulledInBy``.  The builder
  scans them like its own sources; records get ``repo`` = the dependency.
* A source may name a selection rule (``select``): wgpu keeps only what users see (error-enum
  variants and the front end's API-misuse panics), not wgpu-core's internal assertions.
* Debug forms: several dependency error enums have no Display of their own (safetensors 0.4's
  ``Display`` is ``{self:?}``), so what users read is the variant's ``Debug`` --
  ``SafeTensor(InvalidOffset("w"))`` in candle 0.4.2.  Those variants get a record whose template
  is that Debug shape.
* Families: the CUDA families and the crate → family rules for dependency crates are added to
  the builder's catalogue here, so ``curation/families.json`` stays the builder's file.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from builder.scan import SnapshotResult
from builder.sites import Site
from builder.sources import Source, load_sources
from builder.template import Placeholder, Template, sanitize

_DEBUG_ONLY_DISPLAY = re.compile(r"^\{(?:self|0)?:#?\?\}$")
_WORD_BEFORE = "(?<![A-Za-z0-9_])"
_WORD_AFTER = "(?![A-Za-z0-9_])"


@dataclass(frozen=True)
class DependencyList:
    """The parsed dependency file."""

    sources: List[Source]
    select: Dict[Tuple[str, str], str] = field(default_factory=dict)
    """(repo, label) → name of the selection rule applied to its sites."""
    family_rules: List[Dict[str, Any]] = field(default_factory=list)
    substitutes: Dict[Tuple[str, str], List[str]] = field(default_factory=dict)
    """(repo, label) → the versions a stand-in revision replaces (missing from the mirror)."""
    families: List[Dict[str, Any]] = field(default_factory=list)
    """Extra family entries for dependency messages (same shape as families.json entries)."""
    same_text_as: Dict[str, str] = field(default_factory=dict)
    """repo → older home of the same code (burn-onnx → burn): a template both have ships once."""

    def repos(self) -> List[str]:
        return list(dict.fromkeys(s.repo for s in self.sources))


def load(path: Path) -> DependencyList:
    """Read ``curation/dependency_sources.json`` (same entry shape as ``sources.json``)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    sources = load_sources(path)
    select: Dict[Tuple[str, str], str] = {}
    substitutes: Dict[Tuple[str, str], List[str]] = {}
    same_text_as: Dict[str, str] = {}
    for entry in data["sources"]:
        if entry.get("sameTextAs"):
            same_text_as[entry["repo"]] = entry["sameTextAs"]
        if entry.get("substituteFor"):
            substitutes[(entry["repo"], entry["label"])] = list(entry["substituteFor"])
        rule = entry.get("select")
        if rule is not None:
            if rule not in SELECT_RULES:
                raise ValueError(f"{entry['repo']} {entry['label']}: unknown selection rule {rule!r}")
            select[(entry["repo"], entry["label"])] = rule
    return DependencyList(
        sources, select, list(data.get("familyRules", [])), substitutes, list(data.get("families", [])), same_text_as
    )


# --------------------------------------------------------------------------- selection rules

_FRONT_END_PANICS = {"panic", "expect", "assert", "assert_eq"}
_RETURNED_ERRORS = {"error_variant", "display_arm", "variant_construction", "msg", "string_error", "io_error"}


def wgpu_user_facing(site: Site) -> bool:
    """wgpu: what an application (burn, via cubecl-wgpu) is shown.

    Kept: every error-enum variant and its constructions (wgpu-core's validation errors, the
    front end's request/creation errors), and panics of the native front end (``wgpu/src``
    outside the web backend), which report API misuse and the default error handler's
    ``wgpu error: ...``.  Dropped: wgpu-core's internal assertions, ``unreachable!``/``todo!``
    anywhere, and the generated web bindings.
    """
    return _wgpu_keeps(site.path, site.kind in _RETURNED_ERRORS, site.kind in _FRONT_END_PANICS)


def wgpu_user_facing_literal(item: Any) -> bool:
    """The same rule for a text of ``builder.literals`` (its kinds are coarser: ``ensure!``
    counts with the asserts, ``unreachable!``/``todo!`` are told apart by the macro's name)."""
    panic = item.kind in ("expect", "assert") or (item.kind == "macro" and item.macro == "panic")
    return _wgpu_keeps(item.path, item.kind in ("error_attr", "error_value"), panic)


def _wgpu_keeps(path: str, returned: bool, panic: bool) -> bool:
    if path.startswith("wgpu/src/backend/webgpu"):
        return False
    return returned or (panic and path.startswith("wgpu/src/"))


SELECT_RULES: Dict[str, Callable[[Site], bool]] = {"wgpu-user-facing": wgpu_user_facing}
LITERAL_SELECT_RULES: Dict[str, Callable[[Any], bool]] = {"wgpu-user-facing": wgpu_user_facing_literal}
"""The selection rules for ``builder.literals`` texts (the independent coverage count)."""


# --------------------------------------------------------------------------- Debug forms


def _debug_only(variant: Mapping[str, Any]) -> bool:
    """True when users read this variant through its Debug form: no Display at all, or a
    Display that prints ``{self:?}``."""
    if variant.get("transparent"):
        return False
    display = variant.get("display")
    return display is None or bool(_DEBUG_ONLY_DISPLAY.match(str(display)))


def debug_template(variant: Mapping[str, Any]) -> Template:
    """The derived-Debug shape of a variant as a template: ``Name``, ``Name({0:?}, {1:?})`` or
    ``Name { a: {a:?}, b: {b:?} }`` (every field printed with ``{:?}``, as derive(Debug) does)."""
    name = str(variant["name"])
    shape = variant.get("shape")
    fields = [str(f["name"]) for f in variant.get("fields") or ()]
    if shape == "unit" or not fields:
        return Template((name,), True)
    pieces: List[Any] = []
    if shape == "tuple":
        pieces.append(name + "(")
        for i, f in enumerate(fields):
            if i:
                pieces.append(", ")
            pieces.append(Placeholder(arg=f, spec="?", group=sanitize("f" + f if f.isdigit() else f), field=f))
        pieces.append(")")
    else:
        pieces.append(name + " { ")
        for i, f in enumerate(fields):
            pieces.append(("" if i == 0 else ", ") + f + ": ")
            pieces.append(Placeholder(arg=f, spec="?", group=sanitize(f), field=f))
        pieces.append(" }")
    return Template(tuple(pieces), True)


def debug_form_sites(sites: Sequence[Site]) -> List[Site]:
    """One site per Debug-only variant seen in ``sites`` (definitions or constructions).

    The representative is a construction (it names the function that raises the error) when
    there is one, else the Display definition.  A tuple-struct error type whose Debug prints a
    status code (cudarc's ``DriverError(..)``, ``CublasError(..)``) is left to the result-code
    records, which say which code it is.
    """
    chosen: Dict[Tuple[str, str, str], Site] = {}
    for s in sites:
        var = s.variant
        if not var or not _debug_only(var):
            continue
        if var.get("name") == var.get("enum") and var.get("shape") != "struct":
            continue  # a tuple-struct error type (`DriverError(code)`): a result code, see cuda_codes
        key = (s.crate, str(var.get("enum")), str(var.get("name")))
        best = chosen.get(key)
        rank = (0 if (not s.definition and s.fn) else 1, s.path, s.line)
        if best is None or rank < (0 if (not best.definition and best.fn) else 1, best.path, best.line):
            chosen[key] = s
    out: List[Site] = []
    for key in sorted(chosen):
        s = chosen[key]
        var = dict(s.variant or {})
        var["display"] = None
        var["fields"] = [dict(f, debug=True) for f in var.get("fields") or ()]
        out.append(
            replace(
                s,
                kind="variant_construction",
                template=debug_template(var),
                reason=None,
                tail=None,
                variant=var,
                variant_key=f"{key[1]}::{key[2]}",
                definition=False,
            )
        )
    return out


def postprocess(result: SnapshotResult, deps: DependencyList) -> SnapshotResult:
    """Apply the source's selection rule and add its Debug-form sites."""
    rule = deps.select.get((result.source.repo, result.source.label))
    sites = list(result.sites)
    if rule is not None:
        keep = SELECT_RULES[rule]
        sites = [s for s in sites if keep(s)]
    sites += debug_form_sites(sites)
    return replace(result, sites=sites)


def is_debug_form(record: Mapping[str, Any]) -> bool:
    """A record whose message is its variant's Debug shape (made by :func:`debug_form_sites`)."""
    var = record.get("variant") or {}
    if record.get("siteKind") != "variant_construction" or not var or var.get("display") is not None:
        return False
    return record.get("errorMessage") == debug_template(var).text


def finalize_record(record: Dict[str, Any]) -> Dict[str, Any]:
    """Word boundaries around a Debug-form name, so ``InvalidHeader`` does not fire inside
    ``InvalidHeaderLength``; other records are returned unchanged."""
    if not is_debug_form(record):
        return record
    pattern = record["messagePattern"]
    var = record.get("variant") or {}
    if not pattern.startswith(_WORD_BEFORE):
        pattern = _WORD_BEFORE + pattern
    if var.get("shape") == "unit" and not pattern.endswith(_WORD_AFTER):
        pattern += _WORD_AFTER
    out = dict(record)
    out["messagePattern"] = pattern
    return out


def shared_templates(drafts: Sequence[Any], deps: Optional[DependencyList]) -> Dict[str, str]:
    """draft id → id of the draft it duplicates, for repositories that took code over from
    another scanned repository (burn-onnx's onnx-ir is burn's onnx-ir moved out): the same
    template from the same variant ships once, under the older home, whose record already
    matches the text.  The builder treats these like seed replacements (coverage follows)."""
    if deps is None or not deps.same_text_as:
        return {}
    by_repo: Dict[Tuple[str, str, str], str] = {(d.repo, d.key, d.variant_key): d.id for d in drafts}
    out: Dict[str, str] = {}
    for d in drafts:
        home = deps.same_text_as.get(d.repo)
        if home is None:
            continue
        target = by_repo.get((home, d.key, d.variant_key))
        if target is not None:
            out[d.id] = target
    return out


# --------------------------------------------------------------------------- families


def extend_catalogue(data: Mapping[str, Any], extra_families: Iterable[Mapping[str, Any]], rules: Iterable[Mapping[str, Any]]) -> Dict[str, Any]:
    """The builder's catalogue data plus extra families (inserted before the last, default one)
    and extra assignment rules (``{"tag": .., <conditions>}``) appended to their family."""
    out = copy.deepcopy(dict(data))
    fams: List[Dict[str, Any]] = out["families"]
    tags = {f["tag"] for f in fams}
    for fam in extra_families:
        if fam["tag"] in tags:
            raise ValueError(f"family {fam['tag']!r} already in the catalogue")
        entry = dict(fam)
        entry.setdefault("rules", [])
        fams.insert(len(fams) - 1, entry)
        tags.add(fam["tag"])
    by_tag = {f["tag"]: f for f in fams}
    for rule in rules:
        rule = dict(rule)
        tag = rule.pop("tag")
        if tag not in by_tag:
            raise ValueError(f"rule for unknown family {tag!r}")
        by_tag[tag].setdefault("rules", []).append(rule)
    return out


# --------------------------------------------------------------------------- coverage


@dataclass
class DepRow:
    """The coverage of one dependency repository, summed over its scanned versions."""

    repo: str
    versions: List[str]
    pulled_in_by: List[str]
    sites: int
    literal: int
    matched: int
    records: int
    substitutes: List[str]

    @property
    def share(self) -> float:
        return self.matched / self.literal if self.literal else 1.0


def summary_rows(deps: DependencyList, rows: Sequence[Any], records: Sequence[Mapping[str, Any]]) -> List[DepRow]:
    """``rows``: the builder's per-version coverage rows (``repo``, ``sites``, ``literal``,
    ``matched``); ``records``: the shipped records (counted per ``repo``)."""
    per_repo = Counter(r["repo"] for r in records)
    out: List[DepRow] = []
    for repo in deps.repos():
        srcs = [s for s in deps.sources if s.repo == repo]
        mine = [r for r in rows if r.repo == repo]
        pulled = list(dict.fromkeys(p for s in srcs for p in (s.pulled_in_by or ())))
        subs = [f"{s.label} for {', '.join(deps.substitutes[(repo, s.label)])}" for s in srcs if (repo, s.label) in deps.substitutes]
        out.append(
            DepRow(
                repo=repo,
                versions=[s.label for s in srcs],
                pulled_in_by=pulled,
                sites=sum(r.sites for r in mine),
                literal=sum(r.literal for r in mine),
                matched=sum(r.matched for r in mine),
                records=per_repo.get(repo, 0),
                substitutes=subs,
            )
        )
    return out


def render_summary(rows: Sequence[DepRow], code_report: Optional[Mapping[str, Any]] = None, code_records: int = 0) -> str:
    """Markdown section for docs/coverage.md: one row per dependency crate (plus CUDA codes)."""
    out = ["\n## Dependency crates (issue 8)\n"]
    out.append(
        "Crates underneath candle and burn whose messages users see, scanned at the versions the "
        "pinned candle/burn releases pull in (`curation/dependency_sources.json`). Sites, literal "
        "and matched are summed over the versions; records are the shipped records whose `repo` "
        "is the crate. A version the mirror lacks is stood in for by the newest older revision.\n"
    )
    out.append("| dependency | versions scanned | pulled in by | sites | with literal message | matched | share | records | stand-ins |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        pulled = ", ".join(p.split("/")[-1] for p in r.pulled_in_by)
        out.append(
            f"| {r.repo} | {', '.join(r.versions)} | {pulled} | {r.sites} | {r.literal} | {r.matched} | "
            f"{r.share:.1%} | {r.records} | {'; '.join(r.substitutes) or '-'} |"
        )
    if code_report is not None:
        declared = code_report.get("declared", {})
        out.append("\n### CUDA result codes\n")
        out.append(
            "Records keyed by `errorCode`, read from cudarc's bindings at every pinned cudarc version; "
            "remediation written per code (`curation/cuda_codes.json`).\n"
        )
        out.append("| library | codes declared by cudarc | codes with a record |")
        out.append("|---|---|---|")
        curated = Counter(code.split("_")[0] for code in code_report.get("codes", {}))
        prefixes = {"driver": "CUDA", "cublas": "CUBLAS", "nvrtc": "NVRTC", "cudnn": "CUDNN"}
        for lib, n in declared.items():
            out.append(f"| {lib} | {n} | {curated.get(prefixes.get(lib, lib.upper()), 0)} |")
        out.append(f"\nShipped result-code records: {code_records}.")
        if code_report.get("missing"):
            out.append(f" Not declared in any pinned version (no record): {', '.join(code_report['missing'])}.")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- pipeline hooks

FILE = "dependency_sources.json"
CUDA_FILE = "cuda_codes.json"


def load_if_present(curation: Path) -> Optional[DependencyList]:
    """The dependency list, or None for a checkout without one (the builder then scans only
    candle/burn)."""
    path = Path(curation) / FILE
    return load(path) if path.exists() else None


def catalogue_data(curation: Path, dep: Optional[DependencyList]) -> Dict[str, Any]:
    """``curation/families.json`` plus the dependency families and rules."""
    data = json.loads((Path(curation) / "families.json").read_text(encoding="utf-8"))
    if dep is None:
        return data
    extra: List[Mapping[str, Any]] = list(dep.families)
    cuda_path = Path(curation) / CUDA_FILE
    if cuda_path.exists():
        extra += json.loads(cuda_path.read_text(encoding="utf-8")).get("families", [])
    return extend_catalogue(data, extra, dep.family_rules)


def code_records(curation: Path, dep: Optional[DependencyList], mirror_root: Path) -> Tuple[List[Dict[str, Any]], Optional[Dict[str, Any]]]:
    """The CUDA result-code records (see :mod:`builder.cuda_codes`)."""
    from builder import cuda_codes

    cuda_path = Path(curation) / CUDA_FILE
    if dep is None or not cuda_path.exists():
        return [], None
    return cuda_codes.build_records(cuda_codes.load_curation(cuda_path), dep.sources, mirror_root)


def inputs(curation: Path) -> List[bytes]:
    """Bytes that enter the dataset version (so editing them changes it)."""
    out: List[bytes] = []
    for name in (FILE, CUDA_FILE):
        path = Path(curation) / name
        if path.exists():
            out.append(path.read_bytes())
    return out
