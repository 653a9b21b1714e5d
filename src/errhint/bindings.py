"""The Python bindings errhint explains, in one table: their import names, distributions and
the repositories whose errors they surface, and how a module name, a file path or a Rust
source location points at one of them."""


import sys
from functools import lru_cache
from typing import Dict, FrozenSet, NamedTuple, Optional, Tuple

from errhint._lazyre import LazyPattern

CANDLE = "huggingface/candle"
BURN = "tracel-ai/burn"
WRAP_BURN = "KwachOjunga/wrap-burn"
CUBECL = "tracel-ai/cubecl"


class Binding(NamedTuple):
    """One binding package."""

    distribution: str
    """What pip installs (``candle-nn``), to read its installed version."""
    repos: Dict[str, Dict[str, str]]
    """Repository it brings -> {binding version: that repository's version}; an empty
    mapping means the repository shares the binding's versions."""


BINDINGS: Dict[str, Binding] = {
    "candle": Binding("candle-nn", {CANDLE: {}}),
    "pyburn": Binding("pyburn", {BURN: {"0.1.7": "0.18.0"}, WRAP_BURN: {}}),
}
"""Import name -> binding. candle-pyo3 lives in the candle repository and shares its
versions; pyburn 0.1.7 (wrap-burn) runs burn 0.18."""

MODULES = tuple(BINDINGS)
REPOS = frozenset(repo for binding in BINDINGS.values() for repo in binding.repos)

_CRATE_REPOS = (("candle", CANDLE), ("burn", BURN))
"""Crate-name prefix -> the repository its crates come from (a cargo registry path names the crate)."""


@lru_cache(maxsize=16)
def repos_of(modules: FrozenSet[str]) -> FrozenSet[str]:
    """The repositories the binding packages ``modules`` bring (unknown names give none)."""
    return frozenset(repo for m in modules if m in BINDINGS for repo in BINDINGS[m].repos)


def loaded() -> FrozenSet[str]:
    """The binding packages this process has imported."""
    return frozenset(name for name in BINDINGS if name in sys.modules)


def of_module(module_name: object) -> Optional[str]:
    """The binding package a module name belongs to (``candle.nn`` -> ``candle``), or None."""
    if not isinstance(module_name, str):  # a class may set __module__ to anything
        return None
    top = module_name.split(".", 1)[0]
    return top if top in BINDINGS else None


def of_path(path: str) -> Optional[str]:
    """The binding package a traceback's file path lies in (``.../candle/__init__.py``), or None."""
    norm = path.replace("\\", "/")
    for name in MODULES:
        if f"/{name}/" in norm or norm.startswith(f"{name}/"):
            return name
    return None


_REGISTRY_CRATE = LazyPattern(r"(?:^|/)(?P<crate>[a-z][\w-]*?)-(?P<major>\d+)\.(?P<minor>\d+)\.\d+[^/]*/")
_RELEASE_REPOS = _CRATE_REPOS + (("onnx-ir", BURN), ("cubecl", CUBECL))
"""Crate-name prefix -> the repository whose release labels the crate's version names (these
crates share their repository's version; wgpu and cudarc are left out: their records carry
stand-in releases)."""


def _registry_crate(location: Optional[str], table: Tuple[Tuple[str, str], ...]) -> Optional[Tuple[str, int, int]]:
    """``(repository, major, minor)`` of the first ``<crate>-x.y.z/`` folder of a path whose
    crate name starts with a prefix of ``table``, or None."""
    if not location:
        return None
    for m in _REGISTRY_CRATE.finditer(location.replace("\\", "/")):
        crate = m.group("crate")
        repo = next((repo for prefix, repo in table if crate.startswith(prefix)), None)
        if repo is not None:
            return repo, int(m.group("major")), int(m.group("minor"))
    return None


def release_of_location(location: Optional[str]) -> Optional[Tuple[str, Tuple[int, int]]]:
    """``(repository, (major, minor))`` of the crate in a cargo registry path
    (``.../cubecl-runtime-0.6.0/src/tune/local.rs:155:26`` -> ``("tracel-ai/cubecl", (0, 6))``),
    or None."""
    found = _registry_crate(location, _RELEASE_REPOS)
    return None if found is None else (found[0], (found[1], found[2]))


def repo_of_location(location: Optional[str]) -> Optional[str]:
    """The repository of a Rust source location in a cargo registry path
    (``.../candle-core-0.4.2/src/shape.rs:12:5`` -> ``huggingface/candle``), or None."""
    found = _registry_crate(location, _CRATE_REPOS)
    return None if found is None else found[0]
