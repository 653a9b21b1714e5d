"""``errhint search QUERY``: find records by words in their message, tags, family or documentation."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from errhint.cli import _records
from errhint.cli._common import EXIT_NOTHING, EXIT_OK, Output, UsageError, _positive_int, add_command, plural
from errhint.cli._search import SearchIndex, compile_regex, terms


def register(sub: Any) -> None:
    p = add_command(sub, "search", run, help="full-text search over messages, tags and documentation",
                    description="Find records containing every word of QUERY (taken literally, case-insensitive; a "
                    "word may be part of a longer one) in their message, tags, family, file, or documentation; best "
                    "first. --regex: QUERY is one regular expression instead. Exit 0 when something matched, 1 when nothing.", options=("base", "data"))
    p.add_argument("query", nargs="+", metavar="QUERY")
    p.add_argument("-n", "--limit", type=_positive_int, default=20, metavar="N", help="show the best N (default 20)")
    p.add_argument("--repo", action="append", default=None, metavar="OWNER/NAME", help="only this repository; repeatable")
    p.add_argument("--type", dest="error_type", choices=("exception", "panic", "compile"), help="only this errorType")
    p.add_argument("--family", metavar="TAG", help="only this backgroundTag")
    p.add_argument("--regex", action="store_true", help="QUERY is a regular expression (case-insensitive), not words")


def run(args: argparse.Namespace, out: Output) -> int:
    query = " ".join(args.query)
    pattern = None
    if args.regex:
        try:
            pattern = compile_regex(query)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    elif not terms(query):
        raise UsageError("the query has no words to search for")
    ds = _records.load()
    hits = SearchIndex(ds.records, ds.families).search(
        query, repos=args.repo, error_type=args.error_type, family=args.family, pattern=pattern
    )
    shown = hits[: args.limit]
    if out.json_mode:
        out.emit_json(
            {
                "query": query,
                "total": len(hits),
                "results": [
                    {
                        "id": h.record.get("id"),
                        "repo": h.record.get("repo"),
                        "errorType": h.record.get("errorType"),
                        "errorMessage": h.record.get("errorMessage"),
                        "backgroundTag": h.record.get("backgroundTag"),
                        "filePath": h.record.get("filePath"),
                        "score": h.score,
                    }
                    for h in shown
                ],
            }
        )
        return EXIT_OK if hits else EXIT_NOTHING
    if not hits:
        how = "" if args.regex else " (words are matched literally; --regex for a pattern)"
        sys.stderr.write(f"errhint: no record matches {query!r}{how}\n")
        return EXIT_NOTHING
    out.table(
        ["id", "repo", "family", "message"],
        [[h.record.get("id"), h.record.get("repo"), h.record.get("backgroundTag"), _one_line(h.record.get("errorMessage"))] for h in shown],
    )
    more = f", showing {len(shown)}" if len(shown) < len(hits) else ""
    out.line(out.style(f"{plural(len(hits), 'record')}{more}; details: errhint show ID", "dim"))
    return EXIT_OK


def _one_line(text: Any, width: int = 90) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."
