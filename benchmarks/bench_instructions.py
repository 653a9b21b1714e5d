"""What a first hint costs in instructions, not seconds (run by hand; needs valgrind).

    python benchmarks/bench_instructions.py [--baseline REV] [--json out.json]

The crash benchmark (``bench_overhead.bench_crash``) times whole scripts, and on a shared VM a
noisy minute moves its medians by several milliseconds. Instruction counts do not move:
``valgrind --tool=callgrind`` counts every instruction a process runs, the same for the same
program and input whatever else the machine is doing. This counts, for the text crash of
``bench_overhead`` (the candle Debug form raised 5 frames deep, bytecode cached):

* the plain script, a hook that only imports ``regex``, and the floor hook
  (``bench_overhead.FLOOR_HOOK``): what any hook built to the brief must run;
* the script with ``errhint.install()``, for this tree and, with ``--baseline``, for ``REV``
  exported with ``git archive`` (its own ``src/`` and ``errhint_data/``);
* the first hint inside a fresh process: ``import errhint`` then one ``errhint.lookup`` of the
  same error, minus ``import errhint`` alone (the in-process cold start of ``bench_engine``).

Prints each count, what each adds to the plain script, and after ÷ before. Nothing here
gates CI.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bench_ab  # noqa: E402
import bench_overhead  # noqa: E402


def instructions(script: Path, tree: Path, pycache: Path) -> int:
    """Instructions one run of ``script`` executes with ``tree`` importable (after a run that
    writes the bytecode cache)."""
    env = bench_overhead.env(PYTHONPATH=os.pathsep.join([str(tree / "src"), str(tree)]), PYTHONPYCACHEPREFIX=str(pycache))
    subprocess.run([sys.executable, str(script)], env=env, capture_output=True)
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, str(script)],
        env=env, capture_output=True, text=True,
    )
    for line in out.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1].strip())
    raise RuntimeError(f"no instruction count for {script}:\n{out.stderr[-2000:]}")


def scripts(workdir: Path) -> Dict[str, Path]:
    """The text crash, plain and with each hook (the floor's patterns from this tree), and the
    real candle crash (``bench_overhead.CANDLE_CRASH``) plain and with errhint when candle-nn is
    installed: the goal is stated for that script."""
    body = bench_overhead.TEXT_CRASH.format(errhint="", message=bench_overhead.FALLBACK_CANDLE_MESSAGE)
    texts = {
        "plain": body,
        "hook importing regex only": bench_overhead.REGEX_ONLY_HOOK + body,
        "floor hook": bench_overhead.floor_hook() + body,
        "errhint": bench_overhead.TEXT_CRASH.format(
            errhint=bench_overhead.WITH_ERRHINT, message=bench_overhead.FALLBACK_CANDLE_MESSAGE),
    }
    if importlib.util.find_spec("candle") is not None:
        texts["candle plain"] = bench_overhead.CANDLE_CRASH.format(errhint="")
        texts["candle errhint"] = bench_overhead.CANDLE_CRASH.format(errhint=bench_overhead.WITH_ERRHINT)
    out = {}
    for name, text in texts.items():
        path = workdir / ("crash_" + name.replace(" ", "_") + ".py")  # not errhint.py: it would import itself
        path.write_text(text)
        out[name] = path
    return out


FIRST_HINT = """\
import errhint
{lookup}
"""
LOOKUP = "assert errhint.lookup(ValueError({message!r}))"


def first_hint_scripts(workdir: Path) -> Dict[str, Path]:
    """``import errhint`` alone, and followed by the first lookup of the text crash's error."""
    out = {}
    for name, lookup in (("import only", ""), ("first lookup", LOOKUP.format(message=bench_overhead.FALLBACK_CANDLE_MESSAGE))):
        path = workdir / ("first_hint_" + name.replace(" ", "_") + ".py")
        path.write_text(FIRST_HINT.format(lookup=lookup))
        out[name] = path
    return out


def first_hint(tree: Path, workdir: Path, pycache: Path) -> int:
    """Instructions of the first lookup in a fresh process of ``tree``."""
    found = first_hint_scripts(workdir)
    return instructions(found["first lookup"], tree, pycache) - instructions(found["import only"], tree, pycache)


def main(argv: Optional[list] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", default=None, help="git revision to count errhint's instructions for too")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    work = Path(tempfile.mkdtemp(prefix="errhint-instructions-"))
    found = scripts(work)
    counts = {name: instructions(path, ROOT, work / "pyc-after") for name, path in found.items()}
    if args.baseline:
        counts[f"errhint at {args.baseline}"] = instructions(found["errhint"], bench_ab.export(args.baseline), work / "pyc-before")
    for name, count in counts.items():
        plain = counts["candle plain" if name.startswith("candle") else "plain"]
        added = "" if name.endswith("plain") else f"  added {(count - plain) / 1e6:+8.1f} M"
        print(f"{name:32} {count / 1e6:8.1f} M{added}")
    if args.baseline:
        plain = counts["plain"]
        before, after = counts[f"errhint at {args.baseline}"] - plain, counts["errhint"] - plain
        floor = counts["floor hook"] - plain
        print(f"added by errhint, after / before: {after / before:.2f}; above the floor: {(after - floor) / (before - floor):.2f}")
    counts["first hint in process"] = first_hint(ROOT, work, work / "pyc-after")
    print(f"{'first hint in process':32} {counts['first hint in process'] / 1e6:8.1f} M")
    if args.baseline:
        key = f"first hint in process at {args.baseline}"
        counts[key] = first_hint(bench_ab.export(args.baseline), work, work / "pyc-before")
        print(f"{key:32} {counts[key] / 1e6:8.1f} M  after / before: {counts['first hint in process'] / counts[key]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(counts, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
