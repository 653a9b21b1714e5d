"""Where datasets come from and how their lines are read and validated.

Sources, in override order (a later record with the same id replaces an earlier one):
the shipped ``errhint_data`` package, packages declaring an ``errhint.datasets`` entry
point, ``ERRHINT_DATA`` (``os.pathsep``-separated files or folders of JSONL), and
``paths=`` given by the caller or ``configure``.

The lookup path reads the shipped data through ``shipped_index``/``read_shipped_line``
without pydantic: the builder validated it already. Everything a user supplies is
validated here, with errors that name the file, line, record and field.
"""

from __future__ import annotations

import json
import os
import threading

from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from errhint import distinfo, indexfile

ENTRY_POINT_GROUP = "errhint.datasets"
_PACKAGE = "errhint_data"

PathLike = Union[str, os.PathLike]
"""A path given as text or as a path object (``pathlib.Path``)."""


class DatasetError(ValueError):
    """A dataset file is malformed; says which file, line, record and field, and why."""

    def __init__(
        self,
        reason: str,
        *,
        file: Optional[str] = None,
        line: Optional[int] = None,
        record_id: Optional[str] = None,
        field: Optional[str] = None,
    ) -> None:
        self.file, self.line, self.record_id, self.field, self.reason = file, line, record_id, field, reason
        where = file or "<dataset>"
        if line is not None:
            where += f":{line}"
        parts = [where]
        if record_id:
            parts.append(f"record {record_id}")
        if field:
            parts.append(f"field {field}")
        parts.append(reason)
        super().__init__(": ".join(parts))


# ---------------------------------------------------------------- shipped data


class _Shipped:
    """Handle on the ``errhint_data`` package: a folder on disk, or a Traversable in a zip."""

    def __init__(self) -> None:
        import errhint_data  # an empty package: cheap

        paths = list(getattr(errhint_data, "__path__", []))
        self.root: Optional[str] = next(
            (p for p in paths if os.path.isfile(os.path.join(p, indexfile.INDEX_FILE))), None
        )
        self._traversable: Any = None
        if self.root is None:
            # Zip imports and other loaders: only importlib_resources can see inside.
            import importlib_resources

            self._traversable = importlib_resources.files(_PACKAGE)

    def read_bytes(self, name: str) -> bytes:
        if self.root is not None:
            with open(os.path.join(self.root, *name.split("/")), "rb") as fh:
                return fh.read()
        return self._joined(name).read_bytes()

    def read_range(self, name: str, offset: int, length: int) -> bytes:
        if self.root is not None:
            with open(os.path.join(self.root, *name.split("/")), "rb") as fh:
                fh.seek(offset)
                return fh.read(length)
        with self._joined(name).open("rb") as fh:
            fh.seek(offset)
            return fh.read(length)

    def exists(self, name: str) -> bool:
        if self.root is not None:
            return os.path.isfile(os.path.join(self.root, *name.split("/")))
        return self._joined(name).is_file()

    def _joined(self, name: str) -> Any:
        node = self._traversable
        for part in name.split("/"):
            node = node / part
        return node


_shipped: Optional[_Shipped] = None
_shipped_lock = threading.Lock()


def _package() -> _Shipped:
    global _shipped
    if _shipped is None:
        with _shipped_lock:
            if _shipped is None:
                _shipped = _Shipped()
    return _shipped


def shipped_index() -> Optional[Dict[str, Any]]:
    """The parsed shipped index (``index.json`` + ``index.rows`` + ``index.variants``), or None when the package ships none."""
    try:
        pkg = _package()
    except ImportError:
        return None
    if not pkg.exists(indexfile.INDEX_FILE):
        return None
    return indexfile.read_index(pkg.read_bytes)


def shipped_manifest() -> Dict[str, Any]:
    return json.loads(_package().read_bytes("manifest.json"))


def shipped_families() -> Dict[str, Any]:
    """The family catalogue keyed by backgroundTag (empty when not shipped)."""
    pkg = _package()
    if not pkg.exists("families.json"):
        return {}
    return dict(json.loads(pkg.read_bytes("families.json")).get("families", {}))


def shipped_family(tag: str) -> Optional[Dict[str, Any]]:
    """One family of the catalogue (None when there is none for ``tag``), decoded alone: a
    hint needs one family, not the whole catalogue of small values.

    The builder writes ``families.json`` with one-space indentation and sorted keys, so a
    family's key is the only line that starts with two spaces and ``"<tag>":``; anything
    unexpected falls back to decoding the whole catalogue.
    """
    pkg = _package()
    if not pkg.exists("families.json"):
        return None
    text = pkg.read_bytes("families.json").decode("utf-8")
    key = f'\n  "{tag}": '
    at = text.find(key) if tag and not any(c in tag for c in '"\\\n') else -1
    if at >= 0:
        try:
            found = json.JSONDecoder().raw_decode(text, at + len(key))[0]
        except ValueError:
            found = None
        if isinstance(found, dict):
            return found
    family = shipped_families().get(tag)
    return family if isinstance(family, dict) else None


def read_shipped_line(file: str, offset: int, length: int) -> Dict[str, Any]:
    """One wrapper line of a shipped JSONL file, read by byte range (no full-file parse)."""
    return json.loads(_package().read_range(file, offset, length))


def shipped_sources() -> List[Tuple[str, bytes]]:
    """(name, bytes) of every shipped record file (the manifest's ``*.jsonl`` entries)."""
    pkg = _package()
    files = sorted(name for name in shipped_manifest().get("files", {}) if name.endswith(".jsonl"))
    return [(f"{_PACKAGE}/{name}", pkg.read_bytes(name)) for name in files]


# ---------------------------------------------------------------- extra sources


def _expand(path: PathLike) -> List[str]:
    """A file stands for itself; a folder for the ``*.jsonl`` files under it (``jsonl_files``)."""
    return [f for f in jsonl_files(path) if os.path.isfile(f)]


def env_paths() -> List[str]:
    raw = os.environ.get("ERRHINT_DATA", "")
    return [p for p in raw.split(os.pathsep) if p.strip()]


def _entry_point_sources() -> List[Tuple[str, bytes]]:
    """JSONL sources declared by installed packages under ``errhint.datasets``.

    An entry point may name a package (its ``*.jsonl`` resources are read), a callable
    returning paths, or a path.
    """
    if not distinfo.entry_point_lines(ENTRY_POINT_GROUP):
        return []  # the common case, decided without importing importlib.metadata
    import importlib.metadata as md
    import importlib_resources

    out: List[Tuple[str, bytes]] = []
    eps = md.entry_points()
    selected = eps.select(group=ENTRY_POINT_GROUP) if hasattr(eps, "select") else eps.get(ENTRY_POINT_GROUP, [])
    for ep in sorted(selected, key=lambda e: e.name):
        label = f"entry point {ep.name} ({ep.value})"
        try:
            target = ep.load()
        except Exception as exc:
            raise DatasetError(f"cannot load: {exc}", file=label) from None
        if callable(target) and not hasattr(target, "__path__"):
            target = target()
        if hasattr(target, "__path__") or hasattr(target, "__spec__"):
            root = importlib_resources.files(target)
            for node in sorted(root.iterdir(), key=lambda n: n.name):
                if node.name.endswith(".jsonl") and node.is_file():
                    out.append((f"{label}/{node.name}", node.read_bytes()))
            continue
        paths = [target] if isinstance(target, (str, os.PathLike)) else list(target)
        for p in paths:
            out.extend(_read_paths([p]))
    return out


def _read_paths(paths: Iterable[PathLike]) -> List[Tuple[str, bytes]]:
    out = []
    for p in paths:
        for f in _expand(p):
            with open(f, "rb") as fh:
                out.append((f, fh.read()))
    return out


def _extra_sources(paths: Sequence[PathLike]) -> List[Tuple[str, bytes]]:
    return _entry_point_sources() + _read_paths(env_paths()) + _read_paths(paths)


# ---------------------------------------------------------------- parsing and validation


def iter_lines(name: str, data: bytes) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """(line number, record dict) for every non-blank line; a bare record or a wrapper."""
    import json

    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)  # a user's file: json's messages say where it is malformed
        except (ValueError, UnicodeDecodeError) as exc:
            raise DatasetError(f"not valid JSON: {exc}", file=name, line=lineno) from None
        if not isinstance(obj, dict):
            raise DatasetError("a line must be a JSON object", file=name, line=lineno)
        if "record" in obj:
            if not isinstance(obj["record"], dict):
                raise DatasetError("'record' must be an object", file=name, line=lineno, field="record")
            obj = obj["record"]
        yield lineno, obj


def validate(name: str, lineno: int, obj: Dict[str, Any], *, trusted: bool = False) -> Any:
    """Validate one record dict; a DatasetError names file, line, record id and field."""
    from pydantic import ValidationError

    from errhint.schema import Record, describe_errors

    try:
        return Record.model_validate(obj, context={"trusted": trusted})
    except ValidationError as exc:
        rid = obj.get("id") if isinstance(obj.get("id"), str) else None
        problems = describe_errors(exc)
        first = problems[0]
        field, _, reason = first.partition(": ")
        extra = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise DatasetError(reason + extra, file=name, line=lineno, record_id=rid, field=field[len("field "):]) from None


def jsonl_files(path: PathLike) -> List[str]:
    """The ``*.jsonl`` files a path stands for: itself, or every one under a folder, at any
    depth, sorted. Raises DatasetError for a path that does not exist."""
    p = os.fspath(path)
    if os.path.isdir(p):
        found = []
        for root, dirs, names in os.walk(p):
            dirs.sort()
            found.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".jsonl"))
        return found
    if not os.path.exists(p):
        raise DatasetError("no such file or directory", file=p)
    return [p]


def problems(paths: Sequence[PathLike]) -> List[DatasetError]:
    """Every problem in the given files or folders (for ``errhint validate``), not just the
    first: each bad line, each failing field of each record, duplicate ids, paths that do not
    exist and files that cannot be read."""
    import json

    from pydantic import ValidationError

    from errhint.schema import Record, describe_errors

    out: List[DatasetError] = []
    seen: Dict[str, str] = {}
    for p in paths:
        try:
            files = jsonl_files(p)
        except DatasetError as exc:
            out.append(exc)
            continue
        if not files:
            out.append(DatasetError("no *.jsonl file in this folder", file=os.fspath(p)))
        for name in files:
            try:
                with open(name, "rb") as fh:
                    raw = fh.read()
            except OSError as exc:
                out.append(DatasetError(f"cannot read: {exc.strerror or exc}", file=name))
                continue
            for lineno, line in enumerate(raw.split(b"\n"), start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except (ValueError, UnicodeDecodeError) as exc:
                    out.append(DatasetError(f"not valid JSON: {exc}", file=name, line=lineno))
                    continue
                if isinstance(obj, dict) and "record" in obj:
                    obj = obj["record"]
                    if not isinstance(obj, dict):
                        out.append(DatasetError("'record' must be an object", file=name, line=lineno, field="record"))
                        continue
                if not isinstance(obj, dict):
                    out.append(DatasetError("a line must be a JSON object", file=name, line=lineno))
                    continue
                rid = obj.get("id") if isinstance(obj.get("id"), str) else None
                try:
                    Record.model_validate(obj)
                except ValidationError as exc:
                    for desc in describe_errors(exc):
                        field, _, reason = desc.partition(": ")
                        out.append(DatasetError(reason, file=name, line=lineno, record_id=rid, field=field[6:]))
                    continue
                if rid in seen:
                    out.append(DatasetError(f"duplicate id (first at {seen[rid]})", file=name, line=lineno, record_id=rid, field="id"))
                else:
                    seen[rid] = f"{name}:{lineno}"
    return out


def _validated(sources: List[Tuple[str, bytes]], *, trusted: bool) -> List[Tuple[Dict[str, Any], Any]]:
    """(record dict, Record) pairs; the dict is kept as written so unknown fields survive."""
    return [
        (obj, validate(name, lineno, obj, trusted=trusted))
        for name, data in sources
        for lineno, obj in iter_lines(name, data)
    ]


def extra_records(paths: Sequence[PathLike] = ()) -> List[Dict[str, Any]]:
    """Valid camelCase record dicts from entry points, ERRHINT_DATA and ``paths``; a bad
    line or missing path is skipped with a warning (``errhint.userdata``), never raised.

    Returns [] without importing pydantic when there is nothing extra.
    """
    from errhint import userdata

    return userdata.user_records([os.fspath(p) for p in paths])


# ---------------------------------------------------------------- public loader

_cache: Dict[Tuple[Any, ...], List[Any]] = {}
_cache_lock = threading.Lock()


def load_dataset(paths: Optional[Sequence[PathLike]] = None, *, shipped: bool = True) -> List[Any]:
    """All records as validated ``errhint.schema.Record`` objects, later sources replacing earlier ids.

    Validated once per distinct set of sources and cached for the process.
    """
    paths = tuple(os.fspath(p) for p in (paths or ()))
    key = (paths, tuple(env_paths()), tuple(distinfo.entry_point_lines(ENTRY_POINT_GROUP)), shipped)
    with _cache_lock:
        if key in _cache:
            return list(_cache[key])
        merged: Dict[str, Any] = {}
        if shipped:
            for _, record in _validated(shipped_sources(), trusted=True):
                merged[record.id] = record
        for _, record in _validated(_extra_sources(paths), trusted=False):
            merged[record.id] = record
        records = list(merged.values())
        _cache[key] = records
        return list(records)


def clear_cache() -> None:
    global _shipped
    with _cache_lock:
        _cache.clear()
    with _shipped_lock:
        _shipped = None
    distinfo.clear()
