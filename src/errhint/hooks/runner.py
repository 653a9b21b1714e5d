"""``errhint run script.py`` / ``errhint.hooks.runner.run``: a program with errhint installed.

The script runs as ``__main__`` through ``runpy`` with errhint's hooks installed, and with
``ERRHINT_INSTALL=1`` in the environment so that child processes which call
``maybe_install_from_env()`` (at module level, or as a ``multiprocessing`` initializer)
install errhint too. No ``.pth`` file is involved: an interpreter that does not ask for
errhint never gets it.

An uncaught exception is printed by ``sys.excepthook`` with the runner's own frames
removed, so the traceback looks exactly like ``python script.py``'s, and the exit status
is the same (1, or the script's ``SystemExit`` code).
"""

from __future__ import annotations

import os
import sys
from types import TracebackType

from typing import Any, List, Optional, Sequence

ENV_VAR = "ERRHINT_INSTALL"


def _truthy(value: Optional[str]) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def maybe_install_from_env() -> bool:
    """Install errhint when ``ERRHINT_INSTALL=1``; a no-op otherwise (safe to call anywhere).

    Returns True when errhint is installed afterwards.
    """
    if not _truthy(os.environ.get(ENV_VAR)):
        return False
    from errhint.hooks.install import install

    return bool(install())


def run(target: str, argv: Optional[Sequence[str]] = None, *, module: bool = False, **options: Any) -> None:
    """Run ``target`` (a script path, or a module name with ``module=True``) as ``__main__``.

    ``argv`` becomes ``sys.argv[1:]``. Exceptions from the program propagate unchanged.
    """
    import runpy

    from errhint.hooks.install import install

    os.environ[ENV_VAR] = "1"
    install(**options)
    sys.argv = [target, *(argv or ())]
    if module:
        cwd = os.getcwd()  # like ``python -m``: modules in the current directory come first
        if sys.path[:1] != [cwd]:
            sys.path.insert(0, cwd)
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        path = os.path.abspath(target)  # like ``python script.py`` (3.9+): absolute __file__
        sys.path.insert(0, os.path.dirname(path))
        runpy.run_path(path, run_name="__main__")


def _is_own_frame(tb: TracebackType) -> bool:
    frame = tb.tb_frame
    if frame.f_globals.get("__name__") == "runpy":  # runpy is frozen on 3.11+: no real file
        return True
    here = os.path.normcase(os.path.abspath(__file__))
    return os.path.normcase(os.path.abspath(frame.f_code.co_filename)) == here


def _strip_own_frames(tb: Optional[TracebackType]) -> Optional[TracebackType]:
    """Drop the leading frames of this module and runpy, like ``python script.py`` shows."""
    while tb is not None and _is_own_frame(tb):
        tb = tb.tb_next
    return tb


USAGE = "usage: errhint run [-m module | script.py] [args ...]"


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point for ``errhint run``; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    module = False
    if args and args[0] == "-m":
        module = True
        args = args[1:]
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not args else sys.stdout)
        return 2 if not args else 0
    target, rest = args[0], args[1:]
    try:
        run(target, rest, module=module)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: B902 (exactly what the interpreter would catch)
        if isinstance(exc, KeyboardInterrupt):
            raise
        tb = _strip_own_frames(exc.__traceback__)
        exc.__traceback__ = tb  # the printers read the exception's own traceback
        sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
        sys.excepthook(type(exc), exc, tb)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
