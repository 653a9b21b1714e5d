"""Two trees side by side (run by hand): this checkout against a baseline, alternated.

    python benchmarks/bench_ab.py --baseline REV [--rounds 3] [--cold-runs 15] [--json out.json]

On a noisy machine a figure measured in one run cannot be compared with one measured in
another, so this exports ``REV`` with ``git archive`` and alternates the two trees, one fresh
interpreter each, round after round:

* ``cold``: stages of one fresh process, in order (bytecode cached): ``install()``, the engine
  imports, ``import regex``, loading the dataset, the first lookup of the candle Debug form;
* ``warm``: in-process medians of batches of the real candle error (candle-nn 0.4.2, or the
  same text without it): ``lookup``, ``guard()``, ``format_exception``, their ratios, and
  ``explain`` over queries synthesised from 1,000 records against the naive regex loop.

Each tree uses its own ``src/`` and ``errhint_data/``. Prints per round and the medians, and
the ratio after ÷ before of each median. Nothing here gates CI.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parents[1]

COLD = r"""
import json, sys, time
root = sys.argv[1]
sys.path[:0] = [root + "/src", root]
t0 = time.perf_counter()
import errhint
errhint.install()
t1 = time.perf_counter()
from errhint import config, engine, extract, index, match, normalize, rank, render, view  # noqa: F401
t2 = time.perf_counter()
import regex  # noqa: F401
t3 = time.perf_counter()
engine.dataset()
t4 = time.perf_counter()
found = errhint.explain('WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: <disabled> }', exc_type="ValueError")
t5 = time.perf_counter()
assert found, "no hint"
ms = lambda a, b: round((b - a) * 1e3, 3)
print(json.dumps({"install": ms(t0, t1), "imports": ms(t1, t2), "regex": ms(t2, t3), "load": ms(t3, t4),
                  "first lookup": ms(t4, t5), "total": ms(t0, t5)}))
"""

WARM = r"""
import json, statistics, sys, tempfile, time, traceback
from pathlib import Path
root = sys.argv[1]
sys.path[:0] = [root + "/src", root, sys.argv[2]]
import errhint
from errhint import engine
message = 'WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: <disabled> }'
try:
    import candle
    a = candle.Tensor([[1, 2], [3, 4]]).to_dtype(candle.i64)
    a.matmul(a)
except ImportError:
    pass
except Exception as exc:
    message = str(exc)

def level(n):
    if n == 0:
        raise ValueError(message)
    level(n - 1)

def formatted():
    try:
        level(5)
    except ValueError as e:
        return "".join(traceback.format_exception(type(e), e, e.__traceback__))

def guarded():
    try:
        with errhint.guard():
            level(5)
    except ValueError as e:
        return e

def lookup():
    try:
        level(5)
    except ValueError as e:
        return errhint.lookup(e)

fns = {"format_exception": formatted, "guard()": guarded, "lookup": lookup}
for fn in fns.values():
    for _ in range(100):
        fn()
per = {name: [] for name in fns}
for _ in range(15):
    for name, fn in fns.items():
        start = time.perf_counter()
        for _ in range(100):
            fn()
        per[name].append((time.perf_counter() - start) / 100 * 1e6)
out = {f"{name}, us": statistics.median(v) for name, v in per.items()}
out["guard() / format"] = out["guard(), us"] / out["format_exception, us"]

import bench_engine as B  # the tree's own engine benchmark: its synthetic datasets, its index writer
import regex
recs = B.synthetic_records(1000)
qs = B.queries(recs, 200)
ds = B._package_dataset(B.write_package(Path(tempfile.mkdtemp(prefix="errhint-ab-")), recs))
engine.use(ds)
for exc, msg in qs:
    engine.explain(msg, exc_type=exc)
out["explain 1k, us"] = B._median_us(lambda q: engine.explain(q[1], exc_type=q[0]), qs)
compiled = [regex.compile(r["messagePattern"], regex.DOTALL) for r in recs]
out["scan 1k, us"] = B._median_us(lambda q: [p.search(q[1]) for p in compiled], qs[:60])
out["scan / explain, 1k"] = out["scan 1k, us"] / out["explain 1k, us"]
print(json.dumps(out))
"""


def _env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT") and k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "errhint-ab-pyc")
    return env


_SCRIPTS = Path(tempfile.mkdtemp(prefix="errhint-ab-scripts-"))


def _child(code: str, *args: str) -> Dict[str, float]:
    """Run ``code`` as a script file: a traceback of ``python -c`` code has no source lines to
    show, which makes ``format_exception`` several times cheaper than in a real program."""
    script = _SCRIPTS / f"child_{abs(hash(code))}.py"
    if not script.exists():
        script.write_text(code)
    out = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=_env(), cwd=tempfile.gettempdir())
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def export(rev: str) -> Path:
    """``rev`` of this repository as a plain folder (``git archive``)."""
    where = Path(tempfile.mkdtemp(prefix="errhint-baseline-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return where


def _medians(rows: List[Dict[str, float]]) -> Dict[str, float]:
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", required=True, help="git revision to compare against (e.g. a commit or tag)")
    ap.add_argument("--rounds", type=int, default=3, help="warm alternations per tree")
    ap.add_argument("--cold-runs", type=int, default=15, help="fresh processes per tree for the cold stages")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    trees = {"before": export(args.baseline), "after": ROOT}
    for tree in trees.values():
        _child(COLD, str(tree))  # writes the bytecode caches
    cold: Dict[str, List[Dict[str, float]]] = {name: [] for name in trees}
    for _ in range(args.cold_runs):
        for name, tree in trees.items():
            cold[name].append(_child(COLD, str(tree)))
    warm: Dict[str, List[Dict[str, float]]] = {name: [] for name in trees}
    for n in range(args.rounds):
        for name, tree in trees.items():
            warm[name].append(_child(WARM, str(tree), str(tree / "benchmarks")))
            print(f"warm round {n + 1}, {name}: " + ", ".join(f"{k} {v:.2f}" for k, v in warm[name][-1].items()), flush=True)
    results: Dict[str, Any] = {"baseline": args.baseline}
    for label, rows in (("cold, ms (median of fresh processes)", cold), ("warm (median of rounds)", warm)):
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
