"""``threading.excepthook``: uncaught exceptions in ``threading.Thread``.

Chaining ``threading.excepthook`` (rather than patching ``Thread.run``) sees every
``BaseException`` subclass, including pyo3's ``PanicException``, and adds no frame to the
printed traceback.
"""

from __future__ import annotations

import threading

from typing import Any, List

from errhint.hooks._chain import Slot, hint_chained, print_after

slot = Slot(threading, "excepthook", "threading.excepthook")


def _before(args: Any) -> List[str]:
    value = getattr(args, "exc_value", None)
    if isinstance(value, SystemExit):
        return []
    return hint_chained(slot, value)


def install() -> bool:
    return slot.install(_before, print_after)


def uninstall() -> bool:
    return slot.uninstall()
