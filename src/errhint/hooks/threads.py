"""``threading.excepthook``: uncaught exceptions in ``threading.Thread``.

Chaining ``threading.excepthook`` (rather than patching ``Thread.run``) sees every
``BaseException`` subclass, including pyo3's ``PanicException``, and adds no frame to the
printed traceback.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, List

from errhint.hooks import _notes
from errhint.hooks._chain import Slot

slot = Slot(threading, "excepthook", "threading.excepthook")


def _before(args: Any) -> List[str]:
    value = getattr(args, "exc_value", None)
    if isinstance(value, BaseException) and not isinstance(value, SystemExit):
        _notes.hint(value)
        wrapper = slot.wrapper
        return _notes.self_print_notes(value, _notes.hook_shows_notes(wrapper.previous if wrapper else None))
    return []


def _after(notes: List[str], *_: object) -> None:
    _notes.print_notes(notes, sys.stderr)


def install() -> bool:
    return slot.install(_before, _after)


def uninstall() -> bool:
    return slot.uninstall()
