"""Attach hints to an exception as PEP 678 notes, once, and find them again.

An exception is looked up at most once: it is marked before the lookup, so nested guards,
a guard plus a hook, or a re-raise through several frames never add a hint twice (and a
lookup that failed is not retried in every hook it passes). On Python 3.9/3.10, where
``add_note`` does not exist, ``__notes__`` is still set (IPython, pytest, sentry and the
``exceptiongroup`` backport read it) and the hooks print the hints themselves.
"""

from __future__ import annotations

import sys

from typing import Any, Iterator, List, Optional, TextIO

from errhint.constants import NOTE_MARKER


MARK_ATTR = "__errhint_seen__"
NOTES_SHOWN = sys.version_info >= (3, 11)
"""Whether the standard printers show ``__notes__``; if not, errhint prints hints itself
(see ``hook_shows_notes`` and ``traceback_shows_notes``)."""

_MAX_CHAIN = 64
_MISSING = object()


def is_marked(exc: BaseException) -> bool:
    try:
        return bool(exc.__dict__.get(MARK_ATTR))
    except Exception:
        return any(True for _ in own_notes(exc))


def _mark(exc: BaseException) -> None:
    try:
        object.__setattr__(exc, MARK_ATTR, True)
    except Exception:  # e.g. a frozen exception class: the notes themselves mark it
        pass


def own_notes(exc: BaseException) -> Iterator[str]:
    """errhint's notes on ``exc`` (not on its causes)."""
    notes = getattr(exc, "__notes__", None)
    if isinstance(notes, (list, tuple)):
        for note in notes:
            if isinstance(note, str) and note.startswith(NOTE_MARKER):
                yield note


def chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and its causes/contexts, cycle-safe and bounded."""
    seen = set()
    stack: List[Any] = [exc]
    while stack and len(seen) < _MAX_CHAIN:
        cur = stack.pop()
        if not isinstance(cur, BaseException) or id(cur) in seen:
            continue
        seen.add(id(cur))
        yield cur
        stack.append(getattr(cur, "__context__", None))
        stack.append(getattr(cur, "__cause__", None))


def chain_notes(exc: BaseException) -> List[str]:
    """Every errhint note in the chain, innermost exception first (the printing order)."""
    out: List[str] = []
    for cur in reversed(list(chain(exc))):
        for note in own_notes(cur):
            if note not in out:
                out.append(note)
    return out


def _attach(exc: BaseException, notes: List[str]) -> None:
    """Add ``notes``; a ``__notes__`` the user set to something other than a list (a tuple,
    None) cannot take notes, and it is theirs: leave it alone, silently."""
    present = exc.__dict__.get("__notes__", _MISSING)
    if present is not _MISSING and not isinstance(present, list):
        return
    if "__notes__" not in exc.__dict__:
        # object.__setattr__ also works for exception classes that forbid setattr (frozen dataclasses)
        object.__setattr__(exc, "__notes__", [])
    if NOTES_SHOWN:
        for note in notes:
            exc.add_note(note)  # type: ignore[attr-defined]
    else:
        exc.__dict__["__notes__"].extend(notes)


def compute(exc: BaseException, **overrides: Any) -> List[Any]:
    """The engine's matches for ``exc`` under the current options plus ``overrides``."""
    from errhint import config, engine

    opts = config.merged(**overrides)
    return list(engine.lookup(exc, limit=opts.limit, min_score=opts.min_score, repos=opts.repos))


def render(matches: List[Any], **overrides: Any) -> List[str]:
    from errhint import config
    from errhint import render as _render

    opts = config.merged(**overrides)
    return [n for n in _render.render_notes(matches, opts.verbosity) if isinstance(n, str) and n]


def hint(exc: BaseException, **overrides: Any) -> List[Any]:
    """Look ``exc`` up once and attach the hints as notes; return the new matches.

    Returns [] when ``exc`` was already looked up or nothing matched. Notes already present
    on an exception of the chain (added by a guard further down) are not repeated.
    """
    if is_marked(exc):
        return []
    _mark(exc)
    matches = compute(exc, **overrides)
    if not matches:
        return []
    notes = render(matches, **overrides)
    present = set(chain_notes(exc))
    fresh = [n for n in notes if n not in present]
    if fresh:
        _attach(exc, fresh)
    return matches


def colorize(note: str) -> str:
    """Bold the ``errhint:`` marker (only called when colour is on)."""
    if note.startswith(NOTE_MARKER):
        return "\x1b[1;36m" + NOTE_MARKER + "\x1b[0m" + note[len(NOTE_MARKER):]
    return note


def print_notes(notes: List[str], stream: Optional[TextIO] = None) -> None:
    """Write hints after a traceback that was printed without them."""
    if not notes:
        return
    stream = stream if stream is not None else sys.stderr
    if stream is None:
        return
    from errhint import config

    color = config.use_color(stream)
    text = "\n".join(colorize(n) if color else n for n in notes)
    stream.write(text + "\n")
    stream.flush()


_probe_cache: dict = {}


def traceback_shows_notes() -> bool:
    """Whether the ``traceback`` module prints ``__notes__`` (3.11+, or patched by the
    ``exceptiongroup`` backport on 3.9/3.10); logging, pytest and ``print_exc`` use it."""
    if NOTES_SHOWN:
        return True
    import traceback

    key = (id(traceback.TracebackException), id(traceback.format_exception_only))
    shown = _probe_cache.get(key)
    if shown is None:
        probe = ValueError("probe")
        probe.__notes__ = ["errhint-probe-note"]  # type: ignore[attr-defined]
        try:
            shown = "errhint-probe-note" in "".join(traceback.format_exception_only(ValueError, probe))
        except Exception:
            shown = False
        _probe_cache[key] = shown
    return shown


def hook_shows_notes(hook: Any) -> bool:
    """Whether ``hook`` (the hook errhint chains to) prints ``__notes__`` itself."""
    if hook is getattr(sys, "__unraisablehook__", None):
        return False  # measured: the default unraisable hook ignores notes on 3.9-3.13
    if NOTES_SHOWN:
        return True
    import _thread

    threading = sys.modules.get("threading")  # not imported for this: a hook of it implies it is loaded
    c_printers = (sys.__excepthook__, getattr(threading, "__excepthook__", None), getattr(_thread, "_excepthook", None))
    if any(hook is p for p in c_printers if p is not None):
        return False  # the C printers of 3.9/3.10
    package = (getattr(hook, "__module__", None) or "").split(".")[0]
    if package == "exceptiongroup":
        return traceback_shows_notes()
    return package in ("IPython", "rich")


def self_print_notes(exc: Optional[BaseException], shown: bool) -> List[str]:
    """The hints a hook must print itself: every errhint note in the chain, unless the
    printer it hands the exception to (``shown``) prints notes."""
    if shown or not isinstance(exc, BaseException):
        return []
    return chain_notes(exc)
