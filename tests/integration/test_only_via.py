"""Records ``onlyVia`` a binding method: a generic Rust panic text (an index out of bounds in
burn-ndarray, the ndarray crate's axis assertion) gets its hint only when the failing statement
is that pyburn method call, and never as a text.

Each script runs in a fresh interpreter under ``RUST_BACKTRACE=0`` and ``1`` (the ``backtrace``
fixture), so the panic and the traceback are the ones a user sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import errhint
import pytest
from _site import require_binding

require_binding("pyburn")

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

REPORT = """
import json, errhint
try:
    {statement}
except BaseException as exc:
    got = errhint.lookup(exc)
    print("@@" + json.dumps({{"error": str(exc), "matches": [
        {{"id": m.id, "cause": m.advice_cause, "code": m.fix_code,
          "file": (m.site or {{}}).get("file") or m.record.file_path}} for m in got]}}))
"""


def _run(tmp_path: Path, backtrace: str, setup: str, statement: str) -> dict:
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(setup) + REPORT.format(statement=statement))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT")}
    env.update(RUST_BACKTRACE=backtrace, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("@@"))
    return json.loads(line[2:])


SETUP = """
import pyburn
TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
x = TensorPy.ones({shape}, {rank})
"""


@pytest.mark.parametrize("shape, method, dim, site", [
    ([4, 9], "mean_dim", 2, "burn-ndarray/src/ops/macros.rs"),
    ([3, 2, 8], "mean_dim", 3, "burn-ndarray/src/ops/macros.rs"),
    ([6, 5, 4], "sum_dim", 3, "burn-ndarray/src/ops/macros.rs"),
    ([7, 3], "prod_dim", 2, "burn-ndarray/src/ops/macros.rs"),
])
def test_an_axis_equal_to_the_rank_gets_the_valid_range_and_a_fix(
        tmp_path: Path, backtrace: str, shape: list, method: str, dim: int, site: str) -> None:
    rank = len(shape)
    got = _run(tmp_path, backtrace, SETUP.format(shape=shape, rank=rank), f"y = x.{method}({dim})")
    assert got["matches"], got
    top = got["matches"][0]
    assert f"Axis {dim} does not exist" in top["cause"] and f"valid axes are 0 to {rank - 1}" in top["cause"]
    assert top["code"] == f"y = x.{method}({rank - 1})"
    assert site in top["file"]


def test_all_dim_beyond_the_rank_points_at_burn_tensors_default(tmp_path: Path, backtrace: str) -> None:
    got = _run(tmp_path, backtrace, SETUP.format(shape=[2, 5, 3], rank=3) + "flags = x.is_nan()\n",
               "ok = flags.all_dim(7)")
    top = got["matches"][0]
    assert got["error"] == "index out of bounds: the len is 3 but the index is 7"
    assert "valid axes are 0 to 2" in top["cause"] and top["code"] == "ok = flags.all_dim(2)"
    assert top["file"].endswith("burn-tensor/src/tensor/ops/bool_tensor.rs")


def test_the_same_panic_from_another_call_gets_no_hint(tmp_path: Path, backtrace: str) -> None:
    """A PanicException with the same text, raised by something that is not a pyburn tensor."""
    setup = """
    import pyburn

    try:  # pyo3's PanicException class (its module cannot be imported)
        pyburn.ndarray.ndarray_tensor.TensorPy.ones([2], 1).mean_dim(1)
    except BaseException as panic:
        PanicException = type(panic)

    class Table:
        def mean_dim(self, dim):
            raise PanicException("index out of bounds: the len is 2 but the index is 2")

    x = Table()
    """
    assert _run(tmp_path, backtrace, setup, "y = x.mean_dim(2)")["matches"] == []


@pytest.mark.parametrize("text", [
    "index out of bounds: the len is 2 but the index is 2",
    "assertion failed: axis.index() < self.ndim()",
    "thread 'main' panicked at src/main.rs:4:5:\nindex out of bounds: the len is 3 but the index is 5",
])
def test_as_a_text_it_gets_no_hint(text: str) -> None:
    assert errhint.explain(text) == []
    assert errhint.lookup(RuntimeError(text)) == []
