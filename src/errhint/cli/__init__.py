"""The ``errhint`` command and ``python -m errhint``.

One module per subcommand; each exposes ``register(subparsers)`` which adds its parser and
sets ``handler`` to a function ``(args, out) -> int``. ``main`` owns the exit-code contract:

* 0 -- ok, or something was found;
* 1 -- nothing found, or the input is invalid;
* 2 -- usage error (bad arguments, unreadable input).

``errhint run`` is the one exception: it exits with the script's own status.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional, Sequence

from errhint.cli._common import EXIT_OK, EXIT_USAGE, Output, UsageError, apply_options

_COMMANDS = ("explain", "scan", "show", "search", "stats", "validate", "run", "dataset", "demo")


def build_parser() -> argparse.ArgumentParser:
    """The full parser; subcommand modules are imported here, not at ``import errhint``."""
    import importlib

    from errhint import __version__

    parser = argparse.ArgumentParser(
        prog="errhint",
        description="Hints for errors raised by candle and burn through their Python bindings.",
        epilog="Exit codes: 0 ok or found, 1 nothing found or invalid, 2 usage error "
        "('errhint run' exits with the script's status).",
    )
    parser.add_argument("--version", action="version", version=f"errhint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(f"errhint.cli.{name}").register(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit code instead of exiting."""
    args_list: List[str] = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["dataset"]:  # the builder owns everything after "dataset"
        from errhint.cli.dataset import run_builder

        try:
            return run_builder(args_list[1:])
        except UsageError as exc:
            sys.stderr.write(f"errhint dataset: {exc}\n")
            return EXIT_USAGE
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse: --help/--version exit 0, errors exit 2
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    out = Output.for_args(args)
    from errhint.data import DatasetError

    try:
        apply_options(args)
        return int(args.handler(args, out))
    except UsageError as exc:
        sys.stderr.write(f"errhint {args.command}: {exc}\n")
        return EXIT_USAGE
    except DatasetError as exc:  # a malformed ERRHINT_DATA / --data file: one line, not a traceback
        sys.stderr.write(f"errhint {args.command}: cannot read the dataset: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK


def _silence_stdout() -> None:
    """After the reader of a pipe went away (``| head``), stop Python complaining at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
