"""``sys.excepthook``: uncaught exceptions in the main thread (and ``asyncio.run``).

Hints become notes before the previous hook runs, so the default hook, rich, sentry or
whatever was installed before errhint prints them. On 3.9/3.10 errhint prints them itself
after the previous hook's output.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import List, Optional, Type

from errhint.hooks import _notes
from errhint.hooks._chain import Slot

slot = Slot(sys, "excepthook", "excepthook")


def _before(etype: Type[BaseException], value: Optional[BaseException], tb: Optional[TracebackType]) -> List[str]:
    if not isinstance(value, BaseException):
        return []
    _notes.hint(value)
    wrapper = slot.wrapper
    return _notes.self_print_notes(value, _notes.hook_shows_notes(wrapper.previous if wrapper else None))


def _after(notes: List[str], *_: object) -> None:
    _notes.print_notes(notes, sys.stderr)


def install() -> bool:
    return slot.install(_before, _after)


def uninstall() -> bool:
    return slot.uninstall()
