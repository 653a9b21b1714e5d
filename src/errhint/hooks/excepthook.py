"""``sys.excepthook``: uncaught exceptions in the main thread (and ``asyncio.run``).

Hints become notes before the previous hook runs, so the default hook, rich, sentry or
whatever was installed before errhint prints them. On 3.9/3.10 errhint prints them itself
after the previous hook's output.
"""

from __future__ import annotations

import sys
from types import TracebackType

from typing import List, Optional, Type

from errhint.hooks._chain import Slot, hint_chained, print_after

slot = Slot(sys, "excepthook", "excepthook")


def _before(etype: Type[BaseException], value: Optional[BaseException], tb: Optional[TracebackType]) -> List[str]:
    return hint_chained(slot, value)


def install() -> bool:
    return slot.install(_before, print_after)


def uninstall() -> bool:
    return slot.uninstall()
