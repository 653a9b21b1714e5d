"""``sys.unraisablehook``: exceptions that cannot propagate (``__del__``, GC callbacks).

The default unraisable hook does not print notes on any Python version measured
(3.9-3.13), so when the hook errhint chains to is the default one, errhint prints the hints
itself after it. A custom previous hook gets the notes on the exception and decides
(on 3.9/3.10 errhint prints them unless that hook is known to show notes).
"""

from __future__ import annotations

import sys

from typing import Any, List

from errhint.hooks._chain import Slot, hint_chained, print_after

slot = Slot(sys, "unraisablehook", "unraisablehook")

def _before(args: Any) -> List[str]:
    return hint_chained(slot, getattr(args, "exc_value", None))


def install() -> bool:
    if not hasattr(sys, "unraisablehook"):
        return False
    return slot.install(_before, print_after)


def uninstall() -> bool:
    return slot.uninstall()
