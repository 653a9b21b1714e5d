"""The whole build: sources → sites → drafts → records → gates → ``errhint_data/`` + docs.

Inputs are the pinned revisions in ``curation/sources.json`` (read from bare git mirrors) and
the curation files (families, negatives, seeds, per-site texts).  The output is identical byte
for byte for identical inputs.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import regex

from builder import coverage as coverage_mod
from builder import deps as deps_mod
from builder import literal_coverage
from builder.emit import dataset_version, write_dataset
from builder.families import Catalogue
from builder.gates import Gates, Probe, load_negatives, over_generic
from builder.hot import hot_sites
from builder.merge import Draft, merge
from builder.records import apply_curated, build_record, example, message_text
from builder.scan import FactsCache, SnapshotResult, scan_snapshot
from builder.sources import Source, load_sources, mirror_for


class BuildError(Exception):
    """A gate or coverage requirement failed; nothing usable was produced."""


@dataclass
class BuildReport:
    dataset_version: str
    records: int
    dropped: Counter
    rows: List[coverage_mod.Row]
    seconds: float
    out: Path
    size_bytes: int
    families: Counter = field(default_factory=Counter)
    generic: int = 0


def load_seed_lines(path: Path) -> List[str]:
    return [line + "\n" for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def load_curated(directory: Path) -> Dict[str, Dict[str, Any]]:
    """``curation/sites/*.jsonl``: id → text fields.

    Raises ``BuildError`` for a line that is not JSON, has no id, or names an id that another
    line already wrote: one entry per template, so no file silently overrides another.
    """
    out: Dict[str, Dict[str, Any]] = {}
    first_seen: Dict[str, str] = {}
    if not directory.is_dir():
        return out
    for path in sorted(directory.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BuildError(f"{path}:{n}: not JSON ({exc})") from None
            rid = obj.pop("id", None)
            if not isinstance(rid, str):
                raise BuildError(f"{path}:{n}: missing 'id'")
            if rid in first_seen:
                raise BuildError(f"{path}:{n}: id {rid} is already written at {first_seen[rid]}")
            first_seen[rid] = f"{path.name}:{n}"
            out[rid] = obj
    return out


def _gate_category(reason: str) -> str:
    if reason.startswith("matches an unrelated"):
        return "gate: matches an unrelated message"
    if reason.startswith("slower"):
        return "gate: slower than 1 ms on adversarial input"
    if reason.startswith("does not match"):
        return "gate: pattern misses its own example"
    return "gate: " + reason


def _probe(d: Draft, rec: Dict[str, Any]) -> Probe:
    pieces = [p for p in d.template.pieces if isinstance(p, str)]
    literal = d.template.literal_chars() + (d.site.tail.literal_chars() if d.site.tail is not None else 0)
    return Probe(rec["id"], rec["messagePattern"], literal, max(pieces, key=len) if pieces else "", tuple(example(d)))


def _vocabulary(drafts: Sequence[Draft]) -> List[str]:
    words = set()
    for d in drafts:
        words.update(re.findall(r"[A-Za-z_]{3,}", d.template.literal))
    return sorted(words)


def build(
    root: Path,
    mirror_root: Path,
    out: Path,
    docs: Optional[Path],
    build_command: str,
    timing_gate: bool = True,
    log: Any = print,
) -> BuildReport:
    t0 = time.perf_counter()
    curation = root / "curation"
    sources = load_sources(curation / "sources.json")
    # issue 8: the crates underneath candle/burn (builder.deps) are scanned like the rest
    dep_list = deps_mod.load_if_present(curation)
    dep_keys = {(s.repo, s.label) for s in dep_list.sources} if dep_list else set()
    sources = sources + (dep_list.sources if dep_list else [])
    cache = FactsCache()
    results: List[SnapshotResult] = []
    for src in sources:
        mirror = mirror_for(mirror_root, src)
        if not mirror.exists():
            raise BuildError(f"mirror missing for {src.repo}: {mirror.git_dir}")
        res = scan_snapshot(src, mirror, cache)
        if dep_list is not None and (src.repo, src.label) in dep_keys:
            res = deps_mod.postprocess(res, dep_list)
        log(f"scanned {src.repo} {src.label}: {res.files_scanned} files, {len(res.sites)} sites")
        results.append(res)
    drafts = merge(results)
    seed_lines = load_seed_lines(curation / "seeds.jsonl")
    seeds = [json.loads(line)["record"] for line in seed_lines]
    catalogue = Catalogue(deps_mod.catalogue_data(curation, dep_list))
    negatives = load_negatives(curation / "negatives.txt")
    curated = load_curated(curation / "sites")
    gates = Gates(negatives, _vocabulary(drafts))
    newest: Dict[str, str] = {}
    labels: Dict[str, List[str]] = {}
    for src in sources:
        newest[src.repo] = src.label
        labels.setdefault(src.repo, []).append(src.label)

    seed_by_message = {(s["repo"], s["errorMessage"]): s for s in seeds}
    seed_patterns = {s["id"]: regex.compile(s["messagePattern"], regex.DOTALL) for s in seeds}
    redirect: Dict[str, str] = {}
    records: List[Dict[str, Any]] = []
    dropped: Dict[str, str] = {}
    dropped_count: Counter = Counter()
    shared = deps_mod.shared_templates(drafts, dep_list)
    probes: List[Probe] = []
    for d in drafts:
        seed = seed_by_message.get((d.repo, message_text(d)))
        if seed is not None:
            redirect[d.id] = seed["id"]
            dropped_count["replaced by a seed record"] += 1
            continue
        if d.id in shared:
            redirect[d.id] = shared[d.id]
            dropped_count["same template as the crate's former home (burn)"] += 1
            continue
        tag = catalogue.assign(d)
        rec = deps_mod.finalize_record(build_record(d, tag, catalogue.families[tag], newest, labels))
        if rec["id"] in curated:
            rec = apply_curated(rec, curated[rec["id"]])
        result = gates.check(rec["messagePattern"], example(d), timing=False)
        if not result.ok:
            cat = _gate_category(result.reason or "")
            dropped[d.id] = cat
            dropped_count[cat] += 1
            continue
        if timing_gate:
            slow = gates.slow_input(regex.compile(rec["messagePattern"], regex.DOTALL), example(d)[0])
            if slow is not None:
                time.sleep(0.5)  # a load spike? measure once more before failing the build
                slow = gates.slow_input(regex.compile(rec["messagePattern"], regex.DOTALL), example(d)[0])
            if slow is not None:
                raise BuildError(f"pattern of {d.id} ({message_text(d)!r}) is slower than 1 ms on adversarial input {slow!r}")
        records.append(rec)
        probes.append(_probe(d, rec))
    generic = over_generic(probes)
    for rec in records:
        if rec["id"] in generic:
            rec["generic"] = True
    code_records, code_report = deps_mod.code_records(curation, dep_list, mirror_root)
    for rec in code_records:
        result = gates.check(rec["messagePattern"], [rec["errorMessage"], rec["errorCode"]], timing=timing_gate)
        if not result.ok:
            raise BuildError(f"CUDA code record {rec['errorCode']}: {result.reason}")
        records.append(rec)
    ids = [r["id"] for r in records] + [s["id"] for s in seeds]
    dup = [i for i, n in Counter(ids).items() if n > 1]
    if dup:
        raise BuildError(f"duplicate record ids: {dup[:5]}")
    unknown = sorted({r["backgroundTag"] for r in records} - set(catalogue.families))
    if unknown:
        raise BuildError(f"records use families missing from the catalogue: {unknown}")
    compiled = {r["id"]: regex.compile(r["messagePattern"], regex.DOTALL) for r in records}
    compiled.update(seed_patterns)
    rows = coverage_mod.measure(results, compiled, dropped, redirect)
    low = [f"{r.repo} {r.label}: {r.share:.1%}" for r in rows if r.share < coverage_mod.MIN_SHARE]
    if low:
        raise BuildError("coverage below 90%: " + ", ".join(low))
    literal_rows = literal_coverage.measure(results, records + seeds, dep_list)
    low = literal_coverage.low_rows(literal_rows)
    if low:
        raise BuildError(f"literal error texts recognised below {literal_coverage.MIN_SHARE:.0%}: " + ", ".join(low))

    inputs = [src.repo.encode() + b"@" + src.commit.encode() for src in sources]
    for name in ("families.json", "negatives.txt", "seeds.jsonl"):
        inputs.append((curation / name).read_bytes())
    inputs += deps_mod.inputs(curation)
    for path in sorted((curation / "sites").glob("*.jsonl")) if (curation / "sites").is_dir() else []:
        inputs.append(path.read_bytes())
    # the builder's own code: a changed miner or composer gives a new dataset version
    for path in sorted(Path(__file__).parent.glob("*.py")):
        inputs.append(path.name.encode() + b"\0" + path.read_bytes())
    dv = dataset_version([r.date for r in results], inputs)

    manifest = write_dataset(
        out,
        records,
        seed_lines,
        catalogue.shipped(),
        dv,
        [s.as_manifest() for s in sources],
        build_command,
    )
    fam_counts = Counter(r["backgroundTag"] for r in records + seeds)
    kind_counts = Counter(r.get("siteKind") or "seed" for r in records + seeds)
    if docs is not None:
        docs.mkdir(parents=True, exist_ok=True)
        table = coverage_mod.render(rows, build_command, fam_counts, kind_counts, len(generic))
        table += literal_coverage.render(literal_rows)
        if dep_list is not None:
            table += deps_mod.render_summary(deps_mod.summary_rows(dep_list, rows, records), code_report, len(code_records))
        table += coverage_mod.measured_tail(docs / "coverage.md")
        (docs / "coverage.md").write_text(table, encoding="utf-8")
    hot_path = curation / "hot_sites.jsonl"
    previous = [json.loads(line)["id"] for line in hot_path.read_text(encoding="utf-8").splitlines() if line.strip()] if hot_path.exists() else []
    hot = hot_sites(records, labels, previous)
    (curation / "hot_sites.jsonl").write_text("".join(json.dumps(h, ensure_ascii=False, separators=(",", ":")) + "\n" for h in hot), encoding="utf-8")
    size = sum(p.stat().st_size for p in Path(out).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return BuildReport(dv, len(records) + len(seeds), dropped_count, rows, time.perf_counter() - t0, Path(out), size, fam_counts, len(generic))
