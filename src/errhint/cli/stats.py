"""``errhint stats``: how many records per repository, version, family and errorType."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any, Dict, List, Sequence

from errhint.cli import _records
from errhint.cli._common import EXIT_NOTHING, EXIT_OK, Output, add_command, plural
from errhint.versions import version_key

UNVERSIONED = "(none)"


def register(sub: Any) -> None:
    p = add_command(sub, "stats", run, help="records per repository, version, family and errorType",
                    description="Count the records in use (shipped data plus entry points, ERRHINT_DATA and --data) "
                    "per repository, per release of each repository, per family (backgroundTag) and per errorType. "
                    "Exit 0, or 1 when there are no records at all.", options=("base", "data"))


def compute(records: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """The counts; a record counts once for every release label in its ``versions``."""
    repos: Counter = Counter()
    versions: Dict[str, Counter] = {}
    families: Counter = Counter()
    types: Counter = Counter()
    for r in records:
        repo = str(r.get("repo"))
        repos[repo] += 1
        labels = r.get("versions") or [UNVERSIONED]
        bucket = versions.setdefault(repo, Counter())
        for label in labels:
            bucket[str(label)] += 1
        families[str(r.get("backgroundTag"))] += 1
        types[str(r.get("errorType"))] += 1
    return {
        "total": len(records),
        "repos": _ordered(repos),
        "versions": {repo: dict(sorted(c.items(), key=lambda kv: version_key(kv[0]))) for repo, c in sorted(versions.items())},
        "families": _ordered(families),
        "errorTypes": _ordered(types),
    }


def run(args: argparse.Namespace, out: Output) -> int:
    ds = _records.load()
    stats = compute(ds.records)
    stats = {"datasetVersion": ds.dataset_version, **stats}
    if out.json_mode:
        out.emit_json(stats)
        return EXIT_OK if stats["total"] else EXIT_NOTHING
    if not stats["total"]:
        out.line("No records: the shipped dataset is missing and no --data / ERRHINT_DATA was given.")
        return EXIT_NOTHING
    version = f" (dataset {ds.dataset_version})" if ds.dataset_version else ""
    out.heading(f"{plural(stats['total'], 'record')}{version}")
    out.line()
    out.heading("Per repository")
    out.table(["records", "repository"], [[n, k] for k, n in stats["repos"].items()], right=(0,))
    out.line()
    out.heading("Per version")
    rows: List[List[Any]] = []
    for repo, labels in stats["versions"].items():
        for label, n in labels.items():
            rows.append([n, repo, label])
    out.table(["records", "repository", "version"], rows, right=(0,))
    out.line()
    out.heading("Per errorType")
    out.table(["records", "errorType"], [[n, k] for k, n in stats["errorTypes"].items()], right=(0,))
    out.line()
    out.heading("Per family (backgroundTag)")
    out.table(["records", "family"], [[n, k] for k, n in stats["families"].items()], right=(0,))
    return EXIT_OK


def _ordered(counter: Counter) -> Dict[str, int]:
    """Most records first, then by name, as a plain dict (JSON keeps the order)."""
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


