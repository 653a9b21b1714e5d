"""Every public function and method of the runtime has annotations ``typing.get_type_hints``
can resolve (no name left to a type-checking-only import)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing
from typing import Any, Iterator, List, Tuple

import pytest

import errhint

OPTIONAL_MODULES = {"errhint.hooks.pytest_plugin": "pytest", "errhint.hooks.ipython": "IPython"}


def runtime_modules() -> List[str]:
    names = [errhint.__name__]
    for info in pkgutil.walk_packages(errhint.__path__, prefix="errhint."):
        if info.name != "errhint.__main__":  # running it is importing it
            names.append(info.name)
    return sorted(names)


def public_callables(module: Any) -> Iterator[Tuple[str, Any]]:
    for name, value in vars(module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            yield name, value
        elif inspect.isclass(value):
            for attr, member in vars(value).items():
                if inspect.isfunction(member) and (not attr.startswith("_") or attr == "__init__"):
                    yield f"{name}.{attr}", member


@pytest.mark.parametrize("module_name", runtime_modules())
def test_public_annotations_resolve(module_name: str) -> None:
    if module_name in OPTIONAL_MODULES:
        pytest.importorskip(OPTIONAL_MODULES[module_name])
    module = importlib.import_module(module_name)
    unresolved = []
    for name, fn in public_callables(module):
        try:
            typing.get_type_hints(fn)
        except Exception as exc:  # NameError for a name only a type checker would see
            unresolved.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not unresolved


def test_the_public_surface_resolves() -> None:
    for name in errhint.__all__:
        value = getattr(errhint, name)
        if inspect.isfunction(value):
            assert isinstance(typing.get_type_hints(value), dict), name
    assert typing.get_type_hints(errhint.lookup)["exc"] is BaseException
