"""Installed distributions read straight from ``*.dist-info`` folders on ``sys.path``.

Kept instead of ``importlib.metadata``, whose import alone costs more than errhint's whole
first-hint budget (see docs/performance.md), while a lookup needs only two facts: the
versions of the bindings (for ranking) and whether any package declares an
``errhint.datasets`` entry point. ``importlib.metadata`` is imported only when an entry
point actually has to be loaded.
"""

from __future__ import annotations

import os
import sys
import threading

from typing import Dict, List, Optional, Tuple

from errhint._lazyre import LazyPattern

_NAME = LazyPattern(r"^(?P<name>[A-Za-z0-9_.]+?)-(?P<version>[^-]+?)\.(?:dist|egg)-info$")
_lock = threading.Lock()
_cache: Optional[Tuple[Tuple[str, ...], Dict[str, str], List[str]]] = None


def canonical(name: str) -> str:
    """PEP 503 normalised project name, so ``candle_nn`` and ``candle-nn`` agree (runs of
    ``-_.`` become one ``-``; without a regex: this runs for every installed distribution)."""
    name = name.lower().replace("_", "-").replace(".", "-")
    while "--" in name:
        name = name.replace("--", "-")
    return name


def _sections(text: str) -> Dict[str, List[str]]:
    out: Dict[str, List[str]] = {}
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            out.setdefault(section, [])
        elif section is not None:
            out[section].append(line)
    return out


def _scan() -> Tuple[Dict[str, str], List[str]]:
    """Versions by project, and the text of every ``entry_points.txt`` (parsed per group when
    asked: most distributions declare none of errhint's groups)."""
    versions: Dict[str, str] = {}
    entry_points: List[str] = []
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except (OSError, TypeError, ValueError):
            continue
        for name in names:
            if not name.endswith("-info"):  # most entries are packages and modules
                continue
            m = _NAME.match(name)
            if not m:
                continue
            project = canonical(m.group("name"))
            if project in versions:  # first on sys.path wins, as for imports
                continue
            versions[project] = m.group("version")
            path = os.path.join(entry or ".", name, "entry_points.txt")
            try:
                with open(path, encoding="utf-8") as fh:
                    entry_points.append(fh.read())
            except (OSError, UnicodeDecodeError):
                continue
    return versions, entry_points


def _state() -> Tuple[Dict[str, str], List[str]]:
    global _cache
    key = tuple(sys.path)
    cache = _cache
    if cache is None or cache[0] != key:
        with _lock:
            if _cache is None or _cache[0] != key:
                versions, eps = _scan()
                _cache = (key, versions, eps)
            cache = _cache
    return cache[1], cache[2]


def version(project: str) -> Optional[str]:
    """The installed version of ``project``, or None."""
    return _state()[0].get(canonical(project))


def entry_point_lines(group: str) -> List[str]:
    """Raw ``name = value`` lines declared for ``group`` by installed distributions."""
    out: List[str] = []
    for text in _state()[1]:
        if group in text:
            out.extend(_sections(text).get(group, ()))
    return out


def clear() -> None:
    """Forget the scan (tests install packages and look again)."""
    global _cache
    with _lock:
        _cache = None
