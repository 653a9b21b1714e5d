"""Shared helpers for the hooks tests: a test dataset, real-shaped errors, subprocess runs.

Imported by ``tests/hooks/`` (pytest puts ``tests/`` on
``sys.path``). Surface tests run real interpreters with ``sys.executable`` and the real
engine, pointed at a one-record dataset through ``ERRHINT_DATA``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

from engine_support import dtype_for_op_variant

ROOT = Path(__file__).resolve().parents[1]

CANDLE_TEXT = (
    'WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: Backtrace [{ fn: '
    '"candle_core::tensor::Tensor::matmul", file: "./candle-core/src/tensor.rs", line: 1000 }, '
    '{ fn: "candle::PyTensor::matmul", file: "./candle-pyo3/src/lib.rs", line: 640 }, { fn: "_start" }] }'
)
"""What candle-nn 0.4.2 raises for ``matmul`` on I64 tensors with RUST_BACKTRACE=1 (frames shortened)."""

MARK = "cast-before-op-7f3a"
"""Unique text in the test record's first solution: proves the hint came from the dataset."""

HINT_FIX = f"Cast the I64 tensor to F32 before matmul ({MARK})"
"""The first fix as rendered with the captures of CANDLE_TEXT filled in."""


def hint_record() -> Dict[str, Any]:
    """A schemaVersion 2 record for candle's ``Error::UnsupportedDTypeForOp`` variant."""
    return {
        "id": "7f3a00000000beef",
        "repo": "huggingface/candle",
        "slug": "unsupported-dtype-for-op-test",
        "errorCode": None,
        "errorMessage": "unsupported dtype {0:?} for op {1}",
        "messagePattern": r"unsupported dtype (?P<f0>.+?) for op (?P<f1>[^\n]+)",
        "errorType": "exception",
        "errorClass": None,
        "httpStatus": None,
        "severity": "error",
        "filePath": "candle-core/src/error.rs",
        "lineNumber": 30,
        "sourceCode": None,
        "sourceCodeStart": 29,
        "sourceCodeEnd": 30,
        "githubUrl": "https://github.com/huggingface/candle/blob/cd29c7ccd420a840d883361c290ee92d06b9b96c/candle-core/src/error.rs#L29-L30",
        "documentation": "The operation has no kernel for this dtype on this backend.",
        "triggerScenarios": "Calling {f1} on tensors of dtype {f0}.",
        "commonSituations": "Integer tensors created from Python ints reaching a float-only op.",
        "solutions": [f"Cast the {{f0}} tensor to F32 before {{f1}} ({MARK})", "Use a dtype the op supports"],
        "exampleFix": "x = x.to_dtype(candle.f32)",
        "handlingStrategy": "conversion",
        "validationCode": None,
        "typeGuard": None,
        "tryCatchPattern": None,
        "preventionTips": ["Create tensors with an explicit float dtype"],
        "tags": ["dtype"],
        "backgroundTag": "unsupported-dtype",
        "analyzedSha": "cd29c7ccd420a840d883361c290ee92d06b9b96c",
        "analyzedAt": "2026-01-01T00:00:00Z",
        "contentChangedAt": None,
        "schemaVersion": 2,
        "crate": "candle-core",
        "siteKind": "error_variant",
        "versions": ["0.4.2"],
        "variant": dtype_for_op_variant(),
    }


PANIC_TEXT = "not yet implemented: no unary function for u8"
"""What candle-nn 0.4.2 raises (``pyo3_runtime.PanicException``) for ``exp`` on a U8 tensor."""

PANIC_MARK = "unary-u8-panic-7f3a"


def panic_record() -> Dict[str, Any]:
    """A record for candle's ``todo!("no unary function for u8")`` (candle-core/src/op.rs)."""
    rec = hint_record()
    rec.update(
        id="7f3a00000000cafe",
        slug="no-unary-function-for-u8-test",
        errorMessage="no unary function for u8",
        messagePattern="no unary function for u8",
        errorType="panic",
        filePath="candle-core/src/op.rs",
        lineNumber=370,
        sourceCodeStart=368,
        sourceCodeEnd=372,
        githubUrl="https://github.com/huggingface/candle/blob/cd29c7ccd420a840d883361c290ee92d06b9b96c/candle-core/src/op.rs#L368-L372",
        triggerScenarios="Calling a float unary op on a U8 tensor.",
        solutions=[f"Convert the tensor to F32 first ({PANIC_MARK})"],
        siteKind="todo",
        variant=None,
    )
    return rec


PANIC_PRELUDE = (
    "import types as _types\n"
    "_m = sys.modules.setdefault('pyo3_runtime', _types.ModuleType('pyo3_runtime'))\n"
    "class PanicException(BaseException): pass\n"
    "PanicException.__module__ = 'pyo3_runtime'\n"
    "_m.PanicException = PanicException\n"
)
"""Program text defining a ``pyo3_runtime.PanicException`` like pyo3's (a BaseException)."""


@pytest.fixture
def hint_data(tmp_path: Path) -> Path:
    """A JSONL dataset holding ``hint_record()`` and ``panic_record()``, for ``ERRHINT_DATA``."""
    path = tmp_path / "hint_data.jsonl"
    lines = [json.dumps({"record": r, "datasetVersion": "test"}) for r in (hint_record(), panic_record())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def base_env(**extra: str) -> Dict[str, str]:
    """The environment of a child interpreter: errhint importable, no ERRHINT_* leaking in."""
    # CI is dropped too: with CI set, pytest repeats the whole message (notes included) in its
    # short summary, and the child pytest runs must print the same under CI as on a desk.
    dropped = ("NO_COLOR", "FORCE_COLOR", "CI")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT") and k not in dropped}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "src"), str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["RUST_BACKTRACE"] = "1"
    env.update(extra)
    return env


PRELUDE = (
    "import sys, errhint\n"
    f"MSG = {CANDLE_TEXT!r}\n"
    f"PANIC = {PANIC_TEXT!r}\n"
)
"""Defines ``MSG`` in every test program, so line numbers stay comparable across variants."""


class Runner:
    """Writes a program to a file and runs it in a fresh interpreter."""

    def __init__(self, tmp_path: Path, data: Path):
        self.tmp_path = tmp_path
        self.data = data
        self.count = 0

    def __call__(
        self,
        code: str,
        *,
        env: Optional[Dict[str, str]] = None,
        python: str = sys.executable,
        args: Optional[List[str]] = None,
        data: bool = True,
        prelude: bool = True,
        timeout: float = 120,
        name: Optional[str] = None,
    ) -> subprocess.CompletedProcess:
        self.count += 1
        digest = hashlib.sha1(code.encode("utf-8")).hexdigest()[:8]
        script = self.tmp_path / (name or f"prog_{digest}.py")  # same code, same path: outputs compare
        script.write_text((PRELUDE if prelude else "") + textwrap.dedent(code), encoding="utf-8")
        extra = {"ERRHINT_DATA": str(self.data)} if data else {}
        extra.update(env or {})
        return subprocess.run(
            [python, str(script), *(args or [])],
            capture_output=True,
            text=True,
            env=base_env(**extra),
            timeout=timeout,
            cwd=str(self.tmp_path),
        )


@pytest.fixture
def run(tmp_path: Path, hint_data: Path) -> Runner:
    return Runner(tmp_path, hint_data)


def normalise(text: str) -> str:
    """Remove what differs between two runs of the same program (object addresses)."""
    return re.sub(r"0x[0-9a-fA-F]+", "0xADDR", text)


def added_lines(with_errhint: str, without: str) -> List[str]:
    """The lines errhint added: ``without`` must be an in-order subsequence of ``with_errhint``
    and the added lines one contiguous block; anything else fails the test."""
    a, b = normalise(with_errhint).splitlines(), normalise(without).splitlines()
    i = 0
    while i < len(b) and i < len(a) and a[i] == b[i]:
        i += 1
    j = 0
    while j < len(b) - i and j < len(a) - i and a[len(a) - 1 - j] == b[len(b) - 1 - j]:
        j += 1
    block = a[i : len(a) - j]
    assert a[:i] + a[len(a) - j :] == b, f"errhint changed the original output:\n{with_errhint}\n---\n{without}"
    return block


def internal_error_lines(stderr: str) -> List[str]:
    return [line for line in stderr.splitlines() if line.startswith("errhint: internal error")]


def without_internal_errors(stderr: str) -> str:
    return "".join(line for line in stderr.splitlines(keepends=True) if not line.startswith("errhint: internal error"))


def assert_hinted(stream: str, times: int = 1) -> None:
    """The hint from the test dataset is present exactly ``times`` times."""
    assert stream.count(MARK) == times, stream


class FakeMatch:
    """Stands in for ``errhint.match.Match`` in in-process unit tests."""

    def __init__(self, message: str):
        self.message = message
        self.score = 0.9


@pytest.fixture
def fake_engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[List[Any]]:
    """In-process: the hooks see a fake engine that matches texts containing ``UnsupportedDTypeForOp``.

    Yields the list of (exception, options) lookups made, so tests can count them.
    """
    from errhint import config
    from errhint.hooks import _notes

    calls: List[Any] = []

    def compute(exc: BaseException, **overrides: Any) -> List[Any]:
        calls.append((exc, overrides))
        texts = []
        for cur in _notes.chain(exc):
            texts.append(str(cur))
        return [FakeMatch("unsupported dtype I64 for op matmul")] if any("UnsupportedDTypeForOp" in t for t in texts) else []

    def render(matches: List[Any], **overrides: Any) -> List[str]:
        verbosity = config.merged(**overrides).verbosity
        return [f"errhint: {m.message}\n  fix: {HINT_FIX} [{verbosity}]" for m in matches]

    monkeypatch.setattr(_notes, "compute", compute)
    monkeypatch.setattr(_notes, "render", render)
    for var in ("ERRHINT", "ERRHINT_DEBUG", "ERRHINT_VERBOSITY", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)
    config.reset()
    yield calls
    config.reset()


def install_from_threads(count: int = 8) -> None:
    """``errhint.install()`` from ``count`` threads released together, to race the installs."""
    import errhint

    barrier = threading.Barrier(count)

    def go() -> None:
        barrier.wait()
        errhint.install()

    threads = [threading.Thread(target=go) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def candle_error(cls: type = ValueError) -> BaseException:
    """A raised-and-caught candle-shaped error with a real traceback."""
    try:
        raise cls(CANDLE_TEXT)
    except BaseException as exc:  # noqa: B902
        return exc


class PanicException(BaseException):
    """Shaped like ``pyo3_runtime.PanicException``: a BaseException, not an Exception."""


PanicException.__module__ = "pyo3_runtime"
