"""asyncio: "Task exception was never retrieved" and other errors sent to a loop's handler.

asyncio's default exception handler logs on the ``asyncio`` logger with ``exc_info``, so
``install()`` has the chained log-record factory of ``logging_hook`` hint that logger's
records (only those, unless the logging surface is on too); this works for every
loop, including ones created later by ``asyncio.run``, without patching asyncio. An
exception propagating out of ``asyncio.run`` reaches ``sys.excepthook`` (``excepthook``).

A loop with its own exception handler (``loop.set_exception_handler``) never logs; wrap
that handler with ``install_loop(loop)``, which chains it and is undone by
``uninstall_loop(loop)``.
"""

from __future__ import annotations


from typing import Any, Dict, List

from errhint.hooks import _notes, logging_hook
from errhint.hooks._chain import Slot


def install() -> bool:
    return logging_hook.enable("asyncio")


def uninstall() -> bool:
    return logging_hook.disable("asyncio")


# --- explicit loops with a custom handler ---------------------------------------------

_loop_slots: Dict[int, Slot] = {}


class _LoopSlot(Slot):
    def __init__(self, loop: Any):
        super().__init__(loop, "", "asyncio loop handler")

    def current(self) -> Any:
        handler = self.owner.get_exception_handler()
        if handler is None:  # the default handler, as a (loop, context) callable
            return _default_handler
        return handler

    def _set(self, value: Any) -> None:
        self.owner.set_exception_handler(None if value is _default_handler else value)


def _default_handler(loop: Any, context: Dict[str, Any]) -> None:
    loop.default_exception_handler(context)


def _loop_before(loop: Any, context: Any) -> List[str]:
    exc = context.get("exception") if isinstance(context, dict) else None
    if isinstance(exc, BaseException):
        _notes.hint(exc)
    return []


def install_loop(loop: Any) -> bool:
    """Chain ``loop``'s exception handler so the exceptions it receives carry hints."""
    slot_ = _loop_slots.get(id(loop))
    if slot_ is None:
        slot_ = _loop_slots[id(loop)] = _LoopSlot(loop)
    return slot_.install(_loop_before)


def uninstall_loop(loop: Any) -> bool:
    slot_ = _loop_slots.pop(id(loop), None)
    return slot_.uninstall() if slot_ is not None else False


__all__ = ["install", "uninstall", "install_loop", "uninstall_loop"]
