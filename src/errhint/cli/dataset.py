"""``errhint dataset build ...``: the dataset builder (``errhint.build.main``).

``errhint dataset build OPTIONS`` is ``python -m errhint.build OPTIONS``: the word ``build``
names the builder and everything after it goes to ``errhint.build.main`` unchanged,
including ``--help``. Any other word after ``dataset`` is passed on as is, so the builder can
grow commands of its own. ``main`` routes this before argparse sees it, so the builder owns
its options, output and exit codes.
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
    """``errhint.build.main(argv)`` (without a leading ``build``); only dataset authors need it."""
    if argv[:1] == ["build"]:
        argv = argv[1:]
    try:
        from errhint.build import main as build_main
    except ImportError as exc:
        raise UsageError(f"the dataset builder is not available: {exc}") from None
    try:
        return int(build_main(argv) or 0)
    except SystemExit as exc:  # an argparse-based builder exits on --help / bad options
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
