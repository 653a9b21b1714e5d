"""``errhint scan`` against a plain Python loop over the same log (run by hand).

    python benchmarks/bench_scan.py [--mb 200] [--log PATH] [--keep] [--rounds 3] [--json out.json]

Writes a training log of about ``--mb`` megabytes to a temporary folder (or ``--log``):
ordinary step/loss/eval lines, tqdm progress bars redrawn with ``\\r`` on one line, JSON
metric lines, and 20 real error texts of the bindings (candle-nn 0.4.2 ValueErrors and
pyburn 0.1.7 panics, with ``RUST_BACKTRACE`` 0 and 1, produced by really calling the
bindings: ``tests/realtext_support.py``) spread evenly through it. Then, in one run and
alternating, ``rounds`` times each:

* ``plain``: a fresh interpreter reading the file line by line in a Python ``for`` loop
  (``for line in open(path, "rb")``, counting lines): the goal's yardstick;
* ``plain-text``: the same loop in text mode (``open(path, encoding="utf-8",
  errors="replace")``, which also splits at each ``\r``), for comparison;
* ``scan``: a fresh interpreter running ``errhint scan --summary-only FILE``;
* ``scan-json``: the same with ``--json`` (every finding with its hints).

Reports wall-clock and CPU seconds (median of the rounds; on a shared machine the CPU
figure is the steadier one), the ratio scan / plain (goal: at most 3) and each command's peak RSS (``ru_maxrss`` of the child), and checks that scan found
exactly the 20 errors that were written.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from realtext_support import real_error_texts  # noqa: E402

ERRORS = 20


def error_texts() -> List[str]:
    """20 real texts: the first ten calls of each RUST_BACKTRACE setting (both bindings)."""
    texts: List[str] = []
    for bt in ("0", "1"):
        found = real_error_texts(bt)
        if not found:
            raise SystemExit("candle-nn and pyburn are needed: pip install -e '.[bindings]'")
        names = sorted(found)
        texts.extend(found[n] for n in names[:10])
    return texts[:ERRORS]


def _ordinary(rng: random.Random, step: int) -> str:
    kind = rng.random()
    if kind < 0.55:
        return f"2024-05-01 10:{step // 60 % 60:02d}:{step % 60:02d} INFO step {step} loss={rng.random():.4f} lr=3.0e-4 tokens/s={rng.randint(9000, 12000)}\n"
    if kind < 0.75:
        metrics = {"step": step, "loss": round(rng.random(), 4), "acc": round(rng.random(), 4), "grad_norm": round(rng.random() * 3, 3)}
        return json.dumps(metrics) + "\n"
    if kind < 0.9:
        return f"2024-05-01 10:00:00 INFO eval step={step} val_loss={rng.random():.4f} val_acc={rng.random():.4f} samples=2048\n"
    total = 500
    bars = []
    for done in range(0, total + 1, 25):  # one line, redrawn 21 times with \r as tqdm does
        pct = done * 100 // total
        fill = "#" * (pct // 10)
        bars.append(f"\repoch {step % 50}: {pct:3d}%|{fill:<10}| {done}/{total} [00:{done // 10 % 60:02d}<00:20, 24.1it/s, loss={rng.random():.3f}]")
    return "".join(bars) + "\n"


def write_log(path: Path, megabytes: float, seed: int = 7) -> Tuple[int, int]:
    """Write the log; returns (bytes, lines)."""
    rng = random.Random(seed)
    texts = error_texts()
    target = int(megabytes * 1024 * 1024)
    every = target // (len(texts) + 1)
    written = lines = step = 0
    next_error = every
    pending = list(texts)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        buf: List[str] = []
        size = 0
        while written + size < target or pending:
            if pending and written + size >= next_error:
                buf.append(pending.pop(0))
                next_error += every
            line = _ordinary(rng, step)
            step += 1
            buf.append(line)
            size += len(line)
            if size > 1 << 20:
                chunk = "".join(buf)
                fh.write(chunk)
                written += len(chunk.encode("utf-8"))
                lines += chunk.count("\n")
                buf, size = [], 0
        chunk = "".join(buf)
        fh.write(chunk)
        written += len(chunk.encode("utf-8"))
        lines += chunk.count("\n")
    return written, lines


PLAIN = "import sys\nn = 0\nfor line in open(sys.argv[1], 'rb'):\n    n += 1\nprint(n)\n"
PLAIN_TEXT = "import sys\nn = 0\nfor line in open(sys.argv[1], encoding='utf-8', errors='replace'):\n    n += 1\nprint(n)\n"


def _env() -> Dict[str, str]:
    """The children's environment: this checkout's errhint, bytecode caching on (as installed)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("ERRHINT")}
    env["PYTHONPATH"] = str(ROOT / "src")
    return env


def _timed(cmd: List[str]) -> Tuple[float, float, str]:
    """(wall seconds, CPU seconds (user + system), stdout) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=_env())
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu, proc.stdout


def _rss(cmd: List[str]) -> int:
    """Peak RSS (KiB) of one run of ``cmd``, measured by a wrapper child of its own."""
    code = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, *cmd], capture_output=True, text=True, env=_env())
    return int(proc.stdout.strip() or 0)


def main(argv: List[str] = sys.argv[1:]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=200.0)
    ap.add_argument("--log", type=Path, default=None, help="where to write the log (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the log")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)

    tmp = tempfile.mkdtemp(prefix="errhint-bench-scan-")
    log = args.log or Path(tmp) / "train.log"
    size, lines = write_log(log, args.mb)
    print(f"log: {log} ({size / 1e6:.0f} MB, {lines} lines, {ERRORS} real errors)", flush=True)
    commands: Dict[str, List[str]] = {
        "plain": [sys.executable, "-c", PLAIN, str(log)],
        "plain-text": [sys.executable, "-c", PLAIN_TEXT, str(log)],
        "scan": [sys.executable, "-m", "errhint", "scan", "--summary-only", "--color", "never", str(log)],
        "scan-json": [sys.executable, "-m", "errhint", "scan", "--json", str(log)],
    }
    times: Dict[str, List[float]] = {k: [] for k in commands}
    cpu: Dict[str, List[float]] = {k: [] for k in commands}
    outputs: Dict[str, str] = {}
    for cmd in commands.values():  # warm-up: bytecode written, file in the page cache
        _timed(cmd)
    for _ in range(args.rounds):
        for name, cmd in commands.items():
            took, used, out = _timed(cmd)
            times[name].append(took)
            cpu[name].append(used)
            outputs[name] = out
    rss = {name: _rss(cmd) for name, cmd in commands.items()}
    found = json.loads(outputs["scan-json"])["count"]
    result: Dict[str, Any] = {
        "mb": round(size / 1e6, 1),
        "lines": lines,
        "errorsWritten": ERRORS,
        "errorsFound": found,
        "seconds": {k: round(statistics.median(v), 3) for k, v in times.items()},
        "peakRssMiB": {k: round(v / 1024, 1) for k, v in rss.items()},
    }
    plain = result["seconds"]["plain"]
    result["ratio"] = {k: round(v / plain, 2) for k, v in result["seconds"].items() if k != "plain"}
    user = {k: statistics.median(v) for k, v in cpu.items()}
    result["cpuSeconds"] = {k: round(v, 3) for k, v in user.items()}
    result["cpuRatio"] = {k: round(v / user["plain"], 2) for k, v in user.items() if k != "plain"}
    print(f"{'command':<11} {'wall s':>7} {'x plain':>8} {'cpu s':>7} {'x plain':>8} {'peak RSS MiB':>13}")
    for name in commands:
        ratio = "" if name == "plain" else f"{result['ratio'][name]:.2f}"
        cratio = "" if name == "plain" else f"{result['cpuRatio'][name]:.2f}"
        print(f"{name:<11} {result['seconds'][name]:>7.2f} {ratio:>8} {result['cpuSeconds'][name]:>7.2f} {cratio:>8} {result['peakRssMiB'][name]:>13.1f}")
    print(f"errors found by scan: {found} of {ERRORS} written")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    if not args.keep and args.log is None:
        log.unlink()
        os.rmdir(tmp)
    return 0 if found == ERRORS else 1


if __name__ == "__main__":
    raise SystemExit(main())
