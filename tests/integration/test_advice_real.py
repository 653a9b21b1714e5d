"""Computed advice on real errors of candle-nn 0.4.2 and pyburn 0.1.7 (``advice_cases.py``).

Every case runs in a fresh interpreter per RUST_BACKTRACE value (Rust caches it per process).
For each: the top match's computed cause/fix hold the case's own sizes, the fix code is the
expected rewrite and runs in the failing frame's namespace, and every function or method a
Python fix names (fix code and the code spans of the advice text) exists in the installed
binding.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable

import pytest

from advice_cases import CASES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MARKER = "@@advice@@ "
EXPECTED = {case_id: (code, words) for case_id, _, code, words in CASES}


def _run(backtrace: str, tmp: Path) -> Dict[str, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT")}
    env["RUST_BACKTRACE"] = backtrace
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(HERE)])
    proc = subprocess.run([sys.executable, str(HERE / "advice_runner.py"), str(tmp)], env=env,
                          capture_output=True, text=True, timeout=600)
    out = {}
    for line in proc.stdout.splitlines():
        if line.startswith(MARKER):
            rec = json.loads(line[len(MARKER):])
            out[rec["id"]] = rec
    assert out, proc.stderr[-2000:]
    return out


@pytest.fixture(scope="module", params=["0", "1"], ids=["RUST_BACKTRACE=0", "RUST_BACKTRACE=1"])
def results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, dict]:
    pytest.importorskip("candle")
    pytest.importorskip("pyburn")
    return _run(request.param, tmp_path_factory.mktemp(f"advice{request.param}"))


def spans(text: str) -> Iterable[str]:
    return re.findall(r"`([^`]+)`", text or "")


@pytest.mark.parametrize("case_id", [c[0] for c in CASES])
def test_advice_uses_the_errors_values_and_its_fix_runs(results: Dict[str, dict], case_id: str) -> None:
    got = results[case_id]
    code, words = EXPECTED[case_id]
    assert got["raised"], got
    assert got["count"] >= 1, got
    text = f"{got['cause']} {got['fix']}"
    for word in words:
        assert word in text, (word, text)
    assert got["code"] == code, got
    if code is not None:
        assert got["fix_ran"] is True, got
        assert code.splitlines()[-1] in got["rendered"]  # shown as the fix's code line
    assert got["language"] == "python"


@pytest.mark.parametrize("case_id", [c[0] for c in CASES])
def test_python_fixes_name_only_what_the_binding_has(results: Dict[str, dict], case_id: str) -> None:
    """The fix code and the code spans of the computed text (checked by the runner against
    the failing frame's names and the bindings' tensor methods)."""
    assert results[case_id].get("unknown") == {}, results[case_id]


def test_the_introspection_check_can_fail() -> None:
    pytest.importorskip("candle")
    pytest.importorskip("pyburn")
    import candle
    import candle.nn  # noqa: F401

    from advice_runner import unknown_names

    assert unknown_names("y = x.float()", {"x": candle.randn((2,))}) == ["float"]
    assert unknown_names("y = candle.nn.Dense(3, 4)", {"candle": candle}) == ["Dense"]
    assert unknown_names("y = candle.nn.Linear(3, 4)", {"candle": candle}) == []
    assert unknown_names("c = a.add(b.swap_dims(0, 1))", {}) == ["swap_dims"]


def test_the_site_is_the_check_that_fired(results: Dict[str, dict]) -> None:
    assert results["matmul-transpose-rhs"]["url"].endswith("tensor.rs#L1522")  # inner-dimension check
    assert results["matmul-vector"]["url"].endswith("tensor.rs#L1502")  # rank check
    assert results["narrow-len"]["url"].endswith("tensor.rs#L883")  # Tensor::narrow, before Layout::narrow
    # unary_op!'s two arms: sqrt has vectorised kernels (second arm), recip not (first arm)
    assert results["dtype-unary-sqrt"]["url"].endswith("op.rs#L540")
    assert results["dtype-unary-recip"]["url"].endswith("op.rs#L492")


def test_values_are_typed(results: Dict[str, dict]) -> None:
    assert results["matmul-transpose-rhs"]["values"] == {"op": "matmul", "lhs": [5, 7], "rhs": [6, 7]}
    assert results["matmul-u32"]["values"]["dtype"] == "U32" and results["matmul-u32"]["values"]["op"] == "matmul"
