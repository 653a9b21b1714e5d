"""``RecordView``: a light read-only record with the schema's snake_case attributes.

Lookup must not import pydantic, so a match carries this view of the record's dict (read
from its JSONL line by ``LoadedIndex``) instead of a validated ``schema.Record``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Dict, Iterator

from errhint._lazyre import LazyPattern

# camelCase schema field -> default when absent (schema.Record, schemaVersion 2)
FIELDS: Dict[str, Any] = {
    "id": None,
    "repo": None,
    "slug": None,
    "errorCode": None,
    "errorMessage": None,
    "messagePattern": None,
    "errorType": None,
    "errorClass": None,
    "httpStatus": None,
    "severity": "error",
    "filePath": None,
    "lineNumber": None,
    "sourceCode": None,
    "sourceCodeStart": None,
    "sourceCodeEnd": None,
    "githubUrl": None,
    "documentation": None,
    "triggerScenarios": None,
    "commonSituations": None,
    "solutions": (),
    "exampleFix": None,
    "handlingStrategy": None,
    "validationCode": None,
    "typeGuard": None,
    "tryCatchPattern": None,
    "preventionTips": (),
    "tags": (),
    "backgroundTag": None,
    "analyzedSha": None,
    "analyzedAt": None,
    "contentChangedAt": None,
    "schemaVersion": None,
    "crate": None,
    "siteKind": None,
    "versions": None,
    "variant": None,
    "pulledInBy": None,
    "raisedAt": None,
    "siteKindByVersion": None,
    "generic": None,
    "onlyVia": None,
    "function": None,
    "condition": None,
    "curated": None,
}

_SNAKE_PART = LazyPattern(r"(?<!^)([A-Z])")


_UNDERSCORE_BEFORE = LazyPattern(r"_([a-z0-9])")


def to_camel(name: str) -> str:
    """``error_type`` -> ``errorType``: an underscore before a lower-case letter or digit goes,
    and that character is upper-cased (other underscores stay)."""
    return _UNDERSCORE_BEFORE.sub(lambda m: m.group(1).upper(), name)


def to_snake(name: str) -> str:
    return _SNAKE_PART.sub(r"_\1", name).lower()


def _frozen(value: Any) -> Any:
    """Lists become tuples and objects become read-only views, so nothing can be mutated."""
    if value is None or type(value) is str:
        return value  # most fields; spares the ABC check below (per field read of every hint)
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, Mapping):
        return _Nested(value)
    return value


class _Nested:
    """Read-only attribute view of a nested object (``record.variant.fields[0].debug``)."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name: str) -> Any:
        data = object.__getattribute__(self, "_data")
        for key in (to_camel(name), name):
            if key in data:
                return _frozen(data[key])
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("read-only")

    def __getitem__(self, key: str) -> Any:
        return _frozen(self._data[key])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Nested):
            return dict(self._data) == dict(other._data)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(repr(sorted(self._data)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self._data)!r})"

    def to_dict(self) -> Dict[str, Any]:
        import copy  # only a caller asking for a copy imports it

        return copy.deepcopy(dict(self._data))


class RecordView:
    """A read-only view of a camelCase record dict; attributes are the schema's snake_case
    field names, values frozen (lists as tuples, objects as nested views)."""

    __slots__ = ("_record",)

    def __init__(self, record: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_record", record)

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> "RecordView":
        """A view of ``record`` (not copied: the caller does not change it afterwards)."""
        return cls(record)

    def _data(self) -> Mapping[str, Any]:
        return self._record

    def get(self, camel: str, default: Any = None) -> Any:
        """A field by its camelCase name (the JSON name), frozen."""
        data = self._data()
        if camel in data:
            return _frozen(data[camel])
        return FIELDS.get(camel, default) if camel in FIELDS else default

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        camel = to_camel(name)
        if camel in FIELDS:
            return self.get(camel)
        data = self._data()
        if camel in data:  # unknown extra fields stay reachable
            return _frozen(data[camel])
        raise AttributeError(f"record has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("RecordView is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("RecordView is read-only")

    def __dir__(self) -> Iterator[str]:
        return iter(sorted({to_snake(k) for k in FIELDS} | {to_snake(k) for k in self._data()}))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordView):
            return self.id == other.id and self.to_dict() == other.to_dict()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"RecordView(id={self.id!r}, repo={self.repo!r}, slug={self.get('slug')!r})"

    def to_dict(self) -> Dict[str, Any]:
        """The record as camelCase JSON-able dict (a copy)."""
        import copy

        return copy.deepcopy(dict(self._data()))

