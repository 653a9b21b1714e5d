"""``errhint.guard()``: add hints to exceptions leaving a block or a function.

A context manager (``with`` and ``async with``) and a decorator for ``def`` and
``async def``. It catches every ``BaseException`` subclass (pyo3's ``PanicException`` is
one) except the control-flow ones, adds the hints as notes once, and lets the very same
exception object continue with its type, args and traceback untouched.
"""

from __future__ import annotations

import functools
import inspect
from types import TracebackType

from typing import Any, Callable, List, Optional, Type, TypeVar

from errhint.hooks import _notes
from errhint.hooks._safe import contained

F = TypeVar("F", bound=Callable[..., Any])

PASS_THROUGH = (KeyboardInterrupt, SystemExit, GeneratorExit)
"""Never touched: they are how a program stops, not errors to explain."""

OnMatch = Callable[[BaseException, List[Any]], Any]


def _is_control_flow(exc: BaseException) -> bool:
    if isinstance(exc, PASS_THROUGH):
        return True
    # asyncio.CancelledError (a BaseException since 3.8) without importing asyncio
    cls = type(exc)
    return cls.__name__ == "CancelledError" and cls.__module__ in ("asyncio.exceptions", "concurrent.futures._base")


class guard:  # noqa: N801 (used like a function: ``with errhint.guard():``)
    """Add errhint's hints to any exception that leaves the guarded code.

    Options (``verbosity``, ``limit``, ``min_score``, ``repos``) override the configured
    ones for this guard only. ``on_match(exc, matches)`` is called when hints were found;
    its own failures are contained like errhint's.
    """

    def __init__(self, *, on_match: Optional[OnMatch] = None, **options: Any) -> None:
        self.on_match = on_match
        self.options = options
        if options:  # fail early, in the user's code, on a misspelt option
            from errhint import config

            config.merged(**options)

    # --- context manager -------------------------------------------------------------
    def __enter__(self) -> "guard":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool:
        if exc is not None:
            self.handle(exc)
        return False  # never swallow: the exception goes on unchanged

    async def __aenter__(self) -> "guard":
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool:
        return self.__exit__(exc_type, exc, tb)

    def handle(self, exc: BaseException) -> List[Any]:
        """Hint ``exc`` now (what leaving the block does); returns the new matches."""
        if _is_control_flow(exc):
            return []
        matches = contained("guard", self._lookup, exc) or []
        if matches and self.on_match is not None:
            contained("guard on_match", self.on_match, exc, matches)
        return matches

    def _lookup(self, exc: BaseException) -> List[Any]:
        from errhint import config

        if not config.enabled():
            return []
        return _notes.hint(exc, **self.options)

    # --- decorator -------------------------------------------------------------------
    def __call__(self, func: F) -> F:
        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                __tracebackhide__ = True  # noqa: F841 (pytest hides this frame)
                with self:
                    return await func(*args, **kwargs)

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True  # noqa: F841
            with self:
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

