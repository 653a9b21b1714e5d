"""``errhint validate PATH...``: every problem in dataset files, for people who write records.

The checks are ``errhint.data.problems`` (schema, patterns that compile, duplicate ids); this
command lists them all, not just the first, and exits 1 when there is any.
"""

from __future__ import annotations

import argparse
from typing import Any, Dict, List

from errhint.cli._common import EXIT_NOTHING, EXIT_OK, Output, add_command, plural


def register(sub: Any) -> None:
    p = add_command(sub, "validate", run, help="check dataset files and list every problem (exit 1 if any)",
                    description="Validate JSONL dataset files (or folders, searched at any depth for *.jsonl) against "
                    "the record schema: every problem in every file, with file, line, record id and field. Exit 0 "
                    "when valid, 1 when there is any problem (a missing or unreadable path is one).")
    p.add_argument("paths", nargs="+", metavar="PATH")


def run(args: argparse.Namespace, out: Output) -> int:
    from errhint import data

    problems = data.problems(args.paths)
    files = _files(args.paths)
    records = sum(_count_lines(f) for f in files)
    rows = [_problem_dict(p) for p in problems]
    if out.json_mode:
        out.emit_json({"ok": not rows, "files": files, "records": records, "problems": rows})
        return EXIT_NOTHING if rows else EXIT_OK
    for p in problems:
        out.line(f"{out.style('error', 'bad')}: {p}")
    summary = f"{plural(len(files), 'file')}, {plural(records, 'record line')}"
    if rows:
        out.line(out.style(f"{plural(len(rows), 'problem')} in {summary}", "bad"))
        return EXIT_NOTHING
    out.line(out.style(f"ok: {summary}, no problems", "ok"))
    return EXIT_OK


def _problem_dict(p: Any) -> Dict[str, Any]:
    return {
        "file": getattr(p, "file", None),
        "line": getattr(p, "line", None),
        "recordId": getattr(p, "record_id", None),
        "field": getattr(p, "field", None),
        "reason": getattr(p, "reason", str(p)),
        "message": str(p),
    }


def _files(paths: List[str]) -> List[str]:
    """The JSONL files the paths stand for (a folder: every ``*.jsonl`` under it), existing ones only."""
    from errhint import data

    out: List[str] = []
    for p in paths:
        try:
            out.extend(data.jsonl_files(p))
        except data.DatasetError:
            continue
    return out


def _count_lines(path: str) -> int:
    try:
        with open(path, "rb") as fh:
            return sum(1 for line in fh if line.strip())
    except OSError:
        return 0
