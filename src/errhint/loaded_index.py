"""``LoadedIndex``: an index ready for lookups, and the values it answers with.

Rows are decoded only when a key selects them, records read only when their literals all
occur in a text, key-map buckets built only for the tokens a lookup has.
"""


import json
import threading
from collections.abc import Mapping

from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Tuple

from errhint.indexfile import FILE, FORMAT, ID, LENGTH, LITERALS, OFFSET, _buckets, _key_map, _rows_of, _variant_line
from errhint.keys import MIN_KEY_LEN
from errhint import rustfmt
from errhint.literals import literal_runs

MAX_CACHED_MISSES = 4096
"""Variant names a Debug text may carry that the table lacks, remembered as such; past it
a miss is looked up again (one ``str.find``) rather than held forever."""


class VariantInfo(NamedTuple):
    """What the index knows about one error-enum variant (a ``variants`` entry)."""

    repo: str
    enum: str
    name: str
    shape: str
    fields: Tuple[Tuple[str, bool], ...]
    display: Optional[str]
    transparent: bool
    types: Tuple[Optional[str], ...] = ()
    """Rust type of each field as written (``safetensors::SafeTensorError``), None if unknown."""

    def field_enum(self, name: str) -> Optional[str]:
        """The enum a field's value belongs to, from its type (``SafeTensorError``), or None."""
        for (field, _), typ in zip(self.fields, self.types):
            if field == name and typ:
                return typ.split("<", 1)[0].rsplit("::", 1)[-1].strip() or None
        return None



Reader = Callable[[str, int, int], Mapping[str, Any]]


class RowMeta(NamedTuple):
    """What ranking needs about a record, taken from the record itself (cached per row)."""

    id: str
    repo: str
    error_type: str
    site_kind: Optional[str]
    background_tag: Optional[str]
    error_code: Optional[str]
    error_class: Optional[str]
    variant: Optional[str]
    versions: Tuple[str, ...]
    pulled_in_by: Tuple[str, ...]
    pattern: str
    generic: bool = False


def _fixed_values(rec: Mapping[str, Any]) -> Optional[Mapping[str, str]]:
    """The field values a specialised construction's message fixes, found by reading its
    ``errorMessage`` with the variant's Display template: Display ``shape mismatch in {op}, ..``
    and message ``shape mismatch in scatter-add, ..`` give ``{"op": "scatter-add"}``."""
    variant = rec.get("variant")
    if rec.get("siteKind") != "variant_construction" or not isinstance(variant, Mapping):
        return None
    display, message = variant.get("display"), rec.get("errorMessage")
    if not isinstance(display, str) or not isinstance(message, str):
        return None
    values = rustfmt.read_values(display, message)
    if values is None:
        return None
    fixed = {}
    for name, value in values.items():
        if value and "{" not in value:  # a placeholder of the message: not fixed
            fixed["f" + name if name.isdigit() else name] = value
    return fixed or None


class LoadedIndex:
    """An index ready for lookups: rows parsed only when selected, records read only when needed."""

    def __init__(
        self, data: Mapping[str, Any], *, reader: Optional[Reader] = None, exclude_ids: Iterable[str] = (), user: bool = False,
    ) -> None:
        """``data``: a decoded index (``indexfile.read_index`` or ``build_index``); ``reader(file,
        offset, length)`` returns the record line a row points at; rows whose record id is in
        ``exclude_ids`` are never selected; ``user``: the index holds a dataset the user added
        (``ERRHINT_DATA``, ``paths``, entry points), whose records win over shipped ones.
        Raises ValueError for another index format."""
        self.user = user
        if data.get("format") != FORMAT:
            raise ValueError(f"unsupported index format {data.get('format')!r}")
        self._data = data
        self._count = int(data.get("count", 0))
        self._offsets: Optional[bytes] = None
        self._rows_text = str(data.get("rows", ""))
        self._rows: List[Optional[list]] = [None] * self._count
        self.files: List[str] = list(data.get("files", ()))
        self.dataset_version: str = data.get("datasetVersion", "")
        self._repo_labels: Mapping[str, List[str]] = data.get("repoLabels", {})
        self._variants: Dict[str, List[VariantInfo]] = {}
        self._variant_text = str(data.get("variants", ""))
        self._by_variant: Optional[Mapping[str, List[int]]] = None
        self._inline: Optional[List[Mapping[str, Any]]] = data.get("inline")
        self._records: Dict[int, Mapping[str, Any]] = {}
        self._literal_chars: Dict[int, int] = {}
        self._meta: Dict[int, RowMeta] = {}
        self._constructions: Dict[int, Optional[Mapping[str, str]]] = {}
        self._reader = reader
        self._maps: Optional[Tuple[Dict[str, Any], Dict[str, Any], Dict[str, Any]]] = None
        self._pending: Optional[Tuple[Dict[str, Tuple[str, str]], ...]] = None
        """Per key map, the buckets not built yet (None once all are)."""
        self._fills = 0
        self._fill_lock = threading.Lock()
        self._affixes = (False, False)
        self.scan: List[int] = data.get("scan", [])
        excluded = set(exclude_ids)
        self._excluded = self._rows_with_ids(excluded) if excluded else frozenset()

    def _rows_with_ids(self, ids: set) -> frozenset:
        """Rows whose id is in ``ids``, found in the rows text (each row line starts with
        ``["<id>"``) without decoding every row, which costs tens of milliseconds for the
        shipped index."""
        if self._inline is not None or not self._rows_text:
            return frozenset(i for i in range(self._count) if self.row(i)[ID] in ids)
        lines = self._rows_text.split("\n")
        return frozenset(i for i, line in enumerate(lines) if line[2 : line.find('"', 2)] in ids)

    def __len__(self) -> int:
        return self._count

    def _load_offsets(self) -> bytes:
        offsets = bytes.fromhex(str(self._data.get("rowOffsets", "")))
        if len(offsets) != 4 * (self._count + 1):
            raise ValueError(f"index has {len(offsets) // 4 - 1} row offsets, expected {self._count}")
        if int.from_bytes(offsets[-4:], "little") != len(self._rows_text) + 1:
            raise ValueError("index rows do not match their offsets")
        self._offsets = offsets
        return offsets

    def row(self, i: int) -> list:
        """Row ``i``: [id, fileIndex, byteOffset, byteLength, literals] (decoded on first use)."""
        row = self._rows[i]
        if row is None:
            offsets = self._offsets
            if offsets is None:
                offsets = self._load_offsets()
            at = 4 * i
            start = int.from_bytes(offsets[at : at + 4], "little")
            end = int.from_bytes(offsets[at + 4 : at + 8], "little") - 1
            row = self._rows[i] = json.loads(self._rows_text[start:end])
        return row

    def _key_maps(self) -> Tuple[Dict[str, Any], Dict[str, Any], Dict[str, Any]]:
        maps = self._maps
        if maps is None:
            with self._fill_lock:
                if self._maps is None:
                    keys = self._data.get("keys", {})
                    pending = (_buckets(keys.get("exact")), _buckets(keys.get("prefix")), _buckets(keys.get("suffix")))
                    self._affixes = (bool(pending[1]), bool(pending[2]))
                    self._pending = pending if any(pending) else None
                    self._maps = ({}, {}, {})
                maps = self._maps
        return maps

    FILL_ALL_AFTER = 8
    """Lookups that build only their own buckets; the next builds every bucket left, so a
    process that looks up often pays no per-token check."""

    def _fill(self, tokens: Iterable[str]) -> None:
        """Build the key-map buckets ``tokens`` need (and all of them after FILL_ALL_AFTER calls)."""
        with self._fill_lock:  # a lookup must not read a bucket another thread is half-way through
            pending = self._pending
            if pending is None:
                return
            maps = self._maps
            self._fills += 1
            everything = self._fills > self.FILL_ALL_AFTER
            for n, (waiting, target) in enumerate(zip(pending, maps)):  # type: ignore[arg-type]
                if not waiting:
                    continue
                if everything:
                    wanted = list(waiting)
                else:
                    wanted = [tok[-MIN_KEY_LEN] if n == 2 else tok[0] for tok in tokens]
                for c in wanted:
                    columns = waiting.pop(c, None)
                    if columns is not None:
                        target.update(_key_map(*columns))
            if not any(pending):
                self._pending = None

    def prefiltered(self, text: str, tokens: Iterable[str], loose: bool = False) -> List[int]:
        """Rows whose key occurs in ``text`` and whose every required literal is in it
        (``loose``: without the literal's edge whitespace, which a trimmed text lost)."""
        slots: set = set()
        exact, prefix, suffix = self._key_maps()
        if self._pending is not None:
            self._fill(tokens)
        prefix_keys, suffix_keys = self._affixes
        for tok in tokens:
            hit = exact.get(tok)
            if hit:
                slots.update(_rows_of(exact, tok, hit))
            if prefix_keys:
                key = tok[:MIN_KEY_LEN]
                hit = prefix.get(key)
                if hit:
                    slots.update(_rows_of(prefix, key, hit))
            if suffix_keys:
                key = tok[-MIN_KEY_LEN:]
                hit = suffix.get(key)
                if hit:
                    slots.update(_rows_of(suffix, key, hit))
        slots.update(self.scan)
        if self._excluded:
            slots -= self._excluded
        out = []
        rows, row = self._rows, self.row
        for i in slots:
            found = rows[i]
            for lit in (found if found is not None else row(i))[LITERALS]:
                if (lit.strip() if loose else lit) not in text:
                    break
            else:
                out.append(i)
        out.sort()
        return out

    def variant_rows(self, name: str) -> List[int]:
        """The rows of records of error-enum variants called ``name`` (excluded rows left out)."""
        if self._by_variant is None:
            self._by_variant = json.loads(self._variant_text.partition("\n")[0] or "{}")
        rows = self._by_variant.get(name, [])
        return [i for i in rows if i not in self._excluded] if self._excluded else list(rows)

    def variants(self, name: str) -> List[VariantInfo]:
        """Templates of every variant called ``name`` (its line found and decoded on first use)."""
        found = self._variants.get(name)
        if found is None:  # decoded per name, not the whole table
            found = []
            line = _variant_line(self._variant_text, name) if "\n" not in name and "\t" not in name else None
            for repo, enum, vname, shape, fields, display, transparent in json.loads(line) if line else ():
                found.append(VariantInfo(
                    repo, enum, vname, shape, tuple((f[0], bool(f[1])) for f in fields), display, bool(transparent),
                    tuple(f[2] if len(f) > 2 else None for f in fields),
                ))
            if line or len(self._variants) < MAX_CACHED_MISSES:  # names from arbitrary text: bounded
                self._variants[name] = found
        return found

    def labels(self, repo: str) -> List[str]:
        """Every release label this index knows for ``repo``."""
        return list(self._repo_labels.get(repo, ()))

    def meta(self, i: int) -> RowMeta:
        """What ranking needs about row ``i``'s record (from the record, cached)."""
        found = self._meta.get(i)
        if found is None:
            rec = self.record(i)
            variant = rec.get("variant")
            found = RowMeta(
                id=str(rec.get("id", "")),
                repo=str(rec.get("repo", "")),
                error_type=str(rec.get("errorType") or "exception"),
                site_kind=rec.get("siteKind"),
                background_tag=rec.get("backgroundTag"),
                error_code=rec.get("errorCode"),
                error_class=rec.get("errorClass"),
                variant=str(variant["name"]) if isinstance(variant, Mapping) and variant.get("name") else None,
                versions=tuple(str(v) for v in rec.get("versions") or ()),
                pulled_in_by=tuple(str(p) for p in rec.get("pulledInBy") or ()),
                pattern=str(rec.get("messagePattern") or ""),
                generic=rec.get("generic") is True,
            )
            self._meta[i] = found
        return found

    def construction(self, i: int) -> Optional[Mapping[str, str]]:
        """For a specialised construction (``siteKind`` ``variant_construction``): the values
        its message fixes where the variant's Display template has a placeholder (``{"op":
        "matmul"}``); None for other records. Cached; read only when no pattern took a Debug
        value (it compiles a pattern per record)."""
        if i not in self._constructions:
            self._constructions[i] = _fixed_values(self.record(i))
        return self._constructions[i]

    def pattern(self, i: int) -> str:
        """Row ``i``'s record's ``messagePattern``."""
        return self.meta(i).pattern

    def literal_chars(self, i: int) -> int:
        """How much literal text the row's pattern requires (all runs, untruncated; cached:
        a Debug-form variant can select dozens of rows)."""
        found = self._literal_chars.get(i)
        if found is None:
            found = self._literal_chars[i] = sum(len(lit) for lit in literal_runs(self.pattern(i)).runs)
        return found

    def record(self, i: int) -> Mapping[str, Any]:
        """The full camelCase record of row ``i`` (one byte-range read for shipped data, cached)."""
        found = self._records.get(i)
        if found is not None:
            return found
        row = self.row(i)
        if row[FILE] < 0:
            if self._inline is None:
                raise LookupError("index has no inline records")
            return self._inline[row[OFFSET]]
        if self._reader is None:
            raise LookupError("index has no reader for its files")
        wrapper = self._reader(self.files[row[FILE]], row[OFFSET], row[LENGTH])
        record = wrapper.get("record", wrapper) if isinstance(wrapper, Mapping) else wrapper
        self._records[i] = record
        return record
