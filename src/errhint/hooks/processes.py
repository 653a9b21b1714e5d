"""``multiprocessing.Process`` children that crash.

A child prints its own traceback (``BaseProcess._bootstrap`` calls
``traceback.print_exc()``); neither ``sys.excepthook`` nor the parent sees it. errhint
chains ``traceback.print_exc`` in the child: through a
``multiprocessing.util.register_after_fork`` callback in fork children, and at once when
``install()`` runs inside a child (a spawn/forkserver child importing the main module, a
``Pool`` initializer), so the traceback the child prints carries the hints. Nothing of
errhint sits on the child's call stack, so even a ``RecursionError`` traceback is the same.

The child must have errhint installed when it starts:

* ``fork`` (the Linux default up to 3.13): inherited from the parent's ``install()``.
* ``spawn``/``forkserver``: the child re-imports the main module, so call
  ``errhint.install()`` at module level, or ``errhint.hooks.runner.maybe_install_from_env()``
  (active when ``ERRHINT_INSTALL=1``, which ``errhint run`` sets for its children), or
  pass it as a ``Pool`` initializer.

A ``multiprocessing.Pool`` error is re-raised in the parent with the worker's traceback
text as its cause; the parent's hooks match that text (no child-side hook needed).
"""

from __future__ import annotations

import sys

from typing import Any, List, Optional

from errhint.hooks import _notes
from errhint.hooks._chain import Slot
from errhint.hooks._postimport import Watch, when_imported

MODULE = "multiprocessing"


class _Token:
    """Keeps errhint's after-fork registration alive (the registry holds it weakly)."""


_token: Optional[_Token] = None
_watch: Optional[Watch] = None
_print_exc: Optional[Slot] = None


def _print_exc_before(limit: Any = None, file: Any = None, chain: bool = True) -> List[str]:
    exc = sys.exc_info()[1]
    if exc is None or isinstance(exc, (KeyboardInterrupt, SystemExit)):
        return []
    _notes.hint(exc)
    return _notes.self_print_notes(exc, _notes.traceback_shows_notes())


def _print_exc_after(notes: List[str], result: Any, limit: Any = None, file: Any = None, chain: bool = True) -> None:
    _notes.print_notes(notes, file if file is not None else sys.stderr)


def in_child(_token: Any = None) -> None:
    """Runs in each new child process: chain ``traceback.print_exc`` there."""
    global _print_exc
    if _print_exc is None:
        import traceback

        _print_exc = Slot(traceback, "print_exc", "multiprocessing child")
    _print_exc.install(_print_exc_before, _print_exc_after)


def _is_child() -> bool:
    """In a child process, or in a spawn/forkserver child still importing the main module."""
    import multiprocessing

    if multiprocessing.parent_process() is not None:
        return True
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


def _register(_module: Any = None) -> None:
    global _token
    if _token is not None:
        return
    from multiprocessing import util

    _token = _Token()
    util.register_after_fork(_token, in_child)  # fork children (spawn ones skip after-fork callbacks)
    if _is_child():  # installed inside a child: spawn main-module import, initializer, process body
        in_child()


def install() -> bool:
    """Register the child-side setup, now or as soon as multiprocessing is imported.

    errhint does not import ``multiprocessing`` itself (see ``install``).
    """
    global _watch
    if _token is not None or _watch is not None:
        return True
    _watch = when_imported(MODULE, _register)
    return True


def uninstall() -> bool:
    global _watch, _token
    if _watch is not None:
        _watch.cancel()
        _watch = None
    token, _token = _token, None
    if token is not None:
        util = sys.modules.get("multiprocessing.util")
        registry = getattr(util, "_afterfork_registry", None)
        if registry is not None:  # drop the entry now rather than at garbage collection
            for key in [k for k in list(registry.keys()) if k[1] == id(token)]:
                registry.pop(key, None)
    if _print_exc is not None and _print_exc.installed:
        _print_exc.uninstall()
    return True
