"""Two trees side by side (run by hand): this checkout against a baseline, alternated.

    python benchmarks/bench_ab.py --baseline REV [--rounds 3] [--cold-runs 15] [--json out.json]

On a noisy machine a figure measured in one run cannot be compared with one measured in
another, so this exports ``REV`` with ``git archive`` and alternates the two trees, one fresh
interpreter each, and in each child runs that tree's own benchmark code:

* ``cold``: ``bench_engine.PHASES`` (engine imports, ``import regex``, loading the dataset,
  the first lookup of the candle Debug form), one fresh process per figure;
* ``warm``: ``bench_overhead.bench_guard`` on the real candle error (``guard()``,
  ``format_exception`` and their ratios) and ``bench_engine.measure_warm`` over queries
  synthesised from 1,000 records (``explain`` and its matching stage against the naive loop).

Each tree uses its own ``src/`` and ``errhint_data/``. Prints every round, the medians, and
after ÷ before of each median. Nothing here gates CI.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bench_engine  # noqa: E402

CANDLE_DEBUG = 'WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: <disabled> }'

WARM = r"""
import json, sys
sys.path.insert(0, sys.argv[1] + "/benchmarks")
import bench_engine, bench_overhead
guard = bench_overhead.bench_guard(int(sys.argv[2]), int(sys.argv[3]))["candle error (hint)"]
records = bench_engine.synthetic_records(1000)
warm = bench_engine.measure_warm(records, bench_engine.queries(records, 200))
print(json.dumps({
    "format_exception, us": guard["format_exception"]["median"],
    "guard(), us": guard["guard()"]["median"],
    "guard() / format": guard["guard() / format_exception"],
    "(guard() + format) / format": guard["(guard() + format) / format_exception"],
    "explain 1k, us": warm["lookup_us"],
    "stage 1k, us": warm["stage_us"],
    "scan / explain, 1k": warm["scan_over_lookup"],
    "scan / stage, 1k": warm["scan_over_stage"],
}))
"""


def export(rev: str) -> Path:
    """``rev`` of this repository as a plain folder (``git archive``)."""
    where = Path(tempfile.mkdtemp(prefix="errhint-baseline-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return where


def cold(tree: Path) -> Dict[str, float]:
    code = bench_engine.PHASES.format(src=str(tree / "src"), msg=CANDLE_DEBUG, exc_type="ValueError")
    return bench_engine._run(code, bench_engine._fresh_env(tree), Path(tempfile.gettempdir()))


def warm(tree: Path, batches: int, batch: int) -> Dict[str, float]:
    # from a script file: a traceback of ``python -c`` code has no source lines to show,
    # which makes ``format_exception`` several times cheaper than in a real program
    script = Path(tempfile.mkdtemp(prefix="errhint-ab-")) / "warm.py"
    script.write_text(WARM)
    cmd = [sys.executable, str(script), str(tree), str(batches), str(batch)]
    return bench_engine._run_cmd(cmd, bench_engine._fresh_env(tree), Path(tempfile.gettempdir()))


def _medians(rows: List[Dict[str, float]]) -> Dict[str, float]:
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", required=True, help="git revision to compare against (e.g. a commit or tag)")
    ap.add_argument("--rounds", type=int, default=3, help="warm alternations per tree")
    ap.add_argument("--cold-runs", type=int, default=15, help="fresh processes per tree for the cold stages")
    ap.add_argument("--batches", type=int, default=11, help="guard batches per warm round")
    ap.add_argument("--batch", type=int, default=200, help="exceptions per guard batch")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    trees = {"before": export(args.baseline), "after": ROOT}
    for tree in trees.values():
        cold(tree)  # writes the bytecode caches
    cold_rows: Dict[str, List[Dict[str, float]]] = {name: [] for name in trees}
    for _ in range(args.cold_runs):
        for name, tree in trees.items():
            cold_rows[name].append(cold(tree))
    warm_rows: Dict[str, List[Dict[str, float]]] = {name: [] for name in trees}
    for n in range(args.rounds):
        for name, tree in trees.items():
            warm_rows[name].append(warm(tree, args.batches, args.batch))
            print(f"warm round {n + 1}, {name}: " + ", ".join(f"{k} {v:.2f}" for k, v in warm_rows[name][-1].items()), flush=True)
    results: Dict[str, Any] = {"baseline": args.baseline}
    for label, rows in (("cold, ms (median of fresh processes)", cold_rows), ("warm (median of rounds)", warm_rows)):
        med = {name: _medians(r) for name, r in rows.items()}
        results[label] = med
        print(f"\n{label}:")
        for key in med["after"]:
            b, a = med["before"][key], med["after"][key]
            print(f"  {key:28} before {b:9.2f}   after {a:9.2f}   after/before {a / b if b else float('nan'):.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
