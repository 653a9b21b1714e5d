"""Fixtures for the real-binding tests: run cases in fresh interpreters with a chosen RUST_BACKTRACE.

Rust decides once per process whether backtraces are captured (``std::backtrace`` caches
RUST_BACKTRACE at the first capture; setting ``os.environ`` afterwards changes nothing, which
was checked against candle 0.4.2), so every value gets its own interpreter. candle and the
safetensors cases run as one batch per value; burn cases run one per process (see
``cases_burn``: a panic can poison burn's global RNG lock for the rest of the process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, Tuple

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RUNNER = HERE / "_runner.py"
MARKER = "@@case@@ "
ISOLATED = frozenset({"cases_burn"})
BACKTRACE_VALUES = ("0", "1")

if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def _env(backtrace: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT")}
    env["RUST_BACKTRACE"] = backtrace
    paths = [str(ROOT / "src"), str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def run_cases(module: str, backtrace: str, tmp: Path, *ids: str) -> Dict[str, dict]:
    """Run ``ids`` (all when empty) of a case module in a new interpreter; results by case id."""
    proc = subprocess.run(
        [sys.executable, str(RUNNER), module, "--tmp", str(tmp), *ids],
        capture_output=True, text=True, env=_env(backtrace), timeout=600, cwd=str(tmp),
    )
    results = {}
    for line in proc.stdout.splitlines():
        if line.startswith(MARKER):
            result = json.loads(line[len(MARKER):])
            results[result["id"]] = result
    if proc.returncode != 0 or not results:
        raise AssertionError(
            f"runner failed for {module} (RUST_BACKTRACE={backtrace}, exit {proc.returncode}):\n"
            f"{proc.stderr[-4000:]}"
        )
    return results


class CaseResults:
    """Lazily computed, cached runner results keyed by (module, backtrace, case id)."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self._factory = factory
        self._cache: Dict[Tuple[str, str, str], dict] = {}

    def get(self, module: str, case_id: str, backtrace: str) -> dict:
        key = (module, backtrace, case_id)
        if key not in self._cache:
            tmp = self._factory.mktemp(f"{module}-bt{backtrace}")
            ids = (case_id,) if module in ISOLATED else ()
            for cid, result in run_cases(module, backtrace, tmp, *ids).items():
                self._cache[(module, backtrace, cid)] = result
        if key not in self._cache:
            raise AssertionError(f"the runner produced no result for {case_id}")
        return self._cache[key]


@pytest.fixture(scope="session")
def case_results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CaseResults]:
    yield CaseResults(tmp_path_factory)


@pytest.fixture(params=BACKTRACE_VALUES, ids=lambda v: f"RUST_BACKTRACE={v}")
def backtrace(request: pytest.FixtureRequest) -> str:
    """Both values of RUST_BACKTRACE, set explicitly for the interpreter that runs the case."""
    return str(request.param)
