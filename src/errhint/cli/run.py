"""``errhint run [-m] TARGET [ARGS...]``: run a program with errhint installed.

A thin front for ``errhint.hooks.runner`` (which owns running the script as ``__main__``,
installing the hooks and exporting ``ERRHINT_INSTALL=1`` to children). With ``--json`` this
module also reports how the program ended, which needs the exception object, so it calls
``runner.run`` and prints the traceback itself. The exit status is the program's own: 0,
its ``SystemExit`` code, or 1 after an uncaught exception.

With ``--json`` the traceback still goes to stderr as usual, and once the program has
ended one JSON document describing how it ended is written to stdout (after anything
the program printed itself).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Dict, List, Optional

from errhint.cli._common import Output, add_command


def register(sub: Any) -> None:
    p = add_command(sub, "run", run, help="run a Python script (or -m module) with errhint installed",
                    description="Run a script like 'python script.py ARGS' (or a module like 'python -m MOD ARGS') "
                    "with errhint installed, so an uncaught candle or burn error shows its hint. Child processes "
                    "that call errhint.hooks.runner.maybe_install_from_env() install it too (ERRHINT_INSTALL=1). "
                    "Exits with the program's own status.", options=("base", "data"))
    p.add_argument("--full", action="store_true", help="full hints instead of brief ones")
    p.add_argument("-m", dest="module", action="store_true", help="TARGET is a module name, as with python -m")
    p.add_argument("target", metavar="TARGET", help="script path, or module name with -m")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments for the program")


def run(args: argparse.Namespace, out: Output) -> int:
    from errhint.hooks import runner

    if args.full:
        from errhint import config

        config.configure(verbosity="full")
    if not args.json:
        argv: List[str] = (["-m"] if args.module else []) + [args.target] + list(args.args)
        try:
            return runner.main(argv)
        except SystemExit as exc:
            return exit_code(exc)
    result = run_program(runner, args, want_matches=True)
    out.emit_json(result)
    return int(result["exitCode"])


def run_program(runner: Any, args: argparse.Namespace, *, want_matches: bool) -> Dict[str, Any]:
    """Run the program through ``runner.run``; report how it ended (exit code, exception, hints).

    An uncaught exception is printed by ``sys.excepthook`` (errhint's, so with its notes)
    from the program's first frame on, as ``python script.py`` would print it.
    """
    try:
        runner.run(args.target, list(args.args), module=args.module)
    except SystemExit as exc:
        return {"exitCode": exit_code(exc), "exception": None, "matches": []}
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # what the interpreter itself would report
        strip = getattr(runner, "_strip_own_frames", lambda tb: tb)
        own = exc.__traceback__
        tb = strip(own.tb_next if own is not None else None)  # this function's frame, then the runner's
        exc.with_traceback(tb)  # the default hook prints exc.__traceback__, not its argument
        sys.stdout.flush()
        sys.excepthook(type(exc), exc, tb)
        matches: List[Any] = []
        if want_matches:
            from errhint import engine

            try:
                matches = list(engine.lookup(exc))
            except Exception:  # hints are a bonus; never hide how the program ended
                matches = []
        return {
            "exitCode": 1,
            "exception": {"type": _type_name(exc), "message": _safe_str(exc)},
            "matches": [m.to_dict() for m in matches],
        }
    finally:
        sys.stdout.flush()
    return {"exitCode": 0, "exception": None, "matches": []}


def exit_code(exc: SystemExit) -> int:
    """What the interpreter would exit with for this SystemExit (a message prints and gives 1)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1


def _type_name(exc: BaseException) -> str:
    t = type(exc)
    module: Optional[str] = getattr(t, "__module__", None)
    return t.__qualname__ if module in (None, "builtins", "__main__") else f"{module}.{t.__qualname__}"


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return "<str() failed>"
