"""``python -m builder`` / ``errhint dataset build``: rebuild ``errhint_data/`` from mirrors."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

DEFAULT_COMMAND = "python -m builder --mirror-root {mirrors} --out {out}"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m builder", description="Build the errhint dataset from pinned candle/burn sources.")
    p.add_argument("--mirror-root", required=True, help="directory holding <owner>+<name>/repo bare git mirrors")
    p.add_argument("--out", default="errhint_data", help="output directory (default: errhint_data)")
    p.add_argument("--root", default=".", help="project root holding curation/ (default: .)")
    p.add_argument("--docs", default="docs", help="where coverage.md goes ('' to skip)")
    p.add_argument("--no-timing-gate", action="store_true", help="skip the 1 ms adversarial-input gate (faster local runs)")
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point; returns a process exit code (0 ok, 1 gate/coverage failure, 2 usage)."""
    args = parser().parse_args(argv)
    from builder.pipeline import BuildError, build

    root = Path(args.root).resolve()
    command = DEFAULT_COMMAND.format(mirrors=args.mirror_root, out=args.out)
    if args.no_timing_gate:
        command += " --no-timing-gate"
    log = (lambda *a: None) if args.quiet else (lambda *a: print(*a, file=sys.stderr))
    try:
        report = build(
            root,
            Path(args.mirror_root),
            (root / args.out) if not Path(args.out).is_absolute() else Path(args.out),
            (root / args.docs) if args.docs else None,
            command,
            timing_gate=not args.no_timing_gate,
            log=log,
        )
    except BuildError as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        return 1
    for row in report.rows:
        log(f"{row.repo} {row.label}: {row.matched}/{row.literal} literal sites matched ({row.share:.1%})")
    log(f"dataset {report.dataset_version}: {report.records} records, {report.size_bytes / 1e6:.2f} MB, {report.seconds:.1f} s")
    for reason, n in sorted(report.dropped.items()):
        log(f"  not shipped: {n} x {reason}")
    return 0
