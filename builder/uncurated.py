"""``python -m builder.uncurated``: the records nobody has written text for yet, as a work list.

One JSON line per unwritten record (``curated: false``) of the built dataset, with what a writer
needs to read its site at the pinned commit: template, pattern groups, file, line, link,
function, guarding condition, versions. ``--crate`` and ``--repo`` narrow the list;
``--summary`` prints a count per repository and crate instead.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from builder.review_sample import load_records
from errhint.constants import NAMED_GROUP

GROUP = re.compile(NAMED_GROUP)
FIELDS = ("id", "repo", "crate", "errorMessage", "filePath", "lineNumber", "analyzedSha", "githubUrl",
          "function", "condition", "versions", "siteKind", "errorType")


def work_item(record: Dict[str, Any]) -> Dict[str, Any]:
    """The fields of one record a writer reads, plus the names its ``{placeholders}`` may use."""
    item = {k: record.get(k) for k in FIELDS}
    item["groups"] = GROUP.findall(record.get("messagePattern") or "")
    return item


def unwritten(records: Sequence[Dict[str, Any]], crates: Optional[Sequence[str]] = None,
              repos: Optional[Sequence[str]] = None) -> List[Dict[str, Any]]:
    """Records with ``curated`` false, restricted to the given crates and repositories if any."""
    return [
        r for r in records
        if r.get("curated") is False
        and (not crates or r.get("crate") in crates)
        and (not repos or r.get("repo") in repos)
    ]


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m builder.uncurated", description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("errhint_data"), help="built dataset folder")
    ap.add_argument("--crate", action="append", help="only this crate (repeatable)")
    ap.add_argument("--repo", action="append", help="only this repository, owner/name (repeatable)")
    ap.add_argument("--summary", action="store_true", help="a count per repository and crate")
    args = ap.parse_args(argv)
    todo = unwritten(load_records(args.data), args.crate, args.repo)
    if args.summary:
        for (repo, crate), n in Counter((r["repo"], r.get("crate")) for r in todo).most_common():
            print(f"{n:5d} {repo} {crate}")
        print(f"{len(todo)} in all")
        return 0
    for r in todo:
        sys.stdout.write(json.dumps(work_item(r), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
