"""The index file format (format 6): its specification, its writer and its reader.

What the index is for: compiling the patterns of thousands of records is far too slow for
an exception hook, so a lookup must decide which few records *could* match a text before it
compiles any pattern. The index stores, per record, the literal text every match of its
pattern must contain and one rare word of that text (its *key*); a lookup takes the records
whose key occurs among the text's tokens, checks their literals with ``in``, and only then
compiles and runs the surviving patterns (``regexrun``).

Specification. An index is three files, written by ``index_files`` and read back by
``read_index``; all three are ASCII (non-ASCII characters are JSON-escaped)::

    index.json      one JSON object:
        format          6
        datasetVersion  str
        files           [str]              the JSONL files rows point into
        count           int                number of rows
        repoLabels      {repo: [label]}    every release label seen per repository, sorted
        keys            {"exact" | "prefix" | "suffix": {"words": {c: "w1|w2|.."},
                                                         "rows":  {c: "0,7;3;.."}}}
                        per key map and first character ``c`` of its keys: the keys sorted,
                        joined by ``|``, and the rows of each key (``,``-joined) in the same
                        order, joined by ``;``. ``exact`` keys are words or word pairs
                        (``"w1 w2"``); ``prefix``/``suffix`` keys are the first/last
                        ``MIN_KEY_LEN`` characters of a word at a run's edge (``keys.py``).
        scan            [row]              rows without a key: always checked
        rowOffsets      hex                little-endian uint32 per row: where the row starts
                                           in index.rows, then the end (its length + 1)
        inline          [record]           only for an index built without locations
    index.rows      one JSON array per line, row i on line i:
                    [id, fileIndex, byteOffset, byteLength, [literal, ...]]
                    the record's JSONL line is ``byteLength`` bytes at ``byteOffset`` of
                    ``files[fileIndex]`` (for inline records fileIndex is -1 and byteOffset
                    the position in ``inline``); the literals are the ``MAX_LITERALS``
                    longest required runs, each cut to ``MAX_LITERAL_LEN`` characters.
    index.variants  line 1: {variantName: [row, ...]} as JSON (``byVariant``); then one line
                    per variant name: ``name<TAB>[[repo, enum, name, shape,
                    [[field, debug, type?], ...], display, transparent], ...]``

In memory (``build_index``, ``read_index``) an index is the ``index.json`` object plus
``rows`` and ``variants``: the text of the other two files, without their final newline.

Why this shape: a lookup decodes only what it needs. ``index.json`` is a handful of long
strings without escapes; a key-map bucket is split from its two strings only when a token
of the text starts with its character; a row is found through ``rowOffsets`` and decoded
only when its key selects it; a variant name's line is found with one ``str.find`` (JSON has
no raw tab or line break, so ``\\n<name>\\t`` only starts a line) and decoded only when a Debug
form carries that name. A row holds only what the prefilter needs; everything else
(pattern, repository, kind, versions...) is read from the record itself once its row
survives. The format is frozen: a change of any of the above is a new ``FORMAT`` number,
and ``LoadedIndex`` rejects every other.
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
    """The index (``FORMAT``) of camelCase ``records``, as a JSON-able dict.

    ``locations[i] = (fileIndex, byteOffset, byteLength)`` of record i's JSONL line in
    ``files[fileIndex]``; without locations the records are embedded under ``inline``.
    ``variants`` adds error-enum variants that have no record of their own (``{"repo": ..,
    "variant": {enum, name, shape, fields, display, transparent}}``): transparent wrappers
    such as candle's ``SafeTensor``/``Io``, whose template is needed to rebuild a nested
    Debug form's message even though no pattern is worth shipping for them.
    Deterministic: the same input gives byte-identical JSON. Raises ValueError when
    ``locations`` is given but not one per record.
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
    # Escaped to ASCII (``_dumps``): one non-ASCII character would make the whole text a
    # wide-character string, slower to decode and to search.
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
    hex of little-endian uint32: row ``i`` is found without splitting the rows text."""
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
    and decodes that line alone. A name with a tab or line break (no Rust identifier has one) is left out."""
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
    {"w": "0,7;3"}}``. A lookup builds only the buckets of its own tokens' first characters."""
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
