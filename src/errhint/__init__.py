"""errhint: remediation hints for candle and burn errors raised through their Python bindings.

The public surface is small and loaded lazily: ``import errhint`` reads no data and
imports neither pydantic nor regex, and installs no hook.
"""

from __future__ import annotations

# Lazy on purpose: every program that calls ``errhint.install()`` pays for ``import errhint``,
# so it imports nothing (not even typing); each public name imports its module on first use.
TYPE_CHECKING = False  # typing's own would import typing; type checkers treat this one alike

__version__ = "0.1.0"

_LAZY = {
    "errhint.engine": ("lookup", "explain"),
    "errhint.match": ("Match",),
    "errhint.data": ("load_dataset", "DatasetError"),
    "errhint.config": ("configure",),
    "errhint.hooks.install": ("install", "uninstall"),
    "errhint.hooks.guard": ("guard",),
    "errhint.hooks.runner": ("run",),
    "errhint.hooks.ipython": ("load_ipython_extension", "unload_ipython_extension"),
}
"""Module -> the public names it defines."""

_HOME = {name: module for module, names in _LAZY.items() for name in names}

__all__ = sorted(_HOME)

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from errhint.config import configure
    from errhint.data import DatasetError, load_dataset
    from errhint.engine import explain, lookup
    from errhint.hooks.guard import guard
    from errhint.hooks.install import install, uninstall
    from errhint.hooks.runner import run
    from errhint.hooks.ipython import load_ipython_extension, unload_ipython_extension
    from errhint.match import Match


def __getattr__(name: str) -> "Any":
    try:
        module = _HOME[name]
    except KeyError:
        raise AttributeError(f"module 'errhint' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
