"""Fixtures shared across test modules. Module-specific fixtures live in their own files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List

import pytest

ROOT = Path(__file__).resolve().parents[1]

# the *_support.py helpers live here and the builder at the root: importable from every layer folder
for _path in (str(Path(__file__).resolve().parent), str(ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)


@pytest.fixture(autouse=True, scope="session")
def _private_dataset_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """User datasets are cached under ERRHINT_CACHE_DIR: a fresh folder for the test run."""
    old = os.environ.get("ERRHINT_CACHE_DIR")
    os.environ["ERRHINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("errhint-cache"))
    yield
    if old is None:
        os.environ.pop("ERRHINT_CACHE_DIR", None)
    else:
        os.environ["ERRHINT_CACHE_DIR"] = old


@pytest.fixture
def make_record() -> Callable[..., Dict[str, Any]]:
    """A valid camelCase record dict (schemaVersion 2); keyword args override fields."""

    def make(**overrides: Any) -> Dict[str, Any]:
        record: Dict[str, Any] = {
            "id": "00000000000000aa",
            "repo": "example/widgets",
            "slug": "widget-count-mismatch",
            "errorCode": None,
            "errorMessage": "widget count mismatch: expected {expected}, got {got}",
            "messagePattern": r"widget count mismatch: expected (?P<expected>.+?), got (?P<got>[^\n]+)",
            "errorType": "exception",
            "errorClass": None,
            "httpStatus": None,
            "severity": "error",
            "filePath": "src/widgets.rs",
            "lineNumber": 10,
            "sourceCode": None,
            "sourceCodeStart": 8,
            "sourceCodeEnd": 12,
            "githubUrl": "https://github.com/example/widgets/blob/0123456789abcdef0123456789abcdef01234567/src/widgets.rs#L8-L12",
            "documentation": "Raised when the number of widgets differs from the number the frame declares.",
            "triggerScenarios": "Building a frame with {expected} slots from a list of {got} widgets.",
            "commonSituations": "Lists trimmed by a filter before being passed on.",
            "solutions": ["Pass exactly {expected} widgets", "Declare the frame with {got} slots"],
            "exampleFix": "frame = Frame(slots=len(widgets))",
            "handlingStrategy": "validation",
            "validationCode": None,
            "typeGuard": None,
            "tryCatchPattern": None,
            "preventionTips": ["Derive the slot count from the list"],
            "tags": ["widgets"],
            "backgroundTag": "count-mismatch",
            "analyzedSha": "0123456789abcdef0123456789abcdef01234567",
            "analyzedAt": "2026-01-01T00:00:00Z",
            "contentChangedAt": None,
            "schemaVersion": 2,
        }
        record.update(overrides)
        return record

    return make


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[..., Path]:
    """Write record dicts as wrapper lines to a JSONL file under tmp_path."""

    def write(records: List[Dict[str, Any]], name: str = "extra.jsonl", *, wrap: bool = True) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as fh:
            for rec in records:
                obj = {"record": rec, "datasetVersion": "test"} if wrap else rec
                fh.write(json.dumps(obj) + "\n")
        return path

    return write


@pytest.fixture
def clean_errhint(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No ERRHINT_* variables, default options, no cached datasets before and after the test."""
    for var in ("ERRHINT", "ERRHINT_DATA", "ERRHINT_VERBOSITY", "ERRHINT_DEBUG", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(var, raising=False)

    def reset() -> None:
        from errhint import config, data

        config.reset()
        data.clear_cache()
        engine = sys.modules.get("errhint.engine")
        if engine is not None:
            engine.reset()

    reset()
    yield
    reset()


@pytest.fixture
def run_python() -> Callable[..., subprocess.CompletedProcess]:
    """Run code in a fresh interpreter with errhint importable; returns the completed process."""

    def run(code: str, *, env: Dict[str, str] | None = None, python: str = sys.executable, timeout: float = 120) -> subprocess.CompletedProcess:
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT")}
        full_env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
        full_env.update(env or {})
        return subprocess.run([python, "-c", code], capture_output=True, text=True, env=full_env, timeout=timeout)

    return run
