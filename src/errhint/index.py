"""The compact runtime index: building it from records, loading it, the literal prefilter.

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

import re
import _thread  # its locks without importing threading (~0.7 ms)
import time
from collections import Counter
from collections.abc import Mapping

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~2.5 ms
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from errhint._fieldtuple import FieldTuple
from errhint._jsonread import loads
from errhint._lazyre import LazyPattern

FORMAT = 6
INDEX_FILE = "index.json"
ROWS_FILE = "index.rows"
VARIANTS_FILE = "index.variants"
"""The three files an index is shipped as (``index_files``, ``read_index``)."""

# Row positions (rows are lists for compactness).
ID, FILE, OFFSET, LENGTH, LITERALS = 0, 1, 2, 3, 4

MAX_LITERALS = 3
MAX_CACHED_MISSES = 4096
"""Variant names a Debug text may carry that the table lacks, remembered as such; past it
a miss is looked up again (one ``str.find``) rather than held forever."""
MAX_LITERAL_LEN = 40
"""A row keeps its 3 longest literal runs, each cut to 40 characters: a prefix of required
text is still required, so the prefilter stays exact while rows stay small."""

MIN_KEY_LEN = 3
_WORD = LazyPattern(r"[A-Za-z0-9_]+")
_TOKENS = re.compile(r"[A-Za-z0-9_]{%d,}" % MIN_KEY_LEN)

REGEX_TIMEOUT = 0.05
"""Seconds one ``search`` may run; a pattern that exceeds it simply does not match."""
LOOKUP_REGEX_BUDGET = 0.05
"""Seconds of regex time all searches of one lookup share (see ``RegexBudget``)."""
REGEX_FLOOR = 0.005
"""Timeout of a search once the budget is spent: ordinary searches take microseconds."""

_ESCAPED_LITERALS = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_ESCAPE_CLASSES = set("dDwWsSbBAZzGpPXNuUxg0123456789")
_QUANT_OPTIONAL = {"?", "*"}


# --------------------------------------------------------------------------- literals


class Runs(FieldTuple):
    """Required literal runs of a pattern, in pattern order, with what bounds each run."""

    __slots__ = ()

    def __new__(
        cls,
        runs: List[str],
        left: List[bool],
        right: List[bool],
    ) -> "Runs":
        return tuple.__new__(cls, (runs, left, right))

    runs: List[str]
    left: List[bool]
    """Run i cannot be glued to a word character before it: it starts the pattern or follows
    ``^``, ``\\A``, ``\\b`` or a ``(?<![A-Za-z0-9_])``-style assertion."""
    right: List[bool]
    """Run i cannot be glued to a word character after it: it ends the pattern or precedes
    ``$``, ``\\Z``, ``\\b`` or a ``(?![A-Za-z0-9_])``-style assertion."""


_NO_RUNS = Runs([], [], [])
_WORD_CLASS = r"(?:\\w|\[A-Za-z0-9_\]|\[a-zA-Z0-9_\]|\[\\w\])"
_NOT_WORD_BEFORE = LazyPattern(r"\(\?<!" + _WORD_CLASS + r"\)")
_NOT_WORD_AFTER = LazyPattern(r"\(\?!" + _WORD_CLASS + r"\)")


def required_literals(pattern: str) -> List[str]:
    """Literal runs that every match of ``pattern`` must contain, longest first."""
    return sorted(set(literal_runs(pattern).runs), key=lambda r: (-len(r), r))


def literal_runs(pattern: str) -> Runs:
    """The literal runs every match of ``pattern`` must contain, in order.

    Conservative by construction: anything not understood ends the current run, groups are
    never descended into, a top-level alternation or a case-insensitive/verbose flag yields
    no literals at all.  Missing a literal only costs speed; inventing one would lose matches.
    """
    runs: List[str] = []
    left: List[bool] = []
    right: List[bool] = []
    cur: List[str] = []
    cur_left = [False]
    boundary = [True]  # the next character would follow a word boundary (pattern start)
    i, n = 0, len(pattern)

    def flush(bounded: bool = False) -> None:
        if cur:
            runs.append("".join(cur))
            left.append(cur_left[0])
            right.append(bounded)
            cur.clear()
        boundary[0] = False

    def add(pos: int, char: str) -> int:
        if not cur:
            cur_left[0] = boundary[0]
        nxt = _add_char(pattern, pos, char, cur, flush)
        boundary[0] = False
        return nxt

    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= n:
                return _NO_RUNS
            nxt = pattern[i + 1]
            i += 2
            if nxt in _ESCAPED_LITERALS:
                i = add(i, _ESCAPED_LITERALS[nxt])
            elif nxt in "bAZz":
                flush(bounded=True)
                boundary[0] = True
            elif nxt.isalnum() or nxt in _ESCAPE_CLASSES:
                flush()
                i = _skip_quantifier(pattern, i)
            else:
                i = add(i, nxt)
            continue
        if ch == "(":
            if pattern.startswith("(?", i) and _flag_group_disables_literals(pattern, i):
                return _NO_RUNS
            after = _NOT_WORD_AFTER.match(pattern, i)
            before = _NOT_WORD_BEFORE.match(pattern, i)
            if after or before:
                flush(bounded=bool(after))
                boundary[0] = bool(before)
                i = (after or before).end()  # type: ignore[union-attr]
                continue
            keep = boundary[0] and pattern.startswith("(?", i) and re.match(r"\(\?[a-zA-Z]+\)", pattern[i:]) is not None
            flush()
            boundary[0] = keep  # a bare flag group such as (?m) changes nothing positional
            i = _skip_quantifier(pattern, _skip_group(pattern, i))
            continue
        if ch == "[":
            flush()
            i = _skip_quantifier(pattern, _skip_class(pattern, i))
            continue
        if ch == "|":
            return _NO_RUNS
        if ch in "^$":
            flush(bounded=ch == "$")
            boundary[0] = ch == "^"
            i += 1
            continue
        if ch in ".)?*+{":
            # ``.``/a stray quantifier or brace: not literal text
            flush()
            i = _skip_quantifier(pattern, i + 1) if ch in ".)" else i + 1
            continue
        i = add(i + 1, ch)
    flush(bounded=True)
    return Runs(runs, left, right)


def _add_char(pattern: str, i: int, char: str, cur: List[str], flush: Any) -> int:
    """Append ``char`` unless the quantifier after it makes it optional; return next pos."""
    q = _quantifier_at(pattern, i)
    if q is None:
        cur.append(char)
        return i
    kind, end = q
    if kind == "optional":
        flush()
    else:  # required at least once, but repeats: the run cannot continue past it
        cur.append(char)
        flush()
    return end


def _quantifier_at(pattern: str, i: int) -> Optional[Tuple[str, int]]:
    """Parse a quantifier at ``i``: ("optional"|"repeat", end) or None."""
    if i >= len(pattern):
        return None
    ch = pattern[i]
    if ch in _QUANT_OPTIONAL:
        return "optional", _skip_lazy(pattern, i + 1)
    if ch == "+":
        return "repeat", _skip_lazy(pattern, i + 1)
    if ch == "{":
        m = re.match(r"\{(\d*)(,?)(\d*)\}", pattern[i:])
        if not m or (not m.group(1) and not m.group(3)):
            return None
        low = int(m.group(1) or 0)
        return ("optional" if low == 0 else "repeat"), _skip_lazy(pattern, i + m.end())
    return None


def _skip_lazy(pattern: str, i: int) -> int:
    return i + 1 if i < len(pattern) and pattern[i] in "?+" else i


def _skip_quantifier(pattern: str, i: int) -> int:
    q = _quantifier_at(pattern, i)
    if q is not None:
        return q[1]
    if i < len(pattern) and pattern[i] == "{":  # fuzzy constraints etc.: skip the braces
        end = pattern.find("}", i)
        return len(pattern) if end < 0 else end + 1
    return i


def _skip_class(pattern: str, i: int) -> int:
    """Position after the character class starting at ``i`` (handles ``[]..]``, escapes, nesting)."""
    j = i + 1
    n = len(pattern)
    if j < n and pattern[j] == "^":
        j += 1
    if j < n and pattern[j] == "]":
        j += 1
    depth = 1
    while j < n:
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            depth += 1  # the regex module's nested set syntax
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return n


def _skip_group(pattern: str, i: int) -> int:
    """Position after the group opened at ``i``."""
    depth = 0
    j, n = i, len(pattern)
    while j < n:
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _skip_class(pattern, j)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return n


def _flag_group_disables_literals(pattern: str, i: int) -> bool:
    """True for inline flags that change literal meaning: (?i), (?x), (?f) ... (not (?s), (?m))."""
    m = re.match(r"\(\?([a-zA-Z]+)(?:-[a-zA-Z]+)?[:)]", pattern[i:])
    return bool(m and set(m.group(1)) & set("ixfwV1L0"))


# --------------------------------------------------------------------------- keys


def key_words(runs: Runs) -> List[str]:
    """Keys that occur among the tokens of every text the pattern matches on word boundaries.

    A word (at least ``MIN_KEY_LEN`` characters) qualifies when a non-word character of the
    pattern's own literal text, or a boundary (the pattern's start/end, ``^``, ``$``, ``\\b``,
    a ``(?<![A-Za-z0-9_])`` assertion) is on each side of it; a word at the edge of a run next
    to a group may be glued to captured text, so it does not. Two
    qualifying words that follow each other in a run also give the pair key ``"w1 w2"``
    (shorter words between them are skipped, as the text's tokens skip them): pairs are far
    rarer than single words, so they keep the candidate lists short in large datasets.
    (A match that starts or ends inside a word, e.g. ``for op matmul`` within
    ``for op matmul_v2``, is not a match of that message anyway; the prefilter may skip it.)
    """
    out: List[str] = []
    for r, literal in enumerate(runs.runs):
        previous: Optional[str] = None
        for m in _WORD.finditer(literal):
            word = m.group()
            if len(word) < MIN_KEY_LEN:
                continue
            left = m.start() > 0 or runs.left[r]
            right = m.end() < len(literal) or runs.right[r]
            if left and right:
                out.append(word)
                if previous is not None:
                    out.append(f"{previous} {word}")
                previous = word
            else:
                previous = None
    return out


def edge_keys(runs: Runs) -> List[str]:
    """Keys for words at a run's edge next to a group: ``*word`` (a token of the text ends
    with it) and ``word*`` (a token starts with it). A run that is one bare word gives none."""
    out = []
    for r, literal in enumerate(runs.runs):
        words = list(_WORD.finditer(literal))
        if not words:
            continue
        first, final = words[0], words[-1]
        if first.start() == 0 and not runs.left[r] and first.end() < len(literal):
            if len(first.group()) >= MIN_KEY_LEN:
                out.append("*" + first.group())
        if final.end() == len(literal) and not runs.right[r] and final.start() > 0:
            if len(final.group()) >= MIN_KEY_LEN:
                out.append(final.group() + "*")
    return out


def key_bucket(key: str) -> Tuple[str, str]:
    """(map, bucket) a key lives in: exact words by themselves, edge keys by 3-char affix."""
    if key.startswith("*"):
        return "suffix", key[-MIN_KEY_LEN:]
    if key.endswith("*"):
        return "prefix", key[:MIN_KEY_LEN]
    return "exact", key


def text_tokens(text: str) -> set:
    """Every maximal word of at least ``MIN_KEY_LEN`` characters in ``text``, and every pair
    of consecutive such words (``"w1 w2"``), to look keys up with."""
    words = _TOKENS.findall(text)
    out = set(words)
    out.update(f"{a} {b}" for a, b in zip(words, words[1:]))
    return out


def choose_keys(run_lists: Sequence[Runs]) -> List[Optional[str]]:
    """For each record, its rarest key word over the dataset (ties: longer, then a-z).

    Records without one get the edge key whose bucket is least used, else None (scan list).
    """
    words_per_record = [sorted(set(key_words(runs))) for runs in run_lists]
    freq: Counter = Counter(w for words in words_per_record for w in words)
    edges_per_record = [
        sorted(set(edge_keys(runs))) if not words else [] for runs, words in zip(run_lists, words_per_record)
    ]
    bucket_freq: Counter = Counter(key_bucket(k) for keys in edges_per_record for k in keys)
    keys: List[Optional[str]] = []
    for words, edges in zip(words_per_record, edges_per_record):
        if words:
            keys.append(min(words, key=lambda w: (freq[w], -len(w), w)))
        elif edges:
            keys.append(min(edges, key=lambda k: (bucket_freq[key_bucket(k)], -len(k), k)))
        else:
            keys.append(None)
    return keys


# --------------------------------------------------------------------------- build


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
    """Compact ASCII JSON (building only: the lookup path never imports ``json``)."""
    import json

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
    index = loads(read(INDEX_FILE))
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


# --------------------------------------------------------------------------- runtime


class VariantInfo(FieldTuple):
    """What the index knows about one error-enum variant (a ``variants`` entry)."""

    __slots__ = ()

    def __new__(
        cls,
        repo: str,
        enum: str,
        name: str,
        shape: str,
        fields: Tuple[Tuple[str, bool], ...],
        display: Optional[str],
        transparent: bool,
        types: Tuple[Optional[str], ...] = (),
    ) -> "VariantInfo":
        return tuple.__new__(cls, (repo, enum, name, shape, fields, display, transparent, types))

    repo: str
    enum: str
    name: str
    shape: str
    fields: Tuple[Tuple[str, bool], ...]
    display: Optional[str]
    transparent: bool
    types: Tuple[Optional[str], ...]  # default ()
    """Rust type of each field as written (``safetensors::SafeTensorError``), None if unknown."""

    def field_enum(self, name: str) -> Optional[str]:
        """The enum a field's value belongs to, from its type (``SafeTensorError``), or None."""
        for (field, _), typ in zip(self.fields, self.types):
            if field == name and typ:
                return typ.split("<", 1)[0].rsplit("::", 1)[-1].strip() or None
        return None


_MISSING = object()
_compiled: Dict[str, Any] = {}


def compiled(pattern: str) -> Any:
    """The compiled pattern (cached per pattern text), or None if it does not compile."""
    found = _compiled.get(pattern, _MISSING)
    if found is _MISSING:
        import regex  # ~15 ms: paid only once a text survives the literal prefilter

        try:
            found = regex.compile(pattern, regex.DOTALL)
        except Exception:
            found = None
        _compiled[pattern] = found
    return found


_local = _thread._local()


class RegexBudget:
    """The regex time of one lookup (this thread), as a context manager around its searches.

    Without it a hostile user pattern costs one full timeout per text of the exception graph
    (a group of 60 members: 3 s inside an exception hook). With it the searches that time out
    share ``seconds`` (ordinary searches, a few microseconds, are not counted), each search
    after that gets REGEX_FLOOR, and a pattern that timed out is not run again in this lookup:
    about ``seconds`` plus a few ms per hostile pattern in all.
    """

    def __init__(self, seconds: float = LOOKUP_REGEX_BUDGET) -> None:
        self.left = seconds
        self.timed_out: set = set()
        self._outer: Optional["RegexBudget"] = None
        self._wall0 = self._cpu0 = 0.0
        self.off_seen = 0.0
        """Off-CPU time already answered with a retry (each stretch of it excuses one timeout)."""

    def __enter__(self) -> "RegexBudget":
        self._outer = getattr(_local, "budget", None)
        _local.budget = self
        # one clock pair per lookup, not per search: thread_time() is a system call (~0.6 us)
        self._wall0, self._cpu0 = time.perf_counter(), time.thread_time()
        return self

    def __exit__(self, *exc: Any) -> None:
        _local.budget = self._outer

    def off_cpu(self) -> float:
        """Seconds this thread has spent off the CPU since the budget began."""
        return (time.perf_counter() - self._wall0) - (time.thread_time() - self._cpu0)

    def excuses(self, timeout: float) -> bool:
        """Whether a search that just timed out was descheduled for most of ``timeout``: off
        the CPU for at least half of it since the budget began, beyond what an earlier retry
        was already excused for (each stretch off the CPU excuses one timeout)."""
        off = self.off_cpu()
        if off - self.off_seen < timeout / 2:
            return False
        self.off_seen = off
        return True


def search(pattern: str, text: str, timeout: float = REGEX_TIMEOUT) -> Any:
    """``pattern.search(text)`` that gives up (None) after ``timeout`` seconds, or sooner
    inside a ``RegexBudget``.

    ``concurrent=False`` keeps the GIL during the search: by default ``regex`` lets it go and
    takes it back while matching, and the wall-clock timeout then counts the wait, so with
    many threads an ordinary search timed out (2 lookups in 1,000 across 16 threads).
    A search that timed out is tried once more when the thread spent most of that time off
    the CPU (a loaded machine descheduled it; the pattern was not the cost); inside a budget
    that is judged from the budget's clocks, so an ordinary search reads no CPU clock.
    """
    rx = compiled(pattern)
    if rx is None:
        return None
    budget: Optional[RegexBudget] = getattr(_local, "budget", None)
    if budget is None:
        try:
            return _timed_search(rx, text, timeout)
        except TimeoutError:
            return None
    if pattern in budget.timed_out:
        return None
    start = time.perf_counter()
    try:
        return _timed_search(rx, text, max(min(timeout, budget.left), REGEX_FLOOR), budget)
    except TimeoutError:
        budget.timed_out.add(pattern)
        budget.left -= time.perf_counter() - start
        return None


def _timed_search(rx: Any, text: str, timeout: float, budget: Optional[RegexBudget] = None) -> Any:
    """One search with a wall-clock timeout, tried again once if the thread spent most of
    that time off the CPU (a loaded machine descheduled it; the pattern was not the cost).
    Inside a ``budget`` that is judged from the budget's clocks (``RegexBudget.excuses``)."""
    cpu = time.thread_time() if budget is None else 0.0
    try:
        return rx.search(text, timeout=timeout, concurrent=False)
    except TimeoutError:
        if budget is None:
            if time.thread_time() - cpu >= timeout / 2:
                raise
        elif not budget.excuses(timeout):
            raise
    return rx.search(text, timeout=timeout, concurrent=False)


if TYPE_CHECKING:  # pragma: no cover
    Reader = Callable[[str, int, int], Mapping[str, Any]]


class RowMeta(FieldTuple):
    """What ranking needs about a record, taken from the record itself (cached per row)."""

    __slots__ = ()

    def __new__(
        cls,
        id: str,
        repo: str,
        error_type: str,
        site_kind: Optional[str],
        background_tag: Optional[str],
        error_code: Optional[str],
        error_class: Optional[str],
        variant: Optional[str],
        versions: Tuple[str, ...],
        pulled_in_by: Tuple[str, ...],
        pattern: str,
        generic: bool = False,
    ) -> "RowMeta":
        return tuple.__new__(cls, (id, repo, error_type, site_kind, background_tag, error_code, error_class, variant, versions, pulled_in_by, pattern, generic))

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
    generic: bool  # default False


_TEMPLATE_PART = LazyPattern(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*|\d+)?(?::[^{}]*)?\}")


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
    parts: List[str] = []
    names: List[str] = []
    pos = positional = 0
    for m in _TEMPLATE_PART.finditer(display):
        parts.append(re.escape(display[pos : m.start()]))
        pos = m.end()
        if m.group() in ("{{", "}}"):
            parts.append(re.escape(m.group()[0]))
            continue
        name = m.group(1)
        if name is None:
            name, positional = str(positional), positional + 1
        names.append(name)
        parts.append(f"(?P<g{len(names) - 1}>.*?)")
    parts.append(re.escape(display[pos:]))
    try:
        found = re.fullmatch("".join(parts), message, re.DOTALL)
    except re.error:
        return None
    if found is None:
        return None
    fixed = {}
    for n, name in enumerate(names):
        value = found.group(f"g{n}")
        if value and "{" not in value:  # a placeholder of the message: not fixed
            fixed["f" + name if name.isdigit() else name] = value
    return fixed or None


class LoadedIndex:
    """An index ready for lookups: rows parsed only when selected, records read only when needed."""

    def __init__(self, data: Mapping[str, Any], *, reader: Optional[Reader] = None, exclude_ids: Iterable[str] = ()) -> None:
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
        self._fill_lock = _thread.allocate_lock()
        self._affixes = (False, False)
        self.scan: List[int] = data.get("scan", [])
        excluded = set(exclude_ids)
        self._excluded = frozenset(i for i in range(self._count) if self.row(i)[ID] in excluded) if excluded else frozenset()

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
            row = self._rows[i] = loads(self._rows_text[start:end])
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

    def prefiltered(self, text: str, tokens: Iterable[str]) -> List[int]:
        """Rows whose key occurs in ``text`` and whose every required literal is in it."""
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
                if lit not in text:
                    break
            else:
                out.append(i)
        out.sort()
        return out

    def variant_rows(self, name: str) -> List[int]:
        if self._by_variant is None:
            self._by_variant = loads(self._variant_text.partition("\n")[0] or "{}")
        rows = self._by_variant.get(name, [])
        return [i for i in rows if i not in self._excluded] if self._excluded else list(rows)

    def variants(self, name: str) -> List[VariantInfo]:
        """Templates of every variant called ``name`` (its line found and decoded on first use)."""
        found = self._variants.get(name)
        if found is None:  # decoded per name: the whole table costs ~1 ms on the first Debug form
            found = []
            line = _variant_line(self._variant_text, name) if "\n" not in name and "\t" not in name else None
            for repo, enum, vname, shape, fields, display, transparent in loads(line) if line else ():
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
        return self.meta(i).pattern

    def literal_chars(self, i: int) -> int:
        """How much literal text the row's pattern requires (all runs, untruncated; cached:
        scanning a pattern costs ~70 us and a Debug-form variant can select 60 rows)."""
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


# --------------------------------------------------------------------------- bracket-aware groups

_OPENERS = {"[": "]", "(": ")", "{": "}"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
_LAZY_GROUP = LazyPattern(
    r"\(\?P<([A-Za-z_][A-Za-z0-9_]*)>(?:\.|\[\^\\n\]|\[\\s\\S\])(?:\+\?|\{1,\d+\}\?)\)"
)
"""A lazy "anything" group: ``.+?``, ``[^\\n]+?``, ``[^\\n]{1,1024}?`` or ``[\\s\\S]+?``."""
_BACKTRACK_VERB = LazyPattern(r"\(\*(?:PRUNE|SKIP|COMMIT)\)")
_BALANCED_ATOM = (
    r"(?:[^\[\](){}]"
    r"|\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
    r"|\((?:[^()]|\([^()]*\))*\)"
    r"|\{(?:[^{}]|\{[^{}]*\})*\})+?"
)


def balanced_value(value: str) -> bool:
    """Whether brackets in a captured value pair up (``[2, 3]`` yes, ``[2,`` no)."""
    for ch in "[](){}":
        if ch in value:
            break
    else:  # most values (``I64``, ``matmul``): no per-character walk
        return True
    stack: List[str] = []
    for ch in value:
        if ch in _OPENERS:
            stack.append(ch)
        elif ch in _CLOSERS:
            if not stack or stack[-1] != _CLOSERS[ch]:
                return False
            stack.pop()
    return not stack


def bracket_aware(pattern: str) -> str:
    """``pattern`` with every lazy ``(?P<x>.+?)``-like group made to take brackets whole (two levels).

    The builder's lazy ``.+?`` stops at the first occurrence of the text that follows it, which
    may sit inside a Debug value: ``block size (?P<shape>.+?) (?P<n>..)`` on ``block size [2, 3] 32``
    captures ``[2,``. Used only to retry a match whose captures came out unbalanced.
    """
    aware = _LAZY_GROUP.sub(lambda m: f"(?P<{m.group(1)}>{_BALANCED_ATOM})", pattern)
    return _BACKTRACK_VERB.sub("", aware)  # the retry needs to revisit the group boundaries
