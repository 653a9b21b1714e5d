"""Release labels in version order: the one sort key the runtime, the CLI and the builder share.

A label is a release (``v0.18.0``, ``0.4.2``, ``0.14.0-pre.1``, ``0.9.0rc1``), the default
branch (``main``, newer than every release) or other text (after both, by its text).
"""

from __future__ import annotations

from typing import Tuple, Union

from errhint._lazyre import LazyPattern

BRANCH = "main"
"""The label of a source taken from the default branch rather than a release."""

_RELEASE = LazyPattern(r"v?(\d+(?:\.\d+)*)[-.+]?(.*)")

Key = Tuple[Union[int, Tuple[int, ...], str], ...]


def version_key(label: str) -> Key:
    """Sort key: ``v0.13.0`` < ``0.13.1`` < ``0.14.0-pre.1`` < ``0.14.0`` < ``0.14.0.post1`` <
    ``main`` < other text.  Numbers compare as numbers; a pre-release sorts before its release."""
    if label == BRANCH:
        return (1, (), 0, "")
    found = _RELEASE.fullmatch(label.strip())
    if found is None:
        return (2, (), 0, label)
    numbers = tuple(int(p) for p in found.group(1).split("."))
    rest = found.group(2)
    after = not rest or rest.startswith("post")
    return (0, numbers, 2 if rest else 1, rest) if after else (0, numbers, 0, rest)


def is_release(label: str) -> bool:
    """Whether ``label`` is a release label (not the branch, not other text)."""
    return version_key(label)[0] == 0


def minor_of(label: str) -> Tuple[int, ...]:
    """``(major, minor)`` of a release label (``v0.18.0`` -> ``(0, 18)``); ``()`` otherwise."""
    key = version_key(label)
    return tuple(key[1][:2]) if key[0] == 0 and isinstance(key[1], tuple) else ()
