"""``errhint dataset ...``: the dataset builder's own commands (``errhint.build.main``).

Everything after ``dataset`` goes to the builder unchanged (``errhint dataset build
--mirror-root ... --out errhint_data``), including ``--help`` and ``--json``; ``main``
routes it before argparse sees it, so the builder owns its options and exit codes.
"""

from __future__ import annotations

import argparse
from typing import Any, List

from errhint.cli._common import EXIT_USAGE, Output, UsageError


def register(sub: Any) -> None:
    p = sub.add_parser(
        "dataset",
        add_help=False,
        help="the dataset builder's commands (errhint dataset build ...; see errhint dataset --help)",
        description="Pass-through to the dataset builder: errhint dataset build ...",
    )
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace, out: Output) -> int:
    return run_builder(list(args.rest))


def run_builder(argv: List[str]) -> int:
    """``errhint.build.main(argv)``; the builder is part of errhint but only needed by dataset authors."""
    try:
        from errhint.build import main as build_main
    except ImportError as exc:
        raise UsageError(f"the dataset builder is not available: {exc}") from None
    try:
        return int(build_main(argv) or 0)
    except SystemExit as exc:  # an argparse-based builder exits on --help / bad options
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
