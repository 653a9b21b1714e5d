"""``python -m builder.review_sample``: draw records at random for a blind review of their text.

Prints, for each drawn record, what a reviewer needs to judge its text against the code that
raises it: the template, the link and location at the pinned commit, the text fields a hint
shows, and (with ``--mirror-root``) the source lines around the site, read from the mirror for
the reviewer's eyes only (never written into the repository). The draw depends only on the
seed and the dataset, so anyone can re-draw the same sample.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional

CONTEXT_LINES = 25


def load_records(data: Path) -> List[Dict[str, Any]]:
    """Every record of ``data/records/*.jsonl``, in file and line order."""
    records = []
    for path in sorted((data / "records").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                records.append(json.loads(line)["record"])
    return records


def draw(records: List[Dict[str, Any]], count: int, seed: int) -> List[Dict[str, Any]]:
    """``count`` records drawn without replacement by ``random.Random(seed)``, sorted by id."""
    picked = random.Random(seed).sample(records, min(count, len(records)))
    return sorted(picked, key=lambda r: r["id"])


def source_lines(mirror_root: Path, record: Dict[str, Any]) -> Optional[str]:
    """The lines around the record's site at its analyzed commit, numbered; None if unreadable."""
    git_dir = mirror_root / record["repo"].replace("/", "+") / "repo"
    spec = f"{record['analyzedSha']}:{record['filePath']}"
    out = subprocess.run(["git", f"--git-dir={git_dir}", "show", spec], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    lines = out.stdout.splitlines()
    line = int(record.get("lineNumber") or 1)
    lo, hi = max(1, line - CONTEXT_LINES), min(len(lines), line + 5)
    return "\n".join(f"{n:5d}{'>' if n == line else ' '} {lines[n - 1]}" for n in range(lo, hi + 1))


def worksheet(record: Dict[str, Any], source: Optional[str]) -> str:
    """One record as a Markdown section: the text under review, then the site."""
    solutions = record.get("solutions") or []
    parts = [
        f"## {record['id']} ({record['repo']}, {record.get('crate') or '?'})",
        f"- template: `{record['errorMessage']}`",
        f"- site: {record['filePath']}:{record['lineNumber']} ({record.get('siteKind')}) {record['githubUrl']}",
        f"- documentation: {record.get('documentation') or ''}",
        f"- triggerScenarios: {record.get('triggerScenarios') or ''}",
        f"- first solution: {solutions[0] if solutions else '(none)'}",
        f"- exampleFix: {json.dumps(record.get('exampleFix') or '')}",
    ]
    if source is not None:
        parts += ["", "```rust", source, "```"]
    return "\n".join(parts) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m builder.review_sample", description=__doc__.splitlines()[0])
    p.add_argument("--data", default="errhint_data", help="dataset folder (default: errhint_data)")
    p.add_argument("--count", type=int, default=40)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--mirror-root", help="bare git mirrors, to print the source around each site")
    args = p.parse_args(argv)
    mirrors = Path(args.mirror_root) if args.mirror_root else None
    for record in draw(load_records(Path(args.data)), args.count, args.seed):
        print(worksheet(record, source_lines(mirrors, record) if mirrors else None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
