"""Module-level regular expressions compiled on first use, not at import.

Kept because most of the patterns of the engine modules
(traceback-text parsing, assertion forms, the index builder's scanner) are not needed by the
first lookup of a process, which is what an exception hook pays for at a crash.
"""

from __future__ import annotations

import re

from typing import Any


class LazyPattern:
    """Stands in for ``re.compile(pattern, flags)``; each attribute asked for (``match``,
    ``sub``...) is taken from the compiled pattern once and kept on the instance, so later
    calls cost what calling the compiled pattern's method costs."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        found = self.__dict__.get("_rx")
        if found is None:  # two threads may both compile: harmless, the results are equal
            found = self.__dict__["_rx"] = re.compile(*self._args)
        value = getattr(found, name)
        self.__dict__[name] = value
        return value
