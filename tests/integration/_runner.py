"""Run integration cases in this (fresh) interpreter and print one JSON result per case.

Run by the tests as ``python _runner.py <cases module> [--tmp DIR] [ids...]`` with
RUST_BACKTRACE already set in the environment: Rust reads it once, at the first backtrace
capture, and caches the answer for the life of the process (changing ``os.environ`` later
has no effect), so each value needs its own process.

For each case the trigger runs, the exception is caught (PanicException is a
BaseException), ``errhint.lookup`` is called on the live exception object, and a line
``@@case@@ {json}`` goes to stdout. pyburn prints to stdout itself, hence the marker.
Panic locations printed by Rust on stderr are kept, as they name the exact site.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

HERE = Path(__file__).resolve().parent
MARKER = "@@case@@ "
_PANIC_AT = re.compile(r"panicked at (\S+?):(\d+):\d+:")


def _plain(value: Any) -> Any:
    """A JSON-able copy of a record attribute (views, mappings, tuples)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "to_dict"):
        return _plain(value.to_dict())
    return str(value)


_RECORD_FIELDS = (
    "id", "repo", "error_message", "message_pattern", "file_path", "line_number",
    "site_kind", "error_type", "variant", "versions", "crate",
)


def _describe(match: Any) -> Dict[str, Any]:
    record = match.record
    return {
        "score": float(match.score),
        "message": match.message,
        "captures": _plain(dict(match.captures)),
        "record": {name: _plain(getattr(record, name, None)) for name in _RECORD_FIELDS},
    }


def _lookup(exc: BaseException) -> Dict[str, Any]:
    try:
        import errhint
    except Exception as err:  # pragma: no cover - errhint itself must import
        return {"lookup_error": f"import errhint failed: {err!r}"}
    try:
        lookup = errhint.lookup
    except (AttributeError, ImportError) as err:
        return {"lookup_error": f"errhint.lookup is not available: {err!r}"}
    try:
        matches = lookup(exc, limit=3)
    except Exception as err:
        return {"lookup_error": f"errhint.lookup raised {err!r}"}
    return {"matches": [_describe(m) for m in matches]}


def _run_one(case: Any, tmp: Optional[Path]) -> Dict[str, Any]:
    result: Dict[str, Any] = {"id": case.id}
    capture = tempfile.TemporaryFile()
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(capture.fileno(), 2)
    exc: Optional[BaseException] = None
    try:
        try:
            case.trigger(tmp) if case.needs_tmp else case.trigger()
        except BaseException as err:  # PanicException derives from BaseException
            exc = err
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
    capture.seek(0)
    stderr = capture.read().decode("utf-8", "replace")
    result["panic_at"] = [f"{f}:{n}" for f, n in _PANIC_AT.findall(stderr)]
    if exc is None:
        result["raised"] = False
        return result
    result.update(raised=True, exc_type=type(exc).__name__, exc_module=type(exc).__module__, text=str(exc))
    result.update(_lookup(exc))
    return result


def main(argv: List[str]) -> int:
    module_name, rest = argv[0], argv[1:]
    tmp: Optional[Path] = None
    if rest[:1] == ["--tmp"]:
        tmp, rest = Path(rest[1]), rest[2:]
    sys.path.insert(0, str(HERE))
    cases = importlib.import_module(module_name).CASES
    wanted = set(rest)
    for case in cases:
        if wanted and case.id not in wanted:
            continue
        case_tmp = None
        if case.needs_tmp:
            case_tmp = (tmp or Path(tempfile.mkdtemp())) / case.id
            case_tmp.mkdir(parents=True, exist_ok=True)
        out = _run_one(case, case_tmp)
        sys.stdout.write(MARKER + json.dumps(out, default=str) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
