"""IPython and Jupyter: cells never reach ``sys.excepthook``.

IPython swaps in its own excepthook while a cell runs and prints tracebacks through
``InteractiveShell.showtraceback``. errhint chains that method on the shell instance: the
hints are added as notes first, then whatever ``showtraceback`` was there (IPython's own,
or rich's) prints them; IPython's ultratb shows ``__notes__`` on every Python version.
This is safer than ``set_custom_exc``, which allows one handler per shell, ignores its
return value and unregisters a handler that fails.

Enable with ``%load_ext errhint`` (``errhint.load_ipython_extension``), or by calling
``errhint.install()`` inside IPython. IPython stays optional: nothing here imports it.
"""

from __future__ import annotations

import sys

from typing import Any, Dict, Optional

from errhint.hooks import _notes
from errhint.hooks._chain import Slot

_slots: Dict[int, Slot] = {}


def current_shell() -> Optional[Any]:
    """The running IPython shell, or None (without importing IPython)."""
    if "IPython" not in sys.modules:
        return None
    try:
        get = getattr(sys.modules["IPython"], "get_ipython", None)
        return get() if get is not None else None
    except Exception:
        return None


def _exception_of(exc_tuple: Any = None, *args: Any, **kwargs: Any) -> Optional[BaseException]:
    exc_tuple = kwargs.get("exc_tuple", exc_tuple)
    if isinstance(exc_tuple, tuple) and len(exc_tuple) >= 2:
        value = exc_tuple[1]
    else:
        value = sys.exc_info()[1]
        if value is None:
            value = getattr(sys, "last_value", None)
    return value if isinstance(value, BaseException) else None


def _before(*args: Any, **kwargs: Any) -> None:
    exc = _exception_of(*args, **kwargs)
    if exc is not None and not isinstance(exc, SyntaxError):
        _notes.hint(exc)
    return None


def install(shell: Any = None) -> bool:
    """Chain ``shell.showtraceback`` (the running shell by default)."""
    shell = shell if shell is not None else current_shell()
    if shell is None or not hasattr(shell, "showtraceback"):
        return False
    slot = _slots.get(id(shell))
    if slot is None:
        slot = _slots[id(shell)] = Slot(shell, "showtraceback", "ipython")
    return slot.install(_before)


def uninstall(shell: Any = None) -> bool:
    """Undo ``install``; with no shell given, undo it on every shell errhint touched."""
    if shell is None:
        restored = False
        for key in list(_slots):
            restored = _slots.pop(key).uninstall() or restored
        return restored
    slot = _slots.pop(id(shell), None)
    return slot.uninstall() if slot is not None else False


def installed(shell: Any = None) -> bool:
    shell = shell if shell is not None else current_shell()
    slot = _slots.get(id(shell)) if shell is not None else None
    return bool(slot is not None and slot.installed)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext errhint``."""
    install(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext errhint``."""
    uninstall(ipython)
