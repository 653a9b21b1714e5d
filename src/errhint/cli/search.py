"""``errhint search QUERY``: find records by words in their message, tags, family or documentation."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from errhint.cli import _records
from errhint.cli._common import EXIT_NOTHING, EXIT_OK, Output, UsageError, base_parent, data_parent, _positive_int
from errhint.cli._search import SearchIndex, terms


def register(sub: Any) -> None:
    p = sub.add_parser(
        "search",
        parents=[base_parent(), data_parent()],
        help="full-text search over messages, tags and documentation",
        description="Find records containing every word of QUERY (case-insensitive; a word may be part "
        "of a longer one) in their message, tags, family, file, or documentation; best first. "
        "Exit 0 when something matched, 1 when nothing.",
    )
    p.add_argument("query", nargs="+", metavar="QUERY")
    p.add_argument("-n", "--limit", type=_positive_int, default=20, metavar="N", help="show the best N (default 20)")
    p.add_argument("--repo", action="append", default=None, metavar="OWNER/NAME", help="only this repository; repeatable")
    p.add_argument("--type", dest="error_type", choices=("exception", "panic", "compile"), help="only this errorType")
    p.add_argument("--family", metavar="TAG", help="only this backgroundTag")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace, out: Output) -> int:
    query = " ".join(args.query)
    if not terms(query):
        raise UsageError("the query has no words to search for")
    ds = _records.load()
    hits = SearchIndex(ds.records, ds.families).search(
        query, repos=args.repo, error_type=args.error_type, family=args.family
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
        sys.stderr.write(f"errhint: no record matches {query!r}\n")
        return EXIT_NOTHING
    out.table(
        ["id", "repo", "family", "message"],
        [[h.record.get("id"), h.record.get("repo"), h.record.get("backgroundTag"), _one_line(h.record.get("errorMessage"))] for h in shown],
    )
    more = f", showing {len(shown)}" if len(shown) < len(hits) else ""
    out.line(out.style(f"{len(hits)} record{'s' if len(hits) != 1 else ''}{more}; details: errhint show ID", "dim"))
    return EXIT_OK


def _one_line(text: Any, width: int = 90) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."
