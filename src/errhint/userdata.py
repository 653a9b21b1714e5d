"""User datasets (entry points, ``ERRHINT_DATA``, ``paths=``): validated once, cached, never fatal.

Contract:

* ``user_index(paths)`` returns ``(LoadedIndex, ids)`` for every valid record of the user's
  sources, or ``None`` when there are none. It never raises for a bad source: a missing
  path, an unreadable file, a line that is not JSON or a record that fails the schema is
  skipped with one warning on stderr naming file, line and field, and the shipped hints
  and every other user record still work.
* The validated result is cached in the user's cache directory (``platformdirs``; override
  with ``ERRHINT_CACHE_DIR``), in the shipped index layout (``index.json``/``index.rows``/
  ``index.variants`` plus the records as JSONL read by byte range), keyed by the sources'
  paths and checked against each file's size and mtime, then its content hash (SHA-256): a
  touched but unchanged file is not validated again. A process with a warm cache imports
  neither pydantic nor the schema and decodes no record until one matches.

Why the user's cache directory rather than an index next to the file: dataset folders may be
read-only (installed, shared, mounted), and a stray file next to a user's data is a surprise;
a cache that cannot be written only means validating again next time.
"""

from __future__ import annotations

import os
import sys

from typing import Any, Dict, List, Optional, Sequence, Tuple

from errhint import indexfile
from errhint.loaded_index import LoadedIndex

CACHE_VERSION = 1
MAX_WARNINGS_PER_FILE = 5
RECORDS_FILE = "records.jsonl"
STAMP_FILE = "stamp.json"


def cache_root() -> str:
    """Where validated user datasets are cached (``ERRHINT_CACHE_DIR`` wins).

    On Linux the XDG rule (``$XDG_CACHE_HOME`` or ``~/.cache``) is applied here, as
    platformdirs applies it (a test holds the two equal): importing platformdirs costs a
    crashing process several milliseconds of its 20 ms budget. Elsewhere, platformdirs."""
    env = os.environ.get("ERRHINT_CACHE_DIR", "").strip()
    if env:
        return env
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
        return os.path.join(base, "errhint", "datasets")
    import platformdirs

    return os.path.join(platformdirs.user_cache_dir("errhint", appauthor=False), "datasets")


def warn(text: str) -> None:
    """One line on stderr; never raises (a closed stderr must not break a hint)."""
    try:
        if sys.stderr is not None:
            sys.stderr.write(f"errhint: warning: {text}\n")
    except Exception:
        pass


# ---------------------------------------------------------------- sources


def _sources(paths: Sequence[str]) -> List[Tuple[str, Optional[str], Optional[bytes]]]:
    """(label, file path or None, bytes or None): entry points first (read now), then
    ERRHINT_DATA, then ``paths``; a missing path or unloadable entry point is warned and dropped."""
    from errhint import data

    out: List[Tuple[str, Optional[str], Optional[bytes]]] = []
    try:
        out.extend((label, None, raw) for label, raw in data._entry_point_sources())
    except Exception as exc:  # one broken package must not cost the rest
        warn(f"dataset entry point skipped: {exc}")
    for origin, group in (("ERRHINT_DATA", data.env_paths()), ("paths", [os.fspath(p) for p in paths])):
        for p in group:
            if os.path.isdir(p):  # every *.jsonl under it, as errhint validate checks them
                out.extend((f, os.path.abspath(f), None) for f in data.jsonl_files(p) if os.path.isfile(f))
            elif os.path.exists(p):
                out.append((p, os.path.abspath(p), None))
            else:
                warn(f"{origin}: no such file or directory: {p} (skipped; the shipped hints still work)")
    return out


def _stat(path: str) -> Optional[List[int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _read(label: str, path: Optional[str], raw: Optional[bytes]) -> Optional[bytes]:
    if raw is not None:
        return raw
    try:
        with open(path or label, "rb") as fh:
            return fh.read()
    except OSError as exc:
        warn(f"cannot read {label}: {exc.strerror or exc} (skipped)")
        return None


# ---------------------------------------------------------------- validation


def validate_sources(named: Sequence[Tuple[str, bytes]]) -> Tuple[List[Dict[str, Any]], List[str]]:
    """Valid record dicts (later ids replace earlier ones) and one warning per skipped line
    (at most ``MAX_WARNINGS_PER_FILE`` per file, then a count)."""
    from errhint import data

    by_id: Dict[str, Dict[str, Any]] = {}
    warnings: List[str] = []
    for name, raw in named:
        bad: List[str] = []
        for problem, obj, lineno in _lines(name, raw):
            if problem is None:
                try:
                    data.validate(name, lineno, obj)
                except data.DatasetError as exc:
                    problem = str(exc)
            if problem is not None:
                bad.append(problem)
                continue
            by_id[str(obj["id"])] = obj
        for problem in bad[:MAX_WARNINGS_PER_FILE]:
            warnings.append(f"{problem} (line skipped)")
        if len(bad) > MAX_WARNINGS_PER_FILE:
            warnings.append(f"{name}: {len(bad) - MAX_WARNINGS_PER_FILE} more bad lines skipped; 'errhint validate {name}' lists every one")
    return list(by_id.values()), warnings


def _lines(name: str, raw: bytes) -> Any:
    """(problem or None, record dict, line number) per non-blank line."""
    from errhint import data

    for lineno, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            for _, obj in data.iter_lines(name, line):
                yield None, obj, lineno
        except data.DatasetError as exc:
            exc.line = lineno
            yield str(data.DatasetError(exc.reason, file=name, line=lineno, field=exc.field)), None, lineno


# ---------------------------------------------------------------- cache


def _cache_dir(keys: Sequence[str]) -> str:
    """One folder per list of sources; the stamp repeats the list, so a crc clash only misses."""
    import zlib  # hashlib costs ~3 ms to import; this name needs no strength

    joined = "\0".join(keys).encode("utf-8", "surrogatepass")
    return os.path.join(cache_root(), f"{zlib.crc32(joined):08x}{len(joined):x}")


def _load_cached(folder: str, stamps: List[Any], keys: List[str]) -> Optional[Dict[str, Any]]:
    """The cache's stamp when it was written for exactly these files at these sizes/mtimes."""
    import json  # not at module level: the lookup path of a process without user data imports none

    try:
        with open(os.path.join(folder, STAMP_FILE), "rb") as fh:
            stamp = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    if stamp.get("version") != CACHE_VERSION or stamp.get("format") != indexfile.FORMAT:
        return None
    return stamp if stamp.get("stamps") == stamps and stamp.get("keys") == keys else None


def _write_cache(folder: str, records: List[Dict[str, Any]], stamp: Dict[str, Any]) -> bool:
    """Write the index files, the records and the stamp (last, atomically). False on failure."""
    import json

    lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n" for r in records]
    locations = []
    offset = 0
    for line in lines:
        locations.append((0, offset, len(line) - 1))
        offset += len(line)
    built = indexfile.build_index(records, files=[RECORDS_FILE], locations=locations)
    files = dict(indexfile.index_files(built))
    files[RECORDS_FILE] = b"".join(lines)
    try:
        os.makedirs(folder, exist_ok=True)
        for name, payload in list(files.items()) + [(STAMP_FILE, json.dumps(stamp).encode("utf-8"))]:
            tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                fh.write(payload)
            os.replace(tmp, os.path.join(folder, name))
    except OSError:
        return False
    return True


class _Folder:
    """Reads an index and its records from a cache folder (the ``LoadedIndex`` reader)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def read(self, name: str) -> bytes:
        try:
            with open(os.path.join(self.folder, name), "rb") as fh:
                return fh.read()
        except FileNotFoundError:
            return b""

    def line(self, name: str, offset: int, length: int) -> Dict[str, Any]:
        import json

        with open(os.path.join(self.folder, name), "rb") as fh:
            fh.seek(offset)
            return json.loads(fh.read(length))


# ---------------------------------------------------------------- entry


def user_index(paths: Sequence[str] = ()) -> Optional[Tuple[Any, frozenset]]:
    """``(LoadedIndex, ids)`` of the user's valid records, or None (see the module docstring)."""
    sources = _sources(paths)
    if not sources:
        return None
    keys = [label if path is None else path for label, path, _ in sources]
    stamps: List[Any] = [_stat(path) if path is not None else None for _, path, _ in sources]
    folder = _cache_dir(keys)
    stamp = _load_cached(folder, stamps, keys) if None not in stamps else None
    contents: List[Optional[bytes]] = []
    if stamp is None:
        contents = [_read(label, path, raw) for label, path, raw in sources]
        import hashlib

        hashes = [hashlib.sha256(c).hexdigest() if c is not None else None for c in contents]
        stamp = _load_cached_by_hash(folder, hashes, keys)
        if stamp is not None:  # touched, not changed: record the new mtimes, keep the work
            stamp["stamps"] = stamps
            _rewrite_stamp(folder, stamp)
    if stamp is None:
        named = [(label, c) for (label, _, _), c in zip(sources, contents) if c is not None]
        records, warnings = validate_sources(named)
        stamp = {"version": CACHE_VERSION, "format": indexfile.FORMAT, "keys": keys, "stamps": stamps, "hashes": hashes,
                 "warnings": warnings, "ids": [str(r["id"]) for r in records]}
        if not _write_cache(folder, records, stamp):  # (an all-bad file is cached too: no revalidation)
            for w in warnings:
                warn(w)
            if not records:
                return None
            return LoadedIndex(indexfile.build_index(records), user=True), frozenset(stamp["ids"])
    for w in stamp.get("warnings", ()):
        warn(w)
    if not stamp.get("ids"):
        return None
    reader = _Folder(folder)
    return LoadedIndex(indexfile.read_index(reader.read), reader=reader.line, user=True), frozenset(stamp["ids"])


def _load_cached_by_hash(folder: str, hashes: List[Optional[str]], keys: List[str]) -> Optional[Dict[str, Any]]:
    import json

    try:
        with open(os.path.join(folder, STAMP_FILE), "rb") as fh:
            stamp = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    ok = stamp.get("version") == CACHE_VERSION and stamp.get("format") == indexfile.FORMAT
    return stamp if ok and None not in hashes and stamp.get("hashes") == hashes and stamp.get("keys") == keys else None


def _rewrite_stamp(folder: str, stamp: Dict[str, Any]) -> None:
    import json

    try:
        tmp = os.path.join(folder, f".{STAMP_FILE}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            fh.write(json.dumps(stamp).encode("utf-8"))
        os.replace(tmp, os.path.join(folder, STAMP_FILE))
    except OSError:
        pass


def user_records(paths: Sequence[str] = ()) -> List[Dict[str, Any]]:
    """Every valid user record as a dict (for ``show``/``search``/``stats``), same rules."""
    found = user_index(paths)
    if found is None:
        return []
    ix, _ = found
    return [dict(ix.record(i)) for i in range(len(ix))]
