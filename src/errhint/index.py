"""The compact runtime index: building it from records, loading it, the literal prefilter.

Why it exists: compiling every pattern of a few thousand records costs hundreds of
milliseconds, so lookup must decide which few records *could* match a text before any regex
is compiled.  The index stores, per record, the literal text every match must contain and one
rare word ("key") from that text; a lookup collects the records whose key occurs in the text,
checks their literals with ``in``, and only then compiles (lazily, cached, with a timeout)
the surviving patterns.  Nothing here imports ``regex`` until a pattern is actually needed.

On-disk format 1 (JSON, lists instead of dicts to keep it small and quick to parse)::

    {"format": 1, "datasetVersion": str, "files": [str],
     "versionSets": [[label, ...]],            # interned ``versions`` lists
     "variants": [[repo, enum, name, shape, [[field, debug], ...], display, transparent]],
     "records": [[id, repo, errorType, pattern, fileIndex, byteOffset, byteLength,
                  key, literals, variantName, versionSet, backgroundTag, siteKind, errorCode,
                  pulledInBy]],
     "inline": [record, ...]}                   # only when built without locations

``versionSet`` is an index into ``versionSets`` (or -1).  For records kept in memory
``fileIndex`` is -1 and ``byteOffset`` is the position in ``inline``.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

FORMAT = 1

# Row positions (rows are lists for compactness).
ID, REPO, ERROR_TYPE, PATTERN, FILE, OFFSET, LENGTH = 0, 1, 2, 3, 4, 5, 6
KEY, LITERALS, VARIANT, VERSIONS, TAG, KIND, CODE, PULLED_IN_BY = 7, 8, 9, 10, 11, 12, 13, 14

MIN_KEY_LEN = 3
_WORD = re.compile(r"[A-Za-z0-9_]+")
_TOKENS = re.compile(r"[A-Za-z0-9_]{%d,}" % MIN_KEY_LEN)

REGEX_TIMEOUT = 0.05
"""Seconds one ``search`` may run; a pattern that exceeds it simply does not match."""

_ESCAPED_LITERALS = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_ESCAPE_CLASSES = set("dDwWsSbBAZzGpPXNuUxg0123456789")
_QUANT_OPTIONAL = {"?", "*"}


# --------------------------------------------------------------------------- literals


def required_literals(pattern: str) -> List[str]:
    """Literal runs that every match of ``pattern`` must contain, longest first.

    Conservative by construction: anything not understood ends the current run, groups are
    never descended into, a top-level alternation or a case-insensitive/verbose flag yields
    no literals at all.  Missing a literal only costs speed; inventing one would lose matches.
    """
    runs: List[str] = []
    cur: List[str] = []
    i, n = 0, len(pattern)

    def flush() -> None:
        if cur:
            runs.append("".join(cur))
            cur.clear()

    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= n:
                return []
            nxt = pattern[i + 1]
            i += 2
            if nxt in _ESCAPED_LITERALS:
                char = _ESCAPED_LITERALS[nxt]
            elif nxt.isalnum() or nxt in _ESCAPE_CLASSES:
                flush()
                i = _skip_quantifier(pattern, i)
                continue
            else:
                char = nxt
            i = _add_char(pattern, i, char, cur, flush)
            continue
        if ch == "(":
            if pattern.startswith("(?", i) and _flag_group_disables_literals(pattern, i):
                return []
            flush()
            i = _skip_quantifier(pattern, _skip_group(pattern, i))
            continue
        if ch == "[":
            flush()
            i = _skip_quantifier(pattern, _skip_class(pattern, i))
            continue
        if ch == "|":
            return []
        if ch in ".^$)":
            flush()
            i = _skip_quantifier(pattern, i + 1)
            continue
        if ch in "?*+{":
            # A quantifier with nothing quantifiable before it (or an unparsed brace).
            flush()
            i += 1
            continue
        i = _add_char(pattern, i + 1, ch, cur, flush)
    flush()
    out = sorted({r for r in runs if r}, key=lambda r: (-len(r), r))
    return out


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


def bounded_words(literal: str) -> List[str]:
    """Words of ``literal`` that have a non-word character on both sides *inside* it.

    Only such a word is guaranteed to appear as a whole token in any text the pattern
    matches; a word at the edge of a run may be glued to captured text.
    """
    out = []
    for m in _WORD.finditer(literal):
        if m.start() > 0 and m.end() < len(literal) and len(m.group()) >= MIN_KEY_LEN:
            out.append(m.group())
    return out


def text_tokens(text: str) -> set:
    """Every maximal word of at least ``MIN_KEY_LEN`` characters in ``text``."""
    return set(_TOKENS.findall(text))


def choose_keys(literal_lists: Sequence[Sequence[str]]) -> List[Optional[str]]:
    """For each record, its rarest bounded word over the whole dataset (ties: longer, then a-z)."""
    words_per_record = [sorted({w for lit in lits for w in bounded_words(lit)}) for lits in literal_lists]
    freq: Counter = Counter(w for words in words_per_record for w in words)
    keys: List[Optional[str]] = []
    for words in words_per_record:
        keys.append(min(words, key=lambda w: (freq[w], -len(w), w)) if words else None)
    return keys


# --------------------------------------------------------------------------- build


def build_index(
    records: Sequence[Mapping[str, Any]],
    *,
    files: Sequence[str] = (),
    locations: Optional[Sequence[Tuple[int, int, int]]] = None,
    dataset_version: str = "",
) -> Dict[str, Any]:
    """Compute the JSON-able index (format 1) of camelCase ``records``.

    ``locations[i] = (fileIndex, byteOffset, byteLength)`` of record i's JSONL line in
    ``files[fileIndex]``; without locations the records are embedded under ``inline``.
    Deterministic: the same records give byte-identical JSON.
    """
    if locations is not None and len(locations) != len(records):
        raise ValueError("locations must have one entry per record")
    literal_lists = [required_literals(str(r.get("messagePattern") or "")) for r in records]
    keys = choose_keys(literal_lists)
    version_sets: List[List[str]] = []
    version_ids: Dict[Tuple[str, ...], int] = {}
    variants: List[list] = []
    variant_ids: Dict[str, int] = {}
    rows: List[list] = []
    for i, rec in enumerate(records):
        versions = rec.get("versions")
        vset = -1
        if versions:
            tup = tuple(str(v) for v in versions)
            vset = version_ids.get(tup, -1)
            if vset < 0:
                vset = version_ids[tup] = len(version_sets)
                version_sets.append(list(tup))
        variant = rec.get("variant") or None
        variant_name = None
        if isinstance(variant, Mapping) and variant.get("name"):
            variant_name = str(variant["name"])
            entry = _variant_entry(str(rec.get("repo", "")), variant)
            sig = repr(entry)
            if sig not in variant_ids:
                variant_ids[sig] = len(variants)
                variants.append(entry)
        if locations is None:
            file_index, offset, length = -1, i, 0
        else:
            file_index, offset, length = (int(x) for x in locations[i])
        rows.append(
            [
                str(rec.get("id", "")),
                str(rec.get("repo", "")),
                str(rec.get("errorType", "exception")),
                str(rec.get("messagePattern") or ""),
                file_index,
                offset,
                length,
                keys[i],
                literal_lists[i],
                variant_name,
                vset,
                rec.get("backgroundTag"),
                rec.get("siteKind"),
                rec.get("errorCode"),
                list(rec["pulledInBy"]) if rec.get("pulledInBy") else None,
            ]
        )
    index: Dict[str, Any] = {
        "format": FORMAT,
        "datasetVersion": dataset_version,
        "files": list(files),
        "versionSets": version_sets,
        "variants": variants,
        "records": rows,
    }
    if locations is None:
        index["inline"] = [dict(r) for r in records]
    return index


def _variant_entry(repo: str, variant: Mapping[str, Any]) -> list:
    fields = [[str(f.get("name", "")), bool(f.get("debug", False))] for f in variant.get("fields") or ()]
    return [
        repo,
        str(variant.get("enum", "")),
        str(variant["name"]),
        str(variant.get("shape", "unit")),
        fields,
        variant.get("display"),
        bool(variant.get("transparent", False)),
    ]
