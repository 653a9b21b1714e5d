"""errhint's top-1 next to a plain search, on the shipped records' own messages, wrapped.

The plain search is what a user could do with the dataset alone: search every shipped
``messagePattern`` anywhere in the text and take the longest pattern that matches (a
pattern is only tried when the literal text it requires occurs in the text, which changes
no result). Both are right when the record they name has the case's template (the same
template at another site counts, as does, for a Debug form, the same enum variant read
with another release's Display: ``floor_cases.same_error``).

    python benchmarks/bench_floor.py            # every record, every wrapper
    python benchmarks/bench_floor.py --step 10  # every 10th record
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))


import floor_cases  # noqa: E402
from builder.literal_coverage import PlainSearch  # noqa: E402
from errhint import engine  # noqa: E402


class _AsMatch:
    """A plain-search answer in the shape ``same_error`` reads."""

    def __init__(self, rid: str) -> None:
        self.id = rid
        self.also = ()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--step", type=int, default=1, help="take every STEP-th record")
    args = parser.parse_args()
    records = floor_cases.shipped_records()
    by_id: Dict[str, dict] = {r["id"]: r for r in records}
    plain = PlainSearch(records)
    engine.reset()
    totals: Counter = Counter()
    ours: Counter = Counter()
    theirs: Counter = Counter()
    began = time.perf_counter()
    for rec, name, text in floor_cases.cases(records[:: args.step]):
        totals[name] += 1
        got = engine.explain(text)
        if got and floor_cases.same_error(rec, got[0], by_id):
            ours[name] += 1
        rid = plain.top(text)
        if rid is not None and floor_cases.same_error(rec, _AsMatch(rid), by_id):
            theirs[name] += 1
    print(f"{'wrapper':<14}{'texts':>7}{'errhint top-1':>16}{'plain search':>15}")
    for name in floor_cases.WRAPPERS:
        n = totals[name]
        print(f"{name:<14}{n:>7}{ours[name] / n:>16.1%}{theirs[name] / n:>15.1%}")
    n = sum(totals.values())
    print(f"{'all':<14}{n:>7}{sum(ours.values()) / n:>16.1%}{sum(theirs.values()) / n:>15.1%}")
    print(f"({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
