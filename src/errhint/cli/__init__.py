"""The ``errhint`` command and ``python -m errhint``.

One module per subcommand; each exposes ``register(subparsers)`` which adds its parser and
sets ``handler`` to a function ``(args, out) -> int``. ``main`` owns the exit-code contract:

* 0 -- ok, or something was found;
* 1 -- nothing found, or the input is invalid;
* 2 -- usage error (bad arguments, unreadable input);
* 130 -- interrupted (Ctrl-C).

``errhint run`` is the one exception: it exits with the script's own status. When standard
output cannot be written, the command stops without a traceback: silently with 0 when its
reader went away (``| head``), with one line on stderr and 1 when it is closed or full.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional, Sequence

from errhint.cli._common import EXIT_NOTHING, EXIT_OK, EXIT_USAGE, Output, OutputError, UsageError, apply_options

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
        try:
            if sys.stdout is not None:
                sys.stdout.flush()
        except OSError:
            _silence_stdout()
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    if sys.stdout is None and (args.command != "run" or getattr(args, "json", False)):  # stdout closed (>&-)
        sys.stderr.write(f"errhint {args.command}: cannot write output: standard output is closed\n")
        return EXIT_NOTHING
    from errhint.data import DatasetError

    try:
        out = Output.for_args(args) if sys.stdout is not None else None
        apply_options(args)
        code = int(args.handler(args, out))
        if out is not None:
            out.stream.flush()
        return code
    except UsageError as exc:
        sys.stderr.write(f"errhint {args.command}: {exc}\n")
        return EXIT_USAGE
    except DatasetError as exc:  # a --data file that cannot be read at all: one line, not a traceback
        sys.stderr.write(f"errhint {args.command}: cannot read the dataset: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except OutputError as exc:
        _silence_stdout()
        if isinstance(exc.error, BrokenPipeError):
            return EXIT_OK
        sys.stderr.write(f"errhint {args.command}: cannot write output: {exc}\n")
        return EXIT_NOTHING
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
