"""``errhint demo``: two real-shaped errors, each raised in a fresh Python with ``errhint.install()``.

The point is to show the genuine article: the interpreter's own traceback with errhint's
notes, not a rendering made for the demo. Each scenario is a small script run as a child
process; its output is copied through unchanged. When the binding is importable the
script triggers the real error; otherwise a stand-in raises the exact text the binding
raises (candle-nn 0.4.2 without a Rust backtrace; pyburn 0.1.7's burn 0.18 TensorCheck
panic, as ``pyo3_runtime.PanicException``). Exit 0 when every scenario showed hints.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, List

from errhint.cli._common import EXIT_NOTHING, EXIT_OK, Output, add_command, plural
from errhint.constants import NOTE_MARKER


_PRELUDE = "import errhint\n\nerrhint.install()\n\n"

CANDLE_REAL = _PRELUDE + """import candle

x = candle.Tensor([[1.0, 2.0], [3.0, 4.0]]).to_dtype(candle.i64)  # integer tensor
y = x.matmul(x)  # candle has no integer matmul
"""

CANDLE_STANDIN = _PRELUDE + '''class Tensor:
    """Stand-in for candle.Tensor: raises exactly what candle-nn 0.4.2 raises here."""

    def __init__(self, data, dtype):
        self.data, self.dtype = data, dtype

    def matmul(self, other):
        raise ValueError('UnsupportedDTypeForOp(I64, "matmul")')


x = Tensor([[1, 2], [3, 4]], dtype="i64")  # integer tensor
y = x.matmul(x)  # candle has no integer matmul
'''

BURN_REAL = _PRELUDE + """import pyburn

TensorPy = pyburn.ndarray.ndarray_tensor.TensorPy
a = TensorPy.ones([2, 3], 2)
b = TensorPy.ones([3, 2], 2)
c = a.add(b)  # shapes [2, 3] and [3, 2] do not broadcast
"""

_BURN_REASON = (
    "The provided tensors have incompatible shapes. Incompatible size at dimension '{dim}' => '{sizes}', "
    "which can't be broadcasted. Lhs tensor shape [2, 3], Rhs tensor shape [3, 2]. "
)
BURN_REPORT_LINES = (
    "=== Tensor Operation Error ===",
    "  Operation: 'Add'",
    "  Reason:",
    "    1. " + _BURN_REASON.format(dim=0, sizes="2 != 3"),
    "    2. " + _BURN_REASON.format(dim=1, sizes="3 != 2"),
)
BURN_REPORT = "".join(line + "\n" for line in BURN_REPORT_LINES)
"""str() of the PanicException pyburn 0.1.7 raises for ones([2, 3]).add(ones([3, 2]))."""

BURN_STANDIN = (
    _PRELUDE
    + '''import sys
import types

# pyo3 turns a Rust panic into pyo3_runtime.PanicException (a BaseException)
pyo3_runtime = sys.modules.setdefault("pyo3_runtime", types.ModuleType("pyo3_runtime"))
PanicException = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})
pyo3_runtime.PanicException = PanicException


class TensorPy:
    """Stand-in for pyburn's TensorPy: panics with exactly what pyburn 0.1.7 (burn 0.18) panics with."""

    def __init__(self, shape):
        self.shape = shape

    def add(self, other):
        raise PanicException(
'''
    + "".join(f"            {line + chr(10)!r}\n" for line in BURN_REPORT_LINES)
    + '''        )


a = TensorPy([2, 3])
b = TensorPy([3, 2])
c = a.add(b)  # shapes [2, 3] and [3, 2] do not broadcast
'''
)


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    module: str
    real: str
    standin: str
    binding: str


SCENARIOS = (
    Scenario("candle", "candle: matmul on an integer (I64) tensor", "candle", CANDLE_REAL, CANDLE_STANDIN, "candle-nn 0.4.2"),
    Scenario("burn", "burn: adding tensors whose shapes do not broadcast", "pyburn", BURN_REAL, BURN_STANDIN, "pyburn 0.1.7"),
)


def register(sub: Any) -> None:
    p = add_command(sub, "demo", run, help="show errhint on a real-shaped candle error and a burn panic",
                    description="Run two small scripts, each in a fresh Python with errhint.install(): a candle "
                    "matmul on an I64 tensor and a burn tensor addition with incompatible shapes. The real "
                    "bindings are used when importable, otherwise stand-ins raise the exact same text. "
                    "Exit 0 when every error showed hints, 1 otherwise.")
    p.add_argument("--full", action="store_true", help="full hints instead of brief ones")
    p.add_argument("--simulate", action="store_true", help="always use the stand-ins, even when the bindings are installed")
    p.add_argument("--only", choices=[s.name for s in SCENARIOS], help="run one scenario")


def run(args: argparse.Namespace, out: Output) -> int:
    chosen = [s for s in SCENARIOS if not args.only or s.name == args.only]
    results: List[Dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="errhint-demo-") as tmp:
        for i, sc in enumerate(chosen, 1):
            real = not args.simulate and importlib.util.find_spec(sc.module) is not None
            source = sc.real if real else sc.standin
            script = os.path.join(tmp, f"{sc.name}_demo.py")
            with open(script, "w", encoding="utf-8") as fh:
                fh.write(source)
            proc = subprocess.run(
                [sys.executable, script],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=child_env(color=out.color, full=args.full),
                cwd=tmp,
                timeout=300,
            )
            output = proc.stdout.decode("utf-8", errors="replace")
            # a hint, not errhint's one-line report of its own failure (e.g. a malformed ERRHINT_DATA)
            # (nor a warning about a skipped user dataset line)
            hinted = NOTE_MARKER in output.replace(NOTE_MARKER + " internal error:", "").replace(NOTE_MARKER + " warning:", "")
            results.append(
                {
                    "name": sc.name,
                    "title": sc.title,
                    "real": real,
                    "script": source,
                    "exitCode": proc.returncode,
                    "hinted": hinted,
                    "output": output,
                }
            )
            if not out.json_mode:
                _show(out, i, sc, real, script, source, output, hinted)
    ok = bool(results) and all(r["hinted"] for r in results)
    if out.json_mode:
        out.emit_json({"ok": ok, "scenarios": results})
    else:
        shown = sum(r["hinted"] for r in results)
        verdict = out.style(f"hints shown for {shown} of {plural(len(results), 'error')}", "ok" if ok else "bad")
        out.line(f"errhint demo: {verdict}.")
        if ok:
            out.line("Next: errhint.install() in your program, 'errhint run script.py', or 'errhint explain TEXT'.")
    return EXIT_OK if ok else EXIT_NOTHING


def _show(out: Output, i: int, sc: Scenario, real: bool, script: str, source: str, output: str, hinted: bool) -> None:
    how = f"real {sc.binding}" if real else f"stand-in raising the exact text of {sc.binding}, which is not installed"
    out.heading(f"{i}. {sc.title} ({how})")
    out.line(out.style(f"$ python {os.path.basename(script)}", "key"))
    for ln in source.rstrip("\n").split("\n"):
        out.line(out.style(f"  | {ln}" if ln else "  |", "dim"))
    out.line()
    out.line(output.rstrip("\n"))
    if not hinted:
        out.line(out.style("(no errhint notes in this output)", "bad"))
    out.line()


def child_env(*, color: bool, full: bool) -> Dict[str, str]:
    """The user's environment, plus: errhint importable and enabled, colour as decided here."""
    env = dict(os.environ)
    env["ERRHINT"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(_import_roots() + [p for p in [env.get("PYTHONPATH")] if p])
    env.pop("NO_COLOR", None) if color else env.setdefault("NO_COLOR", "1")
    if color:
        env["FORCE_COLOR"] = "1"
    else:
        env.pop("FORCE_COLOR", None)
    if full:
        env["ERRHINT_VERBOSITY"] = "full"
    return env


def _import_roots() -> List[str]:
    """Folders that make this very errhint (and its data) importable in the child."""
    roots: List[str] = []
    for name in ("errhint", "errhint_data"):
        spec = importlib.util.find_spec(name)
        locations = list(spec.submodule_search_locations or []) if spec else []
        for loc in locations:
            root = os.path.dirname(os.path.abspath(loc))
            if root not in roots:
                roots.append(root)
    return roots
