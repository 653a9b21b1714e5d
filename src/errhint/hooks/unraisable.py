"""``sys.unraisablehook``: exceptions that cannot propagate (``__del__``, GC callbacks).

The default unraisable hook does not print notes on any Python version measured
(3.9-3.13), so when the hook errhint chains to is the default one, errhint prints the hints
itself after it. A custom previous hook gets the notes on the exception and decides
(on 3.9/3.10 errhint prints them unless that hook is known to show notes).
"""

from __future__ import annotations

import sys
from typing import Any, List

from errhint.hooks import _notes
from errhint.hooks._chain import Slot

slot = Slot(sys, "unraisablehook", "unraisablehook")

def _before(args: Any) -> List[str]:
    value = getattr(args, "exc_value", None)
    if not isinstance(value, BaseException):
        return []
    _notes.hint(value)
    wrapper = slot.wrapper
    return _notes.self_print_notes(value, _notes.hook_shows_notes(wrapper.previous if wrapper else None))


def _after(notes: List[str], *_: object) -> None:
    _notes.print_notes(notes, sys.stderr)


def install() -> bool:
    if not hasattr(sys, "unraisablehook"):
        return False
    return slot.install(_before, _after)


def uninstall() -> bool:
    return slot.uninstall()
