"""What a user dataset adds to a crashing process (run by hand).

    python benchmarks/bench_userdata.py [--records 1000] [--rounds 21] [--json out.json]

Writes ``--records`` user records (shipped records given new ids, so they add to the shipped
ones rather than replace them) to a temporary JSONL file, then times, alternating, a fresh
interpreter that installs errhint and dies of a real candle-nn error text (the hook prints
the traceback and the hint):

* ``shipped``: no ``ERRHINT_DATA``;
* ``user``: ``ERRHINT_DATA`` set to the file, validated result already cached;
* ``cold``: the first process with the file (validates and writes the cache), once.

Reports the median wall time of each and ``user - shipped`` (goal: at most 20 ms for 1,000
records). The cache goes to a temporary ``ERRHINT_CACHE_DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]

CRASH = (
    "import errhint\n"
    "errhint.install()\n"
    "raise ValueError('UnsupportedDTypeForOp(I64, \"matmul\")')\n"
)


def write_records(path: Path, count: int) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from errhint import data

    out: List[str] = []
    for name, raw in data.shipped_sources():
        for _, obj in data.iter_lines(name, raw):
            rec = dict(obj)
            rec["id"] = f"{0xbe00000000000000 + len(out):016x}"
            out.append(json.dumps({"record": rec}))
            if len(out) == count:
                path.write_text("\n".join(out) + "\n", encoding="utf-8")
                return
    raise SystemExit(f"the shipped dataset has fewer than {count} records")


def _time(env: Dict[str, str]) -> Tuple[float, float]:
    """(wall, CPU) seconds of one crashing child; CPU (user + system) is the steadier on a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CRASH], capture_output=True, text=True, env=env)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if "errhint show" not in proc.stderr:
        raise SystemExit(f"no hint in the crash output:\n{proc.stderr[-2000:]}")
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: List[str] = sys.argv[1:]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="errhint-bench-userdata-"))
    dataset = tmp / "mine.jsonl"
    write_records(dataset, args.records)
    base = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT") and k != "PYTHONDONTWRITEBYTECODE"}
    base["PYTHONPATH"] = str(ROOT / "src")
    base["ERRHINT_CACHE_DIR"] = str(tmp / "cache")
    user = dict(base, ERRHINT_DATA=str(dataset))
    cold = _time(user)[0]
    _time(base)  # warm-up: bytecode written
    times: Dict[str, List[Tuple[float, float]]] = {"shipped": [], "user": []}
    for _ in range(args.rounds):
        times["shipped"].append(_time(base))
        times["user"].append(_time(user))
    wall = {k: statistics.median(t[0] for t in v) * 1000 for k, v in times.items()}
    cpu = {k: statistics.median(t[1] for t in v) * 1000 for k, v in times.items()}
    result: Dict[str, Any] = {
        "records": args.records,
        "rounds": args.rounds,
        "coldMs": round(cold * 1000, 1),
        "wallMedianMs": {k: round(v, 1) for k, v in wall.items()},
        "cpuMedianMs": {k: round(v, 1) for k, v in cpu.items()},
        "addedWallMs": round(wall["user"] - wall["shipped"], 1),
        "addedCpuMs": round(cpu["user"] - cpu["shipped"], 1),
    }
    print(f"user dataset of {args.records} records, {args.rounds} alternating rounds (medians)")
    print("                          wall ms   cpu ms")
    print(f"  crash, shipped only     {wall['shipped']:7.1f}  {cpu['shipped']:7.1f}")
    print(f"  crash, + user (cached)  {wall['user']:7.1f}  {cpu['user']:7.1f}")
    print(f"  added by the user data  {result['addedWallMs']:7.1f}  {result['addedCpuMs']:7.1f}   (goal <= 20 ms)")
    print(f"  first process (validates and caches) {result['coldMs']:.0f} ms wall")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
