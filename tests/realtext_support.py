"""Real error texts of the bindings, as a program's stderr shows them, for scan logs and benchmarks.

``real_error_texts(rust_backtrace)`` runs one child interpreter that performs each failing
binding call below and prints the failure exactly as an uncaught exception would print it
(``traceback.print_exc``), after whatever the binding printed on stderr itself (a Rust
panic's ``thread '<unnamed>' panicked at ...`` lines and, with ``RUST_BACKTRACE=1``, its
``stack backtrace:`` block). Nothing here is hand-written error text: every text is what
candle-nn 0.4.2 or pyburn 0.1.7 produced on this machine.

Returns ``{}`` when a binding is not importable (the tests that need them skip).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache
from typing import Dict, Tuple

# (name, binding, statement that fails); candle's errors are ValueErrors, pyburn's are panics
CALLS: Tuple[Tuple[str, str, str], ...] = (
    ("candle-matmul-i64", "candle", "c.ones((2, 3), dtype=c.i64).matmul(c.ones((3, 2), dtype=c.i64))"),
    ("candle-matmul-shape", "candle", "c.ones((2, 3)).matmul(c.ones((4, 2)))"),
    ("candle-add-shape", "candle", "c.ones((2, 3)) + c.ones((4, 5))"),
    ("candle-reshape", "candle", "c.ones((2, 3)).reshape((4, 5))"),
    ("candle-narrow", "candle", "c.ones((2, 3)).narrow(1, 1, 5)"),
    ("candle-cat-dtype", "candle", "c.cat([c.ones((2, 3)), c.ones((2, 3), dtype=c.f64)], 0)"),
    ("candle-transpose-dim", "candle", "c.ones((2, 3)).transpose(0, 5)"),
    ("candle-sqrt-u32", "candle", "c.ones((2, 3), dtype=c.u32).sqrt()"),
    ("burn-add-shape", "pyburn", "T.ones([2, 3], 2).add(T.ones([3, 2], 2))"),
    ("burn-add-rank", "pyburn", "T.ones([2, 3], 2).add(T.ones([4], 1))"),
    ("burn-ones-rank", "pyburn", "T.ones([2, 3], 3)"),
    ("burn-sum-dim", "pyburn", "T.ones([2, 3], 2).sum_dim(5)"),
    ("burn-linear-features", "pyburn", "nn.LinearPy(4, 3).forward(T.ones([2, 5], 2))"),
    ("burn-conv2d-channels", "pyburn", "nn.conv.Conv2dPy([4, 6], [3, 3]).forward(T.ones([1, 3, 8, 8], 4))"),
)

_CHILD = r"""
import json, sys, traceback
names = json.loads(sys.argv[1])
try:
    import candle as c
except Exception:
    c = None
try:
    import pyburn
    T = pyburn.ndarray.ndarray_tensor.TensorPy
    nn = pyburn.ndarray.ndarray_nn
except Exception:
    pyburn = None
for name, binding, stmt in names:
    if (binding == "candle" and c is None) or (binding == "pyburn" and pyburn is None):
        continue
    sys.stderr.write("\x00START " + name + "\n"); sys.stderr.flush()
    try:
        exec(stmt)
    except BaseException:
        traceback.print_exc()
    sys.stderr.flush()
    sys.stderr.write("\x00END\n"); sys.stderr.flush()
"""


@lru_cache(maxsize=None)
def real_error_texts(rust_backtrace: str) -> Dict[str, str]:
    """{name: stderr text of that failing call}, with RUST_BACKTRACE set to ``rust_backtrace``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT")}
    env["RUST_BACKTRACE"] = rust_backtrace
    env["ERRHINT"] = "0"
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(CALLS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    out: Dict[str, str] = {}
    for part in proc.stderr.split("\x00START ")[1:]:
        name, _, rest = part.partition("\n")
        text, _, _ = rest.partition("\x00END\n")
        out[name] = text
    return out
