"""The index file format: its writer, its reader and its specification, in one place.

Why it exists: compiling every pattern of a few thousand records costs hundreds of
milliseconds, so lookup must decide which few records *could* match a text before any regex
is compiled.  The index stores, per record, the literal text every match must contain and one
rare word ("key") from that text; a lookup collects the records whose key occurs in the text,
checks their literals with ``in``, and only then compiles (lazily, cached, with a timeout)
the surviving patterns.  Nothing here imports ``regex`` until a pattern is actually needed.

On-disk format 6 (see docs/design.md): ``index.json`` holds the tables, ``index.rows`` the
rows, ``index.variants`` the error-enum variant templates::

    index.json  {"format": 6, "datasetVersion": str, "files": [str], "count": int,
                 "repoLabels": {repo: [label, ...]},         # every release label per repository
                 "keys": {"exact" | "prefix" | "suffix":      # per first character of the keys:
                          {"words": {"w": "w1|w2|.."}, "rows": {"w": "0,7;3;.."}}},
                 "scan": [row, ...],                          # rows without a key
                 "rowOffsets": "<hex>",                       # uint32 LE: where each row starts, then the end
                 "inline": [record, ...]}                     # only when built without locations
    index.rows      one JSON row per line: [id, fileIndex, byteOffset, byteLength, [literal, ...]]
    index.variants  line 1: {variantName: [row, ...]} as JSON (``byVariant``); then a line per
                    name: ``name<TAB>[[repo, enum, name, shape, [[field, debug, type?], ...],
                    display, transparent], ...]``

Why this shape: the first lookup of a process pays for decoding the index, and creating
thousands of small objects (one list per key, one string per row) cost 5-8 ms cold in format
1. Here ``index.json`` is a handful of long strings without escapes, which decode at memory
speed; a key map's bucket (its keys of one first character) is built from two strings by
``str.split`` when a lookup has a token starting with that character; a row is
found through ``rowOffsets`` and decoded only when its key selects it; a variant name's line
is found with one ``str.find`` and decoded only when a Debug form carries that name. A row holds only what the prefilter needs: where the record
is and the literal text it requires. Everything else (pattern, repository, kind,
versions...) is read from the record itself, which is loaded anyway for a row whose literals
all occur in a text. For records kept in memory ``fileIndex`` is -1 and ``byteOffset`` is
the position in ``inline``.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from collections.abc import Mapping

from errhint.keys import choose_keys, key_bucket
from errhint.literals import literal_runs

FORMAT = 6
INDEX_FILE = "index.json"
ROWS_FILE = "index.rows"
VARIANTS_FILE = "index.variants"
"""The three files an index is shipped as (``index_files``, ``read_index``)."""

# Row positions (rows are lists for compactness).
ID, FILE, OFFSET, LENGTH, LITERALS = 0, 1, 2, 3, 4

MAX_LITERALS = 3
MAX_LITERAL_LEN = 40
"""A row keeps its 3 longest literal runs, each cut to 40 characters: a prefix of required
text is still required, so the prefilter stays exact while rows stay small."""


def build_index(
    records: Sequence[Mapping[str, Any]],
    *,
    files: Sequence[str] = (),
    locations: Optional[Sequence[Tuple[int, int, int]]] = None,
    dataset_version: str = "",
    variants: Sequence[Mapping[str, Any]] = (),
) -> Dict[str, Any]:
    """Compute the JSON-able index (format 1) of camelCase ``records``.

    ``locations[i] = (fileIndex, byteOffset, byteLength)`` of record i's JSONL line in
    ``files[fileIndex]``; without locations the records are embedded under ``inline``.
    ``variants`` adds error-enum variants that have no record of their own (``{"repo": ..,
    "variant": {enum, name, shape, fields, display, transparent}}``): transparent wrappers
    such as candle's ``SafeTensor``/``Io``, whose template is needed to rebuild a nested
    Debug form's message even though no pattern is worth shipping for them.
    Deterministic: the same input gives byte-identical JSON.
    """
    if locations is not None and len(locations) != len(records):
        raise ValueError("locations must have one entry per record")
    run_lists = [literal_runs(str(r.get("messagePattern") or "")) for r in records]
    keys = choose_keys(run_lists)
    variant_table: List[list] = []
    variant_ids: Dict[str, int] = {}

    def add_variant(repo: str, variant: Mapping[str, Any]) -> None:
        entry = _variant_entry(repo, variant)
        sig = repr(entry)
        if sig not in variant_ids:
            variant_ids[sig] = len(variant_table)
            variant_table.append(entry)

    key_maps: Dict[str, Dict[str, List[int]]] = {"exact": {}, "prefix": {}, "suffix": {}}
    by_variant: Dict[str, List[int]] = {}
    scan: List[int] = []
    repo_labels: Dict[str, set] = {}
    rows: List[str] = []
    for i, rec in enumerate(records):
        variant = rec.get("variant") or None
        if isinstance(variant, Mapping) and variant.get("name"):
            add_variant(str(rec.get("repo", "")), variant)
            by_variant.setdefault(str(variant["name"]), []).append(i)
        if keys[i]:
            kind, bucket = key_bucket(keys[i])
            key_maps[kind].setdefault(bucket, []).append(i)
        else:
            scan.append(i)
        if rec.get("versions"):
            repo_labels.setdefault(str(rec.get("repo", "")), set()).update(str(v) for v in rec["versions"])
        if locations is None:
            file_index, offset, length = -1, i, 0
        else:
            file_index, offset, length = (int(x) for x in locations[i])
        literals = sorted(set(run_lists[i].runs), key=lambda lit: (-len(lit), lit))
        row = [str(rec.get("id", "")), file_index, offset, length, [lit[:MAX_LITERAL_LEN] for lit in literals[:MAX_LITERALS]]]
        rows.append(_dumps(row))
    for extra in variants:
        if isinstance(extra.get("variant"), Mapping) and extra["variant"].get("name"):
            add_variant(str(extra.get("repo", "")), extra["variant"])
    # Escaped to ASCII (``_dumps``): one non-ASCII character (a literal "\u2265") makes the
    # whole text decode as wide characters, ~0.8 ms more on the first lookup of a process.
    index: Dict[str, Any] = {
        "format": FORMAT,
        "datasetVersion": dataset_version,
        "files": list(files),
        "count": len(rows),
        "repoLabels": {repo: sorted(labels) for repo, labels in sorted(repo_labels.items())},
        "keys": {kind: _key_columns(key_map) for kind, key_map in key_maps.items()},
        "scan": scan,
        "rowOffsets": _row_offsets(rows),
        "rows": "\n".join(rows),
        "variants": _variant_text(variant_table, _dumps(by_variant)),
    }
    if locations is None:
        index["inline"] = [dict(r) for r in records]
    return index


def _dumps(value: Any) -> str:
    """Compact ASCII JSON."""
    return json.dumps(value, separators=(",", ":"))


def _row_offsets(rows: Sequence[str]) -> str:
    """Where each row starts in the rows text (rows joined by newlines), plus the end, as
    hex of little-endian uint32: row ``i`` is found without splitting the ~4,600 rows
    (about 0.5 ms on the first lookup of a process)."""
    out, pos = [], 0
    for row in rows:
        out.append(pos.to_bytes(4, "little"))
        pos += len(row) + 1
    out.append(pos.to_bytes(4, "little"))
    return b"".join(out).hex()


def _variant_text(table: Sequence[list], by_variant: str) -> str:
    """The variant table as lines: ``byVariant`` as JSON, then per name ``name<TAB>`` and the
    JSON list of its entries (in table order). A Debug form finds its name's line with one
    ``str.find`` (JSON has no raw tab or line break, so ``\\n<name>\\t`` only starts a line)
    and decodes that line alone; splitting the ~730 lines cost ~0.4 ms at a first hint.
    A name with a tab or line break (no Rust identifier has one) is left out."""
    by_name: Dict[str, List[list]] = {}
    for entry in table:
        if "\n" not in entry[2] and "\t" not in entry[2]:
            by_name.setdefault(entry[2], []).append(entry)
    lines = [by_variant]
    lines.extend(f"{name}\t{_dumps(entries)}" for name, entries in by_name.items())
    return "\n".join(lines)


def _variant_line(text: str, name: str) -> Optional[str]:
    """The JSON line of ``name`` in ``_variant_text`` output, or None."""
    key = f"\n{name}\t"
    at = text.find(key)
    if at < 0:
        return None
    start = at + len(key)
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)]


def _key_columns(key_map: Mapping[str, List[int]]) -> Dict[str, Dict[str, str]]:
    """A key map as two strings per first character of its keys (keys are word characters
    and spaces, so ``|`` and ``;`` never occur in them): ``{"words": {"w": "w1|w2"}, "rows":
    {"w": "0,7;3"}}``. A lookup builds only the buckets of its own tokens' first characters:
    the whole map, ~4,000 keys, costs about 0.7 ms to build on the first lookup of a process."""
    words: Dict[str, List[str]] = {}
    rows: Dict[str, List[str]] = {}
    for key in sorted(key_map):
        words.setdefault(key[0], []).append(key)
        rows.setdefault(key[0], []).append(",".join(str(i) for i in key_map[key]))
    return {"words": {c: "|".join(w) for c, w in words.items()}, "rows": {c: ";".join(r) for c, r in rows.items()}}


def _buckets(columns: Any) -> Dict[str, Tuple[str, str]]:
    """First character -> (words, rows) of ``_key_columns`` output, not yet split."""
    if not isinstance(columns, Mapping) or not columns.get("words"):
        return {}
    words, rows = columns.get("words"), columns.get("rows")
    if not isinstance(words, Mapping) or not isinstance(rows, Mapping) or set(words) != set(rows):
        raise ValueError("index key columns differ")
    return {c: (str(words[c]), str(rows[c])) for c in words}


def _key_map(words: str, rows: str) -> Dict[str, Any]:
    """One bucket of a key map: word -> its rows as ``"0,7"`` (a tuple once hit)."""
    split_words, split_rows = words.split("|"), rows.split(";")
    if len(split_words) != len(split_rows):
        raise ValueError("index key columns differ in length")
    return dict(zip(split_words, split_rows))


def _rows_of(key_map: Dict[str, Any], key: str, rows: Any) -> Tuple[int, ...]:
    """A key's rows: ``"0,7"`` is parsed on the key's first hit and kept parsed (the same
    value whichever thread writes it first)."""
    if rows.__class__ is tuple:
        return rows
    parsed = key_map[key] = tuple(int(r) for r in rows.split(","))
    return parsed


def index_files(index: Mapping[str, Any]) -> Dict[str, bytes]:
    """The bytes of the files an index is shipped as: ``index.json`` (the tables),
    ``index.rows`` (one row per line) and ``index.variants`` (``_variant_text``).
    Deterministic for a deterministic index."""
    tables = {k: v for k, v in index.items() if k not in ("rows", "variants")}
    rows = str(index.get("rows", ""))
    variants = str(index.get("variants", ""))
    return {
        INDEX_FILE: (_dumps(tables) + "\n").encode("ascii"),
        ROWS_FILE: (rows + "\n").encode("ascii") if rows else b"",
        VARIANTS_FILE: (variants + "\n").encode("ascii") if variants else b"",
    }


def read_index(read: Callable[[str], bytes]) -> Dict[str, Any]:
    """The index whose files ``read(name)`` returns (the inverse of ``index_files``)."""
    index = json.loads(read(INDEX_FILE))
    if isinstance(index, dict):
        for key, name in (("rows", ROWS_FILE), ("variants", VARIANTS_FILE)):
            if key not in index:
                index[key] = read(name).decode("utf-8").rstrip("\n")
    return index


def _variant_entry(repo: str, variant: Mapping[str, Any]) -> list:
    fields = [
        [str(f.get("name", "")), bool(f.get("debug", False))] + ([str(f["type"])] if f.get("type") else [])
        for f in variant.get("fields") or ()
    ]
    return [
        repo,
        str(variant.get("enum", "")),
        str(variant["name"]),
        str(variant.get("shape", "unit")),
        fields,
        variant.get("display"),
        bool(variant.get("transparent", False)),
    ]
