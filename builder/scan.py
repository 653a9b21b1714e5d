"""One source revision → its error sites (with path, crate, function, variant facts).

File-level analysis is cached by blob sha, so files unchanged between releases are lexed once
per build.  Snapshot-level steps: drop ``#[cfg(test)] mod x;`` files, build the error-enum table,
turn variant definitions and constructions into sites, and give burn's TensorCheck sites the
operation names their callers pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Set, Tuple

from builder import enums, sinks
from builder.guards import qualified
from builder.items import excluded_module_files
from builder.literals import Literal, literals as literals_of
from builder.pysites import python_sites
from builder.sites import FileFacts, Site, analyze_file, resolve_check_ops
from builder.sources import CrateMap, Mirror, Source, SnapshotFiles, read_snapshot


@dataclass
class SnapshotResult:
    source: Source
    date: str
    sites: List[Site]
    files_scanned: int
    files_excluded: int
    lines_scanned: int
    raised_at: Dict[str, List[Tuple[str, int, Optional[str], Optional[str]]]] = field(default_factory=dict)
    """variant key "crate:Enum::Variant" → construction locations (path, line, ``Type::fn``, guard)."""
    literals: List[Literal] = field(default_factory=list)
    """The literal error texts ``builder.literals`` finds in the same files (the count made
    apart from the miner, ``builder.literal_coverage``)."""


class FactsCache:
    def __init__(self) -> None:
        self._rust: Dict[str, FileFacts] = {}
        self._py: Dict[str, List[Site]] = {}

    def rust(self, sha: str, text: str) -> FileFacts:
        f = self._rust.get(sha)
        if f is None:
            f = self._rust[sha] = analyze_file(text)
        return f

    def python(self, sha: str, text: str) -> List[Site]:
        s = self._py.get(sha)
        if s is None:
            s = self._py[sha] = python_sites(text)
        return s


def scan_snapshot(source: Source, mirror: Mirror, cache: FactsCache) -> SnapshotResult:
    files = read_snapshot(mirror, source)
    date = mirror.commit_date(source.commit)
    return scan_files(source, files, cache, date)


def scan_files(source: Source, files: SnapshotFiles, cache: FactsCache, date: str = "") -> SnapshotResult:
    crates = CrateMap(files.cargo, default=source.repo.split("/")[-1])
    facts: Dict[str, FileFacts] = {}
    for path in sorted(files.rust):
        sha, text = files.rust[path]
        facts[path] = cache.rust(sha, text)
    excluded: Set[str] = set()
    for path, f in facts.items():
        excluded |= excluded_module_files(path, f.test_mods)
    kept = [(p, crates.crate_of(p), facts[p]) for p in sorted(facts) if p not in excluded]
    sites: List[Site] = []
    error_impls: Set[str] = set()
    check_ops: Dict[str, Set[str]] = {}
    lines = 0
    for path, crate, f in kept:
        error_impls |= f.error_impls
        lines += f.lines
        for k, v in f.check_callers.items():
            check_ops.setdefault(k, set()).update(v)
        for s in f.sites:
            sites.append(replace(s, path=path, crate=crate))
    ops = resolve_check_ops(check_ops)
    for idx, s in enumerate(sites):
        if s.kind == "tensor_check" and s.op_param and s.fn:
            names = sorted(ops.get(s.fn, ()))
            if names:
                sites[idx] = replace(s, tags=tuple(names))
    table, _ = enums.build_table(kept, error_impls)
    # variant definitions (thiserror attribute or manual Display arm)
    for key in sorted(table.by_name):
        for rv in table.by_name[key]:
            if rv.display is None or rv.display_kind == "pyerr":
                continue  # pyerr conversions are sites of their own (the new_err call)
            sites.append(
                Site(
                    kind=rv.display_kind,
                    line=rv.display_line,
                    end_line=rv.display_end_line,
                    template=rv.display,
                    fn=None,
                    path=rv.display_path,
                    crate=rv.crate,
                    variant=enums.variant_info(rv),
                    variant_key=f"{rv.enum.name}::{rv.variant.name}",
                    definition=True,
                )
            )
    raised: Dict[str, List[Tuple[str, int, Optional[str], Optional[str]]]] = {}
    pyerr_defs: Set[Tuple[str, int]] = set()
    for path, crate, f in kept:
        for c in f.constructions:
            linked = enums.link_construction(c, table, crate)
            if linked is None:
                continue
            rv, tpl, kind, reason = linked
            vkey = "" if kind in ("msg", "pyerr") else f"{rv.enum.name}::{rv.variant.name}"
            sites.append(
                Site(
                    kind=kind,
                    line=c.line,
                    end_line=c.end_line,
                    template=tpl,
                    reason=reason if tpl is None else None,
                    fn=c.fn,
                    owner=c.owner,
                    guard=c.guard,
                    path=path,
                    crate=crate,
                    variant=None if kind in ("msg", "pyerr") else enums.variant_info(rv),
                    error_class=rv.display_class if kind == "pyerr" else None,
                    variant_key=vkey,
                )
            )
            if tpl is not None and tpl is rv.display:
                raised.setdefault(f"{rv.crate}:{vkey}", []).append((path, c.line, qualified(c.owner, c.fn), c.guard))
            if kind == "pyerr":
                pyerr_defs.add((rv.display_path, rv.display_line))
    # the `new_err` of a `From<E> for PyErr` arm is where the text of E's variant is defined:
    # its record links there, not to one of the many `Err(E::V)?` that raise it
    for idx, s in enumerate(sites):
        if s.kind == "pyerr" and not s.definition and (s.path, s.line) in pyerr_defs:
            sites[idx] = replace(s, definition=True)
    sites += sinks.helper_sites(kept, sites)
    for path in sorted(files.python):
        sha, text = files.python[path]
        for s in cache.python(sha, text):
            sites.append(replace(s, path=path, crate=crates.crate_of(path)))
    found = literals_of((path, text) for path, (_, text) in files.rust.items())
    return SnapshotResult(source, date, sites, len(kept), files.excluded_files + len(excluded & set(facts)), lines, raised, found)
