"""``multiprocessing.Process`` children that crash.

A child prints its own traceback (``BaseProcess._bootstrap`` calls
``traceback.print_exc()``); neither ``sys.excepthook`` nor the parent sees it. errhint
chains ``BaseProcess._bootstrap``: inside the child, while the process body runs,
``traceback.print_exc`` is chained too, so the traceback the child prints carries the
hints, without adding a frame to it.

The child must have errhint installed when it starts:

* ``fork`` (the Linux default up to 3.13): inherited from the parent's ``install()``.
* ``spawn``/``forkserver``: the child re-imports the main module, so call
  ``errhint.install()`` at module level, or ``errhint.hooks.runner.maybe_install_from_env()``
  (active when ``ERRHINT_INSTALL=1``, which ``errhint run`` sets for its children), or
  pass it as a ``Pool``/``Process`` initializer.

A ``multiprocessing.Pool`` error is re-raised in the parent with the worker's traceback
text as its cause; the parent's hooks match that text (no child-side hook needed).
"""

from __future__ import annotations

import sys
from typing import Any, List, Optional

from errhint.hooks import _notes
from errhint.hooks._chain import Slot
from errhint.hooks._postimport import Watch, when_imported

MODULE = "multiprocessing.process"

_slot: Optional[Slot] = None
_watch: Optional[Watch] = None
_print_exc: Optional[Slot] = None


def _print_exc_before(limit: Any = None, file: Any = None, chain: bool = True) -> List[str]:
    exc = sys.exc_info()[1]
    if exc is None or isinstance(exc, (KeyboardInterrupt, SystemExit)):
        return []
    _notes.hint(exc)
    return _notes.self_print_notes(exc)


def _print_exc_after(notes: List[str], result: Any, limit: Any = None, file: Any = None, chain: bool = True) -> None:
    _notes.print_notes(notes, file if file is not None else sys.stderr)


def _bootstrap_before(process: Any, *args: Any, **kwargs: Any) -> bool:
    """In the child, before the process body runs: chain ``traceback.print_exc``."""
    global _print_exc
    if _print_exc is None:
        import traceback

        _print_exc = Slot(traceback, "print_exc", "multiprocessing child")
    return _print_exc.install(_print_exc_before, _print_exc_after)


def _bootstrap_after(installed_here: bool, result: Any, *args: Any, **kwargs: Any) -> None:
    if installed_here and _print_exc is not None:
        _print_exc.uninstall()


def _install_now(mp_process: Any) -> bool:
    global _slot
    if _slot is None:
        _slot = Slot(mp_process.BaseProcess, "_bootstrap", "multiprocessing")
    return _slot.install(_bootstrap_before, _bootstrap_after)


def install() -> bool:
    """Chain ``BaseProcess._bootstrap``, now or as soon as multiprocessing is imported.

    Importing ``multiprocessing`` costs about 8 ms, so errhint does not import it itself.
    """
    global _watch
    if _watch is not None or (_slot is not None and _slot.installed):
        return True
    _watch = when_imported(MODULE, _install_now)
    return True


def uninstall() -> bool:
    global _watch
    undone = False
    if _watch is not None:  # still waiting for the import (or it fired since)
        _watch.cancel()
        _watch = None
        undone = True
    if _slot is not None and _slot.installed:
        undone = _slot.uninstall()
    return undone
