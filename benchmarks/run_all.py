"""Run every benchmark in one go (by hand; nothing here gates CI).

    python benchmarks/run_all.py [--quick] [--json all.json] [--engine-args "--sizes 1000 10000"]

Runs ``bench_overhead.py`` (import, install, crash, guard) and ``bench_engine.py`` (lookup vs
scan, scaling, cold start) one after the other on the same machine, prints both reports
under one machine description, and with ``--json`` writes both results into one file.
``--quick`` makes every figure cheaper (fewer runs, the smallest engine sizes) for a smoke
run; the figures in docs/performance.md come from a full run.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_overhead import machine  # noqa: E402


def _run(script: str, args: List[str], json_path: Path) -> Dict[str, Any]:
    cmd = [sys.executable, str(HERE / script), *args, "--json", str(json_path)]
    print(f"$ {' '.join(shlex.quote(c) for c in cmd[1:])}", flush=True)
    start = time.perf_counter()
    proc = subprocess.run(cmd)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{script} failed with exit status {proc.returncode}")
    print(f"({script}: {took:.0f} s)\n", flush=True)
    return json.loads(json_path.read_text()) if json_path.is_file() else {}


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="cheap smoke run (fewer runs, small engine sizes)")
    ap.add_argument("--json", type=str, default=None, help="write both benchmarks' results here")
    ap.add_argument("--overhead-args", type=str, default="", help="extra arguments for bench_overhead.py")
    ap.add_argument("--engine-args", type=str, default="", help="extra arguments for bench_engine.py")
    args = ap.parse_args(argv)

    overhead_args = shlex.split(args.overhead_args)
    engine_args = shlex.split(args.engine_args)
    if args.quick:
        overhead_args = ["--runs", "5", "--batches", "3", "--batch", "100", *overhead_args]
        engine_args = ["--sizes", "1000", "--queries", "50", "--cold-size", "1000", "--cold-runs", "3", *engine_args]

    results: Dict[str, Any] = {"machine": machine()}
    m = results["machine"]
    print(f"machine: nproc={m['nproc']}, cpu={m['cpu']}, Python {m['python']}, {m['platform']}, load {m['loadavg']}\n")
    with tempfile.TemporaryDirectory() as tmp:
        results["overhead"] = _run("bench_overhead.py", overhead_args, Path(tmp) / "overhead.json")
        results["engine"] = _run("bench_engine.py", engine_args, Path(tmp) / "engine.json")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
