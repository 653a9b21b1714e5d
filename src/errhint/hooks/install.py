"""``errhint.install()`` / ``errhint.uninstall()``: turn the surfaces on and off together.

``install(**options)`` configures errhint (``verbosity``, ``limit``, ``min_score``,
``repos``, ...; see ``errhint.configure``) and installs the surfaces that are not installed
yet, so calling it twice equals calling it once; only a hook another tool has replaced
since (without chaining to errhint) is wrapped again. ``uninstall()`` undoes exactly what
``install()`` did: each hook errhint still owns goes back to the one it replaced; a hook
another tool has wrapped since is left in place and errhint's wrapper inside it becomes a
silent pass-through. Both are thread-safe.
"""

from __future__ import annotations

import functools
import importlib
import sys
import _thread  # not threading: install() must leave it for the program to import (the threads hook waits for it)

from typing import Any, Dict, Iterable, List, Optional, Tuple

from errhint.hooks._postimport import Watch, when_imported
from errhint.hooks._safe import contained

SURFACES: Tuple[str, ...] = (
    "excepthook",
    "threads",
    "unraisable",
    "asyncio",
    "logging",
    "processes",
    "ipython",
)
"""Every surface ``install()`` knows; ``ipython`` only acts inside a running IPython."""

_MODULES: Dict[str, str] = {
    "excepthook": "errhint.hooks.excepthook",
    "threads": "errhint.hooks.threads",
    "unraisable": "errhint.hooks.unraisable",
    "asyncio": "errhint.hooks.asyncio_hook",
    "logging": "errhint.hooks.logging_hook",
    "processes": "errhint.hooks.processes",
    "ipython": "errhint.hooks.ipython",
}

_TRIGGERS: Dict[str, str] = {
    "logging": "logging", "asyncio": "logging", "threads": "threading", "processes": "multiprocessing",
}
"""Surfaces installed only once their module is imported: a program that never imports
``threading`` starts no ``Thread``, nor one without ``multiprocessing`` a child process, and
errhint does not make every program pay for importing them."""

_lock = _thread.RLock()
_installed: List[str] = []
_pending: Dict[str, Watch] = {}


def _surfaces(surfaces: Optional[Iterable[str]]) -> List[str]:
    if surfaces is None:
        return list(SURFACES)
    chosen = [surfaces] if isinstance(surfaces, str) else list(surfaces)
    unknown = [s for s in chosen if s not in _MODULES]
    if unknown:
        raise ValueError(f"unknown errhint surface(s): {', '.join(unknown)}; known: {', '.join(SURFACES)}")
    return chosen


_NEEDS_LOADED: Dict[str, str] = {"ipython": "IPython"}
"""Surfaces that can only act when their module is loaded already (a running IPython shell):
without it they are not installed, and their hook module is not even imported."""


def _install_now(name: str) -> bool:
    needed = _NEEDS_LOADED.get(name)
    if needed is not None and needed not in sys.modules:
        return False
    module = importlib.import_module(_MODULES[name])
    return bool(contained(f"install {name}", module.install))  # type: ignore[attr-defined]


def _install_later(name: str, _module: object) -> None:
    # no _lock here: this runs inside another thread's import, which must not wait on us
    if _pending.pop(name, None) is not None:
        _install_now(name)


def install(*, surfaces: Optional[Iterable[str]] = None, **options: Any) -> List[str]:
    """Add hints wherever exceptions surface; returns the surfaces now installed.

    ``surfaces`` picks a subset of ``SURFACES`` (default: all). With ``ERRHINT=0`` in the
    environment nothing is installed. Importing errhint never installs anything.
    """
    from errhint import config

    chosen = _surfaces(surfaces)
    if options:
        config.configure(**options)  # misspelt options raise here, in the caller's code
    if not config.enabled():
        return list(_installed)
    with _lock:
        for name in chosen:
            if name in _pending:
                continue
            if name in _installed:  # again: re-wraps only a hook another tool replaced since
                _install_now(name)
                continue
            trigger = _TRIGGERS.get(name)
            if trigger is not None and trigger not in sys.modules:
                watch = when_imported(trigger, functools.partial(_install_later, name))
                if watch is not None:
                    _pending[name] = watch
                    _installed.append(name)
                    continue
            if _install_now(name):
                _installed.append(name)
        return list(_installed)


def uninstall() -> List[str]:
    """Undo ``install()``; returns the surfaces whose previous hook was restored."""
    restored: List[str] = []
    with _lock:
        while _installed:
            name = _installed.pop()
            watch = _pending.pop(name, None)
            if watch is not None:  # its module was never imported: nothing was hooked
                watch.cancel()
                restored.append(name)
                continue
            module = importlib.import_module(_MODULES[name])
            if contained(f"uninstall {name}", module.uninstall):  # type: ignore[attr-defined]
                restored.append(name)
    return restored


def installed() -> List[str]:
    """The surfaces ``install()`` has installed (or will, on import) and ``uninstall()`` has not removed."""
    with _lock:
        return list(_installed)
