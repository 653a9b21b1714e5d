"""The dataset lookups run on: loaded once per process on first use (thread-safe).

It is the shipped index (no record parsed, no pydantic) plus any user dataset (validated by
``data.py`` and indexed in memory, replacing shipped records with the same id).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from typing import Any, Dict, FrozenSet, List, Optional, Sequence

from errhint import config, rank
from errhint.loaded_index import LoadedIndex, VariantInfo

_lock = threading.Lock()
_dataset: Optional["Dataset"] = None

class Dataset:
    """The loaded indexes plus lazily loaded families and installed-binding labels."""

    def __init__(
        self,
        indexes: Sequence[LoadedIndex],
        families: Optional[Mapping[str, Any]] = None,
    ) -> None:
        self.indexes = list(indexes)
        self._families = families
        self._family: Dict[str, Optional[Mapping[str, Any]]] = {}
        self._labels: Optional[Dict[str, str]] = None
        self._lock = threading.Lock()

    def templates(self, name: str) -> List[VariantInfo]:
        """The Display templates of every variant called ``name``, over all indexes."""
        out: List[VariantInfo] = []
        for ix in self.indexes:
            out.extend(ix.variants(name))
        return out

    def family(self, tag: str) -> Optional[Mapping[str, Any]]:
        """The family of ``tag``: from the catalogue when one was given or loaded, else the
        shipped catalogue's entry alone (a hint needs one; cached)."""
        if self._families is not None:
            found = self._families.get(tag)
            return found if isinstance(found, Mapping) else None
        if tag not in self._family:
            try:
                from errhint import data

                self._family[tag] = data.shipped_family(tag)
            except Exception:
                self._family[tag] = None
        return self._family[tag]

    def families(self) -> Mapping[str, Any]:
        """The whole family catalogue (the given one, else the shipped one; {} when it cannot be read)."""
        if self._families is None:
            with self._lock:
                if self._families is None:
                    try:
                        from errhint import data

                        self._families = data.shipped_families()
                    except Exception:
                        self._families = {}
        return self._families

    def labels(self) -> Dict[str, str]:
        """Repository -> release label of the installed binding that brings it (computed once)."""
        if self._labels is None:
            from errhint import distinfo

            def labels_of(repo: str) -> List[str]:
                found = set()
                for ix in self.indexes:
                    found.update(ix.labels(repo))
                return sorted(found)

            self._labels = rank.installed_labels(labels_of, distinfo.version)
        return self._labels


def load(paths: Sequence[str] = ()) -> Dataset:
    """Build the dataset from the shipped index and extra sources (``data.py``)."""
    from errhint import data, userdata

    indexes: List[LoadedIndex] = []
    replaced: FrozenSet[str] = frozenset()
    # user datasets come validated and cached from userdata; a bad one is warned and skipped
    found = userdata.user_index(paths)
    if found is not None:
        indexes.append(found[0])
        replaced = found[1]
    shipped = data.shipped_index()
    if shipped is not None:
        indexes.append(LoadedIndex(shipped, reader=data.read_shipped_line, exclude_ids=replaced))
    return Dataset(indexes)


def dataset() -> Dataset:
    """The loaded dataset (loaded on first use).

    Raises ``errhint.DatasetError`` when the data cannot be loaded at all; a bad line or
    path of a user dataset is warned and skipped by ``errhint.userdata`` instead. A failed
    load is not remembered: the next call loads again.
    """
    global _dataset
    ds = _dataset
    if ds is None:
        with _lock:
            if _dataset is None:
                _dataset = _load_or_raise(config.current().paths)
            ds = _dataset
    return ds


def _load_or_raise(paths: Sequence[str]) -> Dataset:
    from errhint.data import DatasetError

    try:
        return load(paths)
    except DatasetError:
        raise
    except Exception as exc:
        raise DatasetError(f"cannot load the dataset: {type(exc).__name__}: {exc}") from exc


def use(ds: Optional[Dataset]) -> None:
    """Install a prepared dataset (tests, benchmarks); None forgets it like ``reset``."""
    global _dataset
    with _lock:
        _dataset = ds


def reset() -> None:
    """Forget the loaded dataset; the next lookup loads it again."""
    use(None)
