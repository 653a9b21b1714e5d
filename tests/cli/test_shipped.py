"""The command line on the shipped dataset: real candle/burn texts get hints from the real records."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any, Callable

import pytest
from cli_support import BURN_REPORT, ROOT, child_env, run_module, shipped_cli  # noqa: F401 (fixture)

from errhint import data

pytestmark = pytest.mark.skipif(data.shipped_index() is None, reason="the shipped dataset is not built")

CANDLE_U32 = 'UnsupportedDTypeForOp(U32, "matmul")'
"""What candle-nn 0.4.2 raises for ``candle.Tensor([[1, 2], [3, 4]]).matmul(...)`` (ints make U32)."""


def test_explain_a_real_candle_error(shipped_cli: Callable[..., Any]) -> None:
    doc = shipped_cli("explain", "--json", CANDLE_U32).json()
    best = doc["matches"][0]
    assert best["repo"] == "huggingface/candle"
    assert best["message"] == "unsupported dtype U32 for op matmul"
    assert "0.4.2" in best["record"]["versions"]
    assert best["githubUrl"].startswith("https://github.com/huggingface/candle/blob/")


def test_explain_a_real_burn_panic(shipped_cli: Callable[..., Any]) -> None:
    doc = shipped_cli("explain", "--json", "--type", "PanicException", BURN_REPORT).json()
    best = doc["matches"][0]
    assert best["repo"] == "tracel-ai/burn"
    assert best["errorType"] == "panic"
    assert "incompatible shapes" in best["message"]


def test_scan_a_log_with_both(shipped_cli: Callable[..., Any], tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text(
        "INFO start\n"
        "Traceback (most recent call last):\n"
        '  File "a.py", line 4, in <module>\n'
        f"ValueError: {CANDLE_U32}\n"
        "Traceback (most recent call last):\n"
        '  File "b.py", line 4, in <module>\n'
        f"pyo3_runtime.PanicException: {BURN_REPORT}\n"
        "INFO 2024-05-01 KeyError: 'lr' (handled)\n",
        encoding="utf-8",
    )
    doc = shipped_cli("scan", "--json", str(log)).json()
    assert [(f["line"], f["matches"][0]["repo"]) for f in doc["findings"]] == [
        (2, "huggingface/candle"),
        (5, "tracel-ai/burn"),
    ]


def test_search_show_and_stats_agree_with_the_manifest(shipped_cli: Callable[..., Any]) -> None:
    found = shipped_cli("search", "--json", "--repo", "huggingface/candle", "UnsupportedDTypeForOp").json()
    messages = [r["errorMessage"] for r in found["results"]]
    assert "unsupported dtype {0:?} for op {1}" in messages
    rid = found["results"][messages.index("unsupported dtype {0:?} for op {1}")]["id"]
    shown = shipped_cli("show", rid)
    assert shown.code == 0 and "Error::UnsupportedDTypeForOp (tuple)" in shown.out

    manifest = json.loads((ROOT / "errhint_data" / "manifest.json").read_text(encoding="utf-8"))
    records = sum(v["records"] for k, v in manifest["files"].items() if k.endswith(".jsonl"))
    stats = shipped_cli("stats", "--json").json()
    assert stats["total"] == records
    assert stats["datasetVersion"] == manifest["datasetVersion"]
    assert "0.4.2" in stats["versions"]["huggingface/candle"]
    assert "v0.18.0" in stats["versions"]["tracel-ai/burn"]


@pytest.mark.slow
def test_validate_the_shipped_records(shipped_cli: Callable[..., Any]) -> None:
    res = shipped_cli("validate", str(ROOT / "errhint_data" / "records"))
    assert res.code == 0, res.out[-2000:]


def test_demo_works_with_only_errhint_and_its_data() -> None:
    """The README's first command: stand-ins, shipped data, no test records."""
    proc = run_module("demo", "--simulate", env=child_env(shipped=True))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert "errhint demo: hints shown for 2 of 2 errors." in proc.stdout


@pytest.mark.skipif(importlib.util.find_spec("candle") is None, reason="candle-nn not installed")
def test_run_a_real_candle_program(tmp_path: Path) -> None:
    script = tmp_path / "candle_matmul.py"
    script.write_text("import candle\n\nx = candle.Tensor([[1, 2], [3, 4]])\ny = x.matmul(x)\n", encoding="utf-8")
    proc = run_module("run", str(script), env=child_env(shipped=True, RUST_BACKTRACE="1"))
    assert proc.returncode == 1
    assert 'ValueError: WithBacktrace { inner: UnsupportedDTypeForOp(U32, "matmul")' in proc.stderr
    assert "unsupported dtype U32 for op matmul (huggingface/candle)" in proc.stderr
