"""Run a callback when a module is imported, without importing it now.

Used by surfaces whose target module errhint must not import itself (a program that never
imports ``threading`` or ``multiprocessing`` needs no hook for them): if the module is loaded already the callback runs at once, otherwise a small
``sys.meta_path`` finder wraps that one module's loader and runs the callback right after
the module has executed, then removes itself.
"""

from __future__ import annotations

import sys
import _thread  # not threading: install() must leave it for the program to import (the threads hook waits for it)

from typing import Any, Callable, Optional

from errhint.hooks._safe import debug, report

Callback = Callable[[Any], Any]


class _Loader:
    """Delegates to the real loader; runs the callback once the module has executed."""

    def __init__(self, inner: Any, watch: "Watch"):
        self._inner = inner
        self._watch = watch

    def create_module(self, spec: Any) -> Any:
        return self._inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        try:
            self._inner.exec_module(module)
        finally:  # leave no trace of errhint on the module
            spec = getattr(module, "__spec__", None)
            if spec is not None and spec.loader is self:
                spec.loader = self._inner
            if getattr(module, "__loader__", None) is self:
                module.__loader__ = self._inner
        self._watch.fire(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class Watch:
    """A one-shot ``sys.meta_path`` entry for module ``name``."""

    def __init__(self, name: str, callback: Callback):
        self.name = name
        self.callback = callback
        self._local = _thread._local()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name or getattr(self._local, "busy", False):
            return None
        self._local.busy = True
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
        finally:
            self._local.busy = False
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _Loader(spec.loader, self)
        return spec

    def fire(self, module: Any) -> None:
        self.cancel()
        try:  # not ``contained``: an import inside errhint's own work must still install
            self.callback(module)
        except Exception as err:
            if debug():
                raise
            report(err, f"after import {self.name}")

    def cancel(self) -> None:
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass


def when_imported(name: str, callback: Callback) -> Optional[Watch]:
    """Call ``callback(module)`` now if ``name`` is imported, else right after its import.

    Returns the pending ``Watch`` (``.cancel()`` it to give up) or None if it ran now.
    """
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return None
    watch = Watch(name, callback)
    sys.meta_path.insert(0, watch)
    return watch
