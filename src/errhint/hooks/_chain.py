"""A hook wrapper that chains to the hook it replaced (the sentry pattern).

``Chained`` replaces ``owner.attr`` (``sys.excepthook``, ``threading.excepthook``, ...).
When called it runs errhint's ``before`` step (contained), then always the previous hook
with the untouched arguments, then errhint's ``after(state, result, *args)`` step
(contained; skipped when ``before`` returned None). ``uninstall``
puts the previous hook back only if errhint's wrapper is still the one installed;
otherwise another tool wrapped it in the meantime, so the wrapper stays where it is and
becomes a silent pass-through.
"""

from __future__ import annotations

import functools
import sys

from typing import Any, Callable, List, Optional

from errhint.hooks._safe import contained

Before = Callable[..., Any]
After = Callable[..., None]


def _enabled() -> bool:
    try:
        from errhint import config

        return config.enabled()
    except Exception:
        return False


class Chained:
    """Callable installed in place of a hook; ``previous`` is what it replaced."""

    def __init__(self, name: str, previous: Callable[..., Any], before: Before, after: Optional[After] = None):
        self.name = name
        self.previous = previous
        self.before = before
        self.after = after
        self.active = True
        self.__name__ = f"errhint_{name}"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        state = None
        if self.active:
            try:
                if _enabled():
                    state = contained(self.name, self.before, *args, **kwargs)
            except Exception:  # only under ERRHINT_DEBUG=1: let the interpreter show it
                raise
            except BaseException:  # e.g. Ctrl-C while hinting: still show the original
                state = None
        result = self.previous(*args, **kwargs)
        if state is not None and self.after is not None and self.active:
            try:
                contained(self.name, self.after, state, result, *args, **kwargs)
            except BaseException:
                pass
        return result

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        """Bind like a function when installed as a class attribute."""
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __repr__(self) -> str:
        state = "active" if self.active else "pass-through"
        return f"<errhint {self.name} hook ({state}) chaining to {self.previous!r}>"


class Slot:
    """One hook attribute errhint may wrap: ``owner.attr``."""

    def __init__(self, owner: Any, attr: str, name: str):
        self.owner = owner
        self.attr = attr
        self.name = name
        self.wrapper: Optional[Chained] = None
        self._shadowed = False  # True when the attribute did not exist on an instance before

    def current(self) -> Any:
        # the class __dict__, so a Chained installed on a class is seen unbound
        if isinstance(self.owner, type):
            return self.owner.__dict__.get(self.attr)
        return getattr(self.owner, self.attr, None)

    def _set(self, value: Any) -> None:
        setattr(self.owner, self.attr, value)

    @property
    def installed(self) -> bool:
        return self.wrapper is not None

    def install(self, before: Before, after: Optional[After] = None) -> bool:
        """Wrap the current hook; a no-op when errhint's wrapper is already in place.

        If another tool replaced errhint's wrapper since, the old wrapper turns into a
        pass-through (it may still be called by that tool) and a new one goes on top.
        """
        if self.wrapper is not None:
            if self.current() is self.wrapper:
                return False
            self.wrapper.active = False
            self.wrapper = None
        previous = self.current()
        if previous is None:
            return False
        self.wrapper = Chained(self.name, previous, before, after)
        own = getattr(self.owner, "__dict__", None)
        self._shadowed = (
            self.attr != "" and not isinstance(self.owner, type) and isinstance(own, dict) and self.attr not in own
        )
        self._set(self.wrapper)
        return True

    def uninstall(self) -> bool:
        """Restore the previous hook if errhint's is on top, else leave a pass-through.

        Returns True when the previous hook was restored.
        """
        wrapper, self.wrapper = self.wrapper, None
        if wrapper is None:
            return False
        wrapper.active = False
        if self.current() is wrapper:
            if self._shadowed:  # an instance attribute errhint added: remove it again
                delattr(self.owner, self.attr)
            else:
                self._set(wrapper.previous)
            return True
        return False


class AccessorSlot(Slot):
    """A hook reached through getter/setter functions (``logging.setLogRecordFactory``)."""

    def __init__(self, get: Callable[[], Any], set: Callable[[Any], None], name: str):
        super().__init__(None, "", name)
        self._get_fn = get
        self._set_fn = set

    def current(self) -> Any:
        return self._get_fn()

    def _set(self, value: Any) -> None:
        self._set_fn(value)


def hint_chained(slot: "Slot", value: Any) -> List[str]:
    """Add the hints to ``value`` as notes; return the notes errhint must print itself
    because the hook it chains to would not show them (Python < 3.11, unraisablehook)."""
    from errhint.hooks import _notes

    if not isinstance(value, BaseException):
        return []
    _notes.hint(value)
    wrapper = slot.wrapper
    return _notes.self_print_notes(value, _notes.hook_shows_notes(wrapper.previous if wrapper else None))


def print_after(notes: List[str], *_: object) -> None:
    """Print the self-printed notes once the previous hook has written its traceback."""
    from errhint.hooks import _notes

    _notes.print_notes(notes, sys.stderr)
