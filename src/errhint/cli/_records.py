"""Every record as a plain camelCase dict, for the commands that list or search the dataset.

``show``, ``search`` and ``stats`` look at whole records rather than matching a message, so
they read the JSONL lines directly: the shipped files (already validated by the builder, so
no pydantic) and then the extra sources (entry points, ``ERRHINT_DATA``, ``--data``), which
``errhint.data.extra_records`` validates. A later record with the same id replaces an earlier
one, as in the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from errhint.cli._common import UsageError


@dataclass
class Dataset:
    """All records in load order, plus the family catalogue and the shipped dataset version."""

    records: List[Dict[str, Any]]
    families: Dict[str, Any] = field(default_factory=dict)
    dataset_version: Optional[str] = None
    _by_id: Dict[str, Dict[str, Any]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {r["id"]: r for r in self.records if isinstance(r.get("id"), str)}

    def get(self, key: str) -> Dict[str, Any]:
        """A record by id, unique id prefix (4+ characters) or unique slug; UsageError if ambiguous."""
        key = key.strip().lower()
        if key in self._by_id:
            return self._by_id[key]
        hits = [r for rid, r in self._by_id.items() if len(key) >= 4 and rid.startswith(key)]
        if not hits:
            hits = [r for r in self.records if str(r.get("slug", "")).lower() == key]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            ids = ", ".join(sorted(r["id"] for r in hits)[:8])
            raise UsageError(f"{key!r} is ambiguous: {len(hits)} records ({ids}{', ...' if len(hits) > 8 else ''})")
        raise KeyError(key)

    def family(self, record: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        tag = record.get("backgroundTag")
        fam = self.families.get(tag) if isinstance(tag, str) else None
        return dict(fam) if isinstance(fam, dict) else None


def load() -> Dataset:
    """Shipped records then extra ones (``config.current().paths`` included), merged by id."""
    from errhint import config, data

    merged: Dict[str, Dict[str, Any]] = {}
    version: Optional[str] = None
    families: Dict[str, Any] = {}
    try:
        sources = data.shipped_sources()
        manifest = data.shipped_manifest()
        version = manifest.get("datasetVersion")
        families = data.shipped_families()
    except (ImportError, FileNotFoundError, OSError):
        sources = []  # no shipped data (a source checkout before the first build)
    try:
        for name, raw in sources:
            for _, obj in data.iter_lines(name, raw):
                merged[obj["id"]] = obj
        extra = data.extra_records(config.current().paths)
    except data.DatasetError as exc:
        raise UsageError(f"cannot read the dataset: {exc}") from None
    for obj in extra:
        merged[obj["id"]] = obj
    return Dataset(list(merged.values()), families=families, dataset_version=version)
