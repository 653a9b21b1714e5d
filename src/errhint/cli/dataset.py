"""``errhint dataset build ...``: the dataset builder, when run from a checkout of the repository.

The builder (top-level package ``builder/`` of the errhint repository) is not part of the
installed wheel: it needs the curation files and git mirrors that only a checkout has.
``errhint dataset build OPTIONS`` runs ``python -m builder OPTIONS`` when ``builder`` can be
imported (the current directory is a checkout); otherwise it says how to get the builder and
exits with the usage status (2).
"""

from __future__ import annotations

import argparse
from typing import Any, List

from errhint.cli._common import EXIT_USAGE, UsageError

HOW_TO_GET = (
    "the dataset builder is not part of the installed errhint package; "
    "run it from a checkout of the errhint repository: python -m builder --help"
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "dataset",
        add_help=False,
        help="run the dataset builder from a repository checkout (python -m builder)",
        description="Pass-through to the dataset builder of a repository checkout: errhint dataset build ...",
    )
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace, out: Any) -> int:
    return run_builder(list(args.rest))


def run_builder(argv: List[str]) -> int:
    """``builder.main(argv)`` (without a leading ``build``).

    Raises ``UsageError`` with :data:`HOW_TO_GET` when the builder cannot be imported.
    """
    if argv[:1] == ["build"]:
        argv = argv[1:]
    try:
        from builder import main as build_main
    except ImportError:
        raise UsageError(HOW_TO_GET) from None
    try:
        return int(build_main(argv) or 0)
    except SystemExit as exc:  # an argparse-based builder exits on --help / bad options
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
