"""Shared helpers for ``tests/cli/``: a small test dataset and an in-process CLI runner.

The records are written to the schema for three real errors (candle-nn 0.4.2's
``UnsupportedDTypeForOp`` and ``ShapeMismatchBinaryOp`` variants, burn 0.18's broadcast
TensorCheck). Each solution carries a unique mark so a test can prove the hint came from
this dataset and not from the shipped one.
"""

from __future__ import annotations

import atexit
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

from engine_support import dtype_for_op_variant, variant

ROOT = Path(__file__).resolve().parents[1]
SHA_CANDLE = "cd29c7ccd420a840d883361c290ee92d06b9b96c"
SHA_BURN = "f5d889d29c33f51fdfe8786daa758d278082a565"

DTYPE_ID = "c11000000000d7e1"
SHAPE_ID = "c11000000000b1a5"
BURN_ID = "c11000000000b0a1"
DTYPE_MARK = "cli-dtype-mark"
SHAPE_MARK = "cli-shape-mark"
BURN_MARK = "cli-burn-mark"

CANDLE_DTYPE = 'UnsupportedDTypeForOp(I64, "matmul")'
"""candle-nn 0.4.2: ``matmul`` on I64 tensors, RUST_BACKTRACE unset (the ValueError's text)."""

CANDLE_DTYPE_BT = (
    'WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: Backtrace [{ fn: '
    '"candle_core::tensor::Tensor::matmul", file: "./candle-core/src/tensor.rs", line: 1000 }, '
    '{ fn: "_start" }] }'
)
"""The same with RUST_BACKTRACE=1 (frames shortened)."""

CANDLE_SHAPE = 'ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [2, 3], op: "matmul" }'

BURN_REPORT = (
    "=== Tensor Operation Error ===\n"
    "  Operation: 'Add'\n"
    "  Reason:\n"
    "    1. The provided tensors have incompatible shapes. Incompatible size at dimension '0' => '2 != 3', "
    "which can't be broadcasted. Lhs tensor shape [2, 3], Rhs tensor shape [3, 2]. \n"
    "    2. The provided tensors have incompatible shapes. Incompatible size at dimension '1' => '3 != 2', "
    "which can't be broadcasted. Lhs tensor shape [2, 3], Rhs tensor shape [3, 2]. \n"
)
"""str() of pyburn 0.1.7's PanicException for ``ones([2, 3]).add(ones([3, 2]))``."""


def _base(**kw: Any) -> Dict[str, Any]:
    rec: Dict[str, Any] = {
        "repo": "huggingface/candle",
        "errorCode": None,
        "errorType": "exception",
        "errorClass": None,
        "httpStatus": None,
        "severity": "error",
        "sourceCode": None,
        "validationCode": None,
        "typeGuard": None,
        "tryCatchPattern": None,
        "analyzedSha": SHA_CANDLE,
        "analyzedAt": "2024-03-31T00:00:00Z",
        "contentChangedAt": None,
        "schemaVersion": 2,
        "crate": "candle-core",
    }
    rec.update(kw)
    return rec


def dtype_record() -> Dict[str, Any]:
    return _base(
        id=DTYPE_ID,
        slug="unsupported-dtype-for-op-cli",
        errorMessage="unsupported dtype {0:?} for op {1}",
        messagePattern=r"unsupported dtype (?P<f0>.+?) for op (?P<f1>[^\n]+)",
        filePath="candle-core/src/error.rs",
        lineNumber=30,
        sourceCodeStart=29,
        sourceCodeEnd=30,
        githubUrl=f"https://github.com/huggingface/candle/blob/{SHA_CANDLE}/candle-core/src/error.rs#L29-L30",
        documentation="No kernel exists for this dtype and operation on the selected backend.",
        triggerScenarios="Calling {f1} on {f0} tensors.",
        commonSituations="Integer tensors built from Python ints reaching a float-only operation.",
        solutions=[f"Cast the {{f0}} tensor to F32 before {{f1}} ({DTYPE_MARK})", "Pick a dtype the op supports"],
        exampleFix="x = x.to_dtype(candle.f32)",
        handlingStrategy="conversion",
        preventionTips=["Create tensors with an explicit float dtype"],
        tags=["dtype", "matmul"],
        backgroundTag="unsupported-dtype-for-op",
        siteKind="error_variant",
        versions=["0.4.2", "0.6.0"],
        variant=dtype_for_op_variant(),
    )


def shape_record() -> Dict[str, Any]:
    return _base(
        id=SHAPE_ID,
        slug="shape-mismatch-binary-op-cli",
        errorMessage="shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}",
        messagePattern=r"shape mismatch in (?P<op>.+?), lhs: (?P<lhs>.+?), rhs: (?P<rhs>[^\n]+)",
        filePath="candle-core/src/error.rs",
        lineNumber=68,
        sourceCodeStart=67,
        sourceCodeEnd=72,
        githubUrl=f"https://github.com/huggingface/candle/blob/{SHA_CANDLE}/candle-core/src/error.rs#L67-L72",
        documentation="The two operands of a binary operation have shapes the operation cannot combine.",
        triggerScenarios="Calling {op} with a left operand of shape {lhs} and a right operand of shape {rhs}.",
        commonSituations="A transposed weight matrix, or a batch dimension missing on one side.",
        solutions=[f"Make the inner dimensions of {{lhs}} and {{rhs}} agree ({SHAPE_MARK})"],
        exampleFix="y = x.matmul(w.t())",
        handlingStrategy="fix-input",
        preventionTips=["Print both shapes before the call while debugging"],
        tags=["shape", "matmul"],
        backgroundTag="shape-mismatch-binary-op",
        siteKind="error_variant",
        versions=["0.4.2"],
        variant=variant(
            "Error", "ShapeMismatchBinaryOp", "struct", [("lhs", True), ("rhs", True), ("op", False)],
            "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}",
        ),
    )


def burn_record() -> Dict[str, Any]:
    return _base(
        id=BURN_ID,
        repo="tracel-ai/burn",
        slug="incompatible-shapes-broadcast-cli",
        errorMessage="The provided tensors have incompatible shapes.",
        messagePattern=(
            r"The provided tensors have incompatible shapes\.(?: Incompatible size at dimension '(?P<arg0>.+?)' "
            r"=> '(?P<arg1>.+?) != (?P<arg2>.+?)', which can't be broadcasted\. Lhs tensor shape (?P<arg3>.+?), "
            r"Rhs tensor shape (?P<arg4>[^\n]+?)\.)?"
        ),
        errorType="panic",
        filePath="crates/burn-tensor/src/tensor/api/check.rs",
        lineNumber=1124,
        sourceCodeStart=1122,
        sourceCodeEnd=1131,
        githubUrl=f"https://github.com/tracel-ai/burn/blob/{SHA_BURN}/crates/burn-tensor/src/tensor/api/check.rs#L1122-L1131",
        analyzedSha=SHA_BURN,
        documentation="An element-wise operation got two tensors whose shapes do not broadcast.",
        triggerScenarios="Adding a tensor of shape {arg3} to one of shape {arg4}.",
        commonSituations="A transposed operand, or a reshape that swapped two dimensions.",
        solutions=[f"Reshape or transpose one operand so {{arg3}} and {{arg4}} broadcast ({BURN_MARK})"],
        exampleFix="c = a.add(b.transpose())",
        handlingStrategy="fix-input",
        preventionTips=["Keep a comment with the expected shape next to each tensor"],
        tags=["shape", "broadcast"],
        backgroundTag="broadcast",
        crate="burn-tensor",
        siteKind="tensor_check",
        versions=["v0.16.0", "v0.18.0"],
    )


def records() -> List[Dict[str, Any]]:
    return [dtype_record(), shape_record(), burn_record()]


def write_dataset(path: Path, recs: Optional[List[Dict[str, Any]]] = None) -> Path:
    path.write_text(
        "".join(json.dumps({"record": r, "datasetVersion": "cli-test"}) + "\n" for r in (recs or records())),
        encoding="utf-8",
    )
    return path


@pytest.fixture
def cli_data(tmp_path: Path) -> Path:
    """A JSONL file with the three test records."""
    return write_dataset(tmp_path / "cli_records.jsonl")


def _empty_data_root() -> str:
    """A folder holding an empty ``errhint_data`` package, to hide the shipped dataset from children."""
    root = tempfile.mkdtemp(prefix="errhint-cli-nodata-")
    os.makedirs(os.path.join(root, "errhint_data"))
    open(os.path.join(root, "errhint_data", "__init__.py"), "w").close()
    atexit.register(shutil.rmtree, root, True)
    return root


NO_SHIPPED_ROOT = _empty_data_root()


def hide_shipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hide the shipped dataset in this process: only the test records count.

    The CLI tests check behaviour against the three records above; the shipped records
    (which also explain these errors) are exercised in ``tests/cli/test_shipped.py``.
    """
    from errhint import data

    def missing(*_: Any, **__: Any) -> Any:
        raise FileNotFoundError("shipped dataset hidden by the test")

    monkeypatch.setattr(data, "shipped_index", lambda: None)
    monkeypatch.setattr(data, "shipped_sources", missing)
    monkeypatch.setattr(data, "shipped_manifest", missing)
    monkeypatch.setattr(data, "shipped_families", lambda: {})


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def shipped_cli(clean_errhint: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> Callable[..., Result]:
    """Like ``cli`` but with the shipped dataset visible."""

    def run(*argv: str, stdin: Optional[str] = None) -> Result:
        from errhint.cli import main

        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def cli(clean_errhint: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> Callable[..., Result]:
    """Run ``errhint.cli.main(argv)`` in this process, shipped dataset hidden; ``stdin=`` feeds stdin."""
    hide_shipped(monkeypatch)

    def run(*argv: str, stdin: Optional[str] = None) -> Result:
        from errhint.cli import main

        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def child_env(*, shipped: bool = False, **extra: str) -> Dict[str, str]:
    """Environment for a child ``errhint``: importable from the checkout, no ERRHINT_*/colour leaking in.

    The shipped dataset is hidden unless ``shipped=True`` (an empty ``errhint_data`` package
    comes first on the path), so only ``ERRHINT_DATA``/``--data`` records count.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT") and k not in ("NO_COLOR", "FORCE_COLOR")}
    if os.environ.get("ERRHINT_CACHE_DIR"):  # the test run's private dataset cache
        env["ERRHINT_CACHE_DIR"] = os.environ["ERRHINT_CACHE_DIR"]
    first = [] if shipped else [NO_SHIPPED_ROOT]
    env["PYTHONPATH"] = os.pathsep.join(first + [str(ROOT / "src"), str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def run_module(*argv: str, env: Optional[Dict[str, str]] = None, stdin: Optional[str] = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -m errhint ARGV`` in a fresh interpreter.

    It runs outside the checkout: ``-m`` puts the working directory first on ``sys.path``,
    and the checkout's own ``errhint_data`` would otherwise win over the path set in ``env``.
    """
    return subprocess.run(
        [sys.executable, "-m", "errhint", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env or child_env(),
        timeout=timeout,
        cwd=tempfile.gettempdir(),
    )
