"""errhint: remediation hints for candle and burn errors raised through their Python bindings.

The public surface is small and loaded lazily: ``import errhint`` reads no data and
imports neither pydantic nor regex, and installs no hook.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~2.5 ms

__version__ = "0.1.0"

__all__ = [
    "DatasetError",
    "Match",
    "configure",
    "explain",
    "guard",
    "install",
    "load_dataset",
    "load_ipython_extension",
    "lookup",
    "run",
    "uninstall",
    "unload_ipython_extension",
]

# public name -> (module, attribute); resolved on first access
_LAZY = {
    "lookup": ("errhint.engine", "lookup"),
    "explain": ("errhint.engine", "explain"),
    "Match": ("errhint.match", "Match"),
    "load_dataset": ("errhint.data", "load_dataset"),
    "DatasetError": ("errhint.data", "DatasetError"),
    "configure": ("errhint.config", "configure"),
    "install": ("errhint.hooks.install", "install"),
    "uninstall": ("errhint.hooks.install", "uninstall"),
    "guard": ("errhint.hooks.guard", "guard"),
    "run": ("errhint.hooks.runner", "run"),
    "load_ipython_extension": ("errhint.hooks.ipython", "load_ipython_extension"),
    "unload_ipython_extension": ("errhint.hooks.ipython", "unload_ipython_extension"),
}

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
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'errhint' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
