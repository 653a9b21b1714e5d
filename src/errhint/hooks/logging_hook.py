"""``logging``: hints on records that carry ``exc_info`` (``log.exception``, asyncio's handler).

Three ways in, from global to explicit:

* ``install()`` chains ``logging.setLogRecordFactory`` so every record created with
  ``exc_info`` gets hints, whatever logger, handler or formatter is configured and whether
  logging is set up before or after errhint (a logger filter would miss records that
  propagate from child loggers).
* ``HintFilter``: attach to a handler or logger.
* ``HintFormatter``: a ``logging.Formatter`` whose ``formatException`` adds the hints.

On 3.11+ the hints are notes, which ``logging.Formatter`` prints after the traceback. On
3.9/3.10 the record's ``exc_text`` is filled with the standard traceback text plus the
hints, which every formatter that does not override ``formatException`` prints as is.
"""

from __future__ import annotations

import logging

from typing import Any, List, Optional, Set

from errhint.hooks import _notes
from errhint.hooks._chain import AccessorSlot
from errhint.hooks._safe import contained

slot = AccessorSlot(logging.getLogRecordFactory, logging.setLogRecordFactory, "logging")


def _exception_of(record: logging.LogRecord) -> Optional[BaseException]:
    info = getattr(record, "exc_info", None)
    if isinstance(info, tuple) and len(info) >= 2 and isinstance(info[1], BaseException):
        return info[1]
    return None


def hint_record(record: logging.LogRecord) -> None:
    """Add hints for the record's exception (errhint's failures are contained)."""
    contained("logging", _hint_record, record)


def _hint_record(record: logging.LogRecord) -> None:
    exc = _exception_of(record)
    if exc is None:
        return
    _notes.hint(exc)
    notes = _notes.self_print_notes(exc, _notes.traceback_shows_notes())
    if notes and not record.exc_text:
        text = logging.Formatter().formatException(record.exc_info)  # type: ignore[arg-type]
        record.exc_text = text + "\n" + "\n".join(notes)


_scopes: Set[str] = set()
"""Who asked for the record factory: ``"all"`` (this surface) and/or ``"asyncio"``."""


def _selected(name: str) -> bool:
    if "all" in _scopes:
        return True
    return "asyncio" in _scopes and (name == "asyncio" or name.startswith("asyncio."))


def _before(*args: object, **kwargs: object) -> bool:
    return True  # the work needs the record, so it happens in ``after``


def _after(_state: object, record: Any, *args: object, **kwargs: object) -> None:
    if isinstance(record, logging.LogRecord) and _selected(record.name) and _exception_of(record):
        _hint_record(record)


def enable(scope: str) -> bool:
    """Hint records of ``scope`` (``"all"`` or ``"asyncio"``); one chained factory serves both."""
    _scopes.add(scope)
    slot.install(_before, _after)
    return slot.installed


def disable(scope: str) -> bool:
    """Stop hinting ``scope``; the factory is restored once no scope is left."""
    _scopes.discard(scope)
    if not _scopes:
        return slot.uninstall()
    return True


def install() -> bool:
    """Hint every logged exception, for all loggers."""
    return enable("all")


def uninstall() -> bool:
    return disable("all")


class HintFilter(logging.Filter):
    """A filter that never drops a record, only adds hints to its exception."""

    def filter(self, record: logging.LogRecord) -> bool:
        hint_record(record)
        return True


class HintFormatter(logging.Formatter):
    """A formatter that prints the hints after the traceback, on every Python version."""

    def formatException(self, ei: Any) -> str:  # noqa: N802 (logging's name)
        exc = ei[1] if isinstance(ei, tuple) and len(ei) >= 2 else None
        if isinstance(exc, BaseException):
            contained("logging", _notes.hint, exc)
        text = super().formatException(ei)
        if isinstance(exc, BaseException):
            extra: List[str] = contained("logging", _notes.self_print_notes, exc, _notes.traceback_shows_notes()) or []
            if extra:
                text = text + "\n" + "\n".join(extra)
        return text
