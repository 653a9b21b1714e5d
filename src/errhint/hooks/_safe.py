"""Failure containment: errhint must never make a traceback worse.

Every piece of errhint code that runs inside a hook goes through ``contained``. A failure
is reported as at most one line ``errhint: internal error: ...`` on stderr (each distinct
line once per process), never on stdout, and never changes the exit status. With
``ERRHINT_DEBUG=1`` the failure is re-raised so it can be debugged.
"""

from __future__ import annotations

import sys
import _thread  # not threading: install() must leave it for the program to import (the threads hook waits for it)

from typing import Callable, Optional, Set, TypeVar

from errhint.constants import NOTE_MARKER

T = TypeVar("T")

PREFIX = NOTE_MARKER + " internal error: "
_MAX = 300

_reported: Set[str] = set()
_lock = _thread.allocate_lock()
_local = _thread._local()


def debug() -> bool:
    """ERRHINT_DEBUG, read through config; the raw variable if config itself is broken."""
    try:
        from errhint import config

        return config.debug()
    except Exception:
        import os

        return os.environ.get("ERRHINT_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


def describe(err: BaseException) -> str:
    """``Type: message`` on one bounded line, even when the error's ``__str__`` misbehaves."""
    name = getattr(type(err), "__qualname__", None) or "Exception"
    try:
        text = str(err)
        if not isinstance(text, str):
            raise TypeError
    except BaseException:
        text = "<str() failed>"
    line = f"{name}: {text}" if text else name
    line = " ".join(line.split())
    return line if len(line) <= _MAX else line[: _MAX - 3] + "..."


def report(err: BaseException, where: str = "") -> None:
    """Write one ``errhint: internal error`` line to stderr (each distinct line once)."""
    try:
        line = PREFIX + (f"{where}: " if where else "") + describe(err)
        with _lock:
            if line in _reported:
                return
            _reported.add(line)
        stream = sys.stderr or sys.__stderr__
        if stream is None:
            return
        stream.write(line + "\n")
        stream.flush()
    except BaseException:  # nothing left to fall back on; stay silent
        pass


def busy() -> bool:
    """True while errhint's own code runs in this thread (hooks fired by it stay out)."""
    return bool(getattr(_local, "busy", False))


def contained(where: str, func: Callable[..., T], *args: object, **kwargs: object) -> Optional[T]:
    """Run errhint's own ``func``; on failure report one line and return None.

    A re-entrant call (a hook fired by errhint's own work, e.g. a record logged while the
    dataset loads) returns None at once instead of recursing into errhint again.
    """
    if busy():
        return None
    _local.busy = True
    try:
        return func(*args, **kwargs)
    except Exception as err:
        if debug():
            raise
        report(err, where)
        return None
    finally:
        _local.busy = False
