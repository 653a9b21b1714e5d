"""Options shared by lookup, hooks and the CLI, plus the environment variables that set them.

One frozen ``Options`` value is current at a time; ``configure`` swaps it atomically so a
hook running in another thread always sees a consistent set.
"""

from __future__ import annotations

import os
import sys
import _thread  # not threading: install() must leave it for the program to import (the threads hook waits for it)

from typing import Any, Optional, TextIO, Tuple

from errhint.constants import VERBOSITIES


_FIELDS = ("verbosity", "limit", "min_score", "repos", "color", "paths")


class Options:
    """What errhint shows and where it looks; every hook and ``lookup`` reads these.

    Immutable. A plain class rather than a dataclass: ``dataclasses`` imports ``inspect``,
    which the first hook call would pay for.

    ``color=None`` means colour only on a TTY and never with NO_COLOR; ``paths`` are extra
    dataset files or folders on top of ERRHINT_DATA and entry points.
    """

    __slots__ = _FIELDS
    verbosity: str
    limit: int
    min_score: float
    repos: Optional[Tuple[str, ...]]
    color: Optional[bool]
    paths: Tuple[str, ...]

    def __init__(
        self,
        verbosity: str = "brief",
        limit: int = 3,
        min_score: float = 0.5,
        repos: Optional[Tuple[str, ...]] = None,
        color: Optional[bool] = None,
        paths: Tuple[str, ...] = (),
    ) -> None:
        if verbosity not in VERBOSITIES:
            raise ValueError(f"verbosity must be one of {VERBOSITIES}, not {verbosity!r}")
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError(f"limit must be a positive int, not {limit!r}")
        if not isinstance(min_score, (int, float)) or not 0.0 <= float(min_score) <= 1.0:
            raise ValueError(f"min_score must be a number in [0, 1], not {min_score!r}")
        for name, value in zip(_FIELDS, (verbosity, limit, float(min_score), repos, color, tuple(paths))):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Options is immutable; use errhint.configure(...)")

    def _asdict(self) -> dict:
        return {name: getattr(self, name) for name in _FIELDS}

    def replace(self, **changes: Any) -> "Options":
        return Options(**{**self._asdict(), **changes})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Options) and self._asdict() == other._asdict()

    def __hash__(self) -> int:
        return hash(tuple(self._asdict().items()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._asdict().items())
        return f"Options({inner})"


_lock = _thread.allocate_lock()
_current: Optional[Options] = None


def enabled() -> bool:
    """ERRHINT=0 (or false/off/no) turns every errhint surface into a no-op."""
    return os.environ.get("ERRHINT", "1").strip().lower() not in ("0", "false", "off", "no")


def debug() -> bool:
    """ERRHINT_DEBUG=1 makes errhint's own failures raise instead of being contained."""
    return os.environ.get("ERRHINT_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


def _from_env() -> Options:
    verbosity = os.environ.get("ERRHINT_VERBOSITY", "brief").strip().lower()
    if verbosity not in VERBOSITIES:
        verbosity = "brief"
    return Options(verbosity=verbosity)


def _normalise(changes: dict) -> dict:
    if "repos" in changes and changes["repos"] is not None:
        repos = changes["repos"]
        changes["repos"] = (repos,) if isinstance(repos, str) else tuple(repos)
    if "paths" in changes:
        paths = changes["paths"] or ()
        changes["paths"] = (str(paths),) if isinstance(paths, (str, os.PathLike)) else tuple(str(p) for p in paths)
    return changes


def current() -> Options:
    """The options in force (environment defaults until ``configure`` is called)."""
    global _current
    opts = _current
    if opts is None:
        with _lock:
            if _current is None:
                _current = _from_env()
            opts = _current
    return opts


def merged(**overrides: Any) -> Options:
    """The current options with per-call overrides (``None`` values are ignored)."""
    changes = {k: v for k, v in overrides.items() if v is not None}
    opts = current()
    if not changes:
        return opts
    unknown = set(changes) - set(_FIELDS)
    if unknown:
        raise TypeError(f"unknown errhint option(s): {', '.join(sorted(unknown))}")
    changes = _normalise(changes)
    for name, value in changes.items():
        held = getattr(opts, name)
        if held != value or type(held) is not type(value):  # True == 1: validate it anyway
            return opts.replace(**changes)
    return opts  # overrides equal to the options in force (a hook passing them on): no new Options


def configure(**options: Any) -> Options:
    """Set options for every later lookup and hook; returns the new options.

    Changing ``paths`` makes the next lookup reload the datasets.
    """
    global _current
    old = current()
    new = merged(**options)
    with _lock:
        _current = new
    if old.paths != new.paths:
        engine = sys.modules.get("errhint.engine")
        if engine is not None:
            engine.reset()
    return new


def reset() -> None:
    """Back to environment defaults (tests use this)."""
    global _current
    with _lock:
        _current = None


def use_color(stream: Optional[TextIO], opts: Optional[Options] = None) -> bool:
    """Colour only on a TTY, never with NO_COLOR; FORCE_COLOR or color=True force it on."""
    opts = opts or current()
    if os.environ.get("NO_COLOR"):
        return False
    if opts.color is not None:
        return opts.color
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return bool(stream is not None and stream.isatty())
    except Exception:
        return False
