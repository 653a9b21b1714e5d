"""Run every ``advice_cases`` case in this interpreter and print one JSON line per case.

Each script is written to a file (so its source is readable, as a user's is), run with
``runpy``; the exception goes to ``errhint.lookup``; the top match's ``fix_code`` is executed in
the failing frame's namespace.  Usage: ``python advice_runner.py DIR``.
"""

from __future__ import annotations

import ast
import json
import re
import runpy
import sys
from pathlib import Path
from typing import Dict, List

import errhint

from advice_cases import CASES

MARKER = "@@advice@@ "


def _method_names() -> set:
    """Every method of the bindings' tensor types (candle.Tensor, pyburn's TensorPy kinds)."""
    import candle
    import pyburn

    tensor_py = pyburn.ndarray.ndarray_tensor.TensorPy
    return set(dir(candle.Tensor)) | set(dir(tensor_py)) | set(dir(tensor_py.ones([1], 1)))


def unknown_names(code: str, namespace: Dict[str, object]) -> List[str]:
    """Attributes a Python snippet names that do not exist: a chain rooted at a name of the
    failing frame (``candle.nn.Linear``, ``nn.conv.Conv2dPy``) is resolved with getattr; any
    other attribute (a method on a tensor expression) must be a method of a binding tensor type."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return [f"not Python: {code}"]
    methods = _method_names()
    missing = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain, base = [node.attr], node.value
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name) and (base.id in namespace or base.id == "candle"):
            import candle

            obj = namespace.get(base.id, candle)
            for attr in reversed(chain):
                if not hasattr(obj, attr):
                    if not hasattr(obj, "shape") and not hasattr(obj, "dims"):
                        missing.append(attr)
                    elif attr not in methods:
                        missing.append(attr)
                    break
                obj = getattr(obj, attr)
        elif node.attr not in methods:
            missing.append(node.attr)
    return list(dict.fromkeys(missing))


def run(case_id: str, script: str, folder: Path) -> dict:
    path = folder / f"{case_id.replace('-', '_')}.py"
    path.write_text(script + "\n", encoding="utf-8")
    out = {"id": case_id}
    try:
        runpy.run_path(str(path), run_name="__main__")
        out["raised"] = False
        return out
    except BaseException as exc:  # pyo3's PanicException is a BaseException
        out["raised"] = type(exc).__name__
        matches = errhint.lookup(exc)
        out["count"] = len(matches)
        if not matches:
            return out
        m = matches[0]
        out.update(message=m.message, cause=m.advice_cause, fix=m.advice_fix, code=m.fix_code,
                   language=m.fix_language, values=dict(m.values), url=m.github_url,
                   rendered=m.render("brief"))
        frame, tb = None, exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == str(path):
                frame = tb.tb_frame
            tb = tb.tb_next
        if frame is not None:
            names = dict(frame.f_globals)
            snippets = [m.fix_code] if m.fix_code else []
            snippets += [t for t in re.findall(r"`([^`]+)`", f"{m.advice_cause} {m.advice_fix}") if "(" in t or "." in t]
            out["unknown"] = {t: unknown_names(t, names) for t in snippets if unknown_names(t, names)}
        if m.fix_code and frame is not None:
            namespace = dict(frame.f_globals)
            try:
                exec(m.fix_code, namespace)
                out["fix_ran"] = True
                target = script.strip().splitlines()[-1].split("=", 1)[0].strip()
                value = namespace.get(target)
                shape = getattr(value, "shape", None)
                out["result_shape"] = list(shape) if isinstance(shape, tuple) else None
            except BaseException as err:
                out["fix_ran"] = f"{type(err).__name__}: {str(err)[:200]}"
        return out


def main() -> None:
    folder = Path(sys.argv[1])
    for case_id, script, _, _ in CASES:
        print(MARKER + json.dumps(run(case_id, script, folder)), flush=True)


if __name__ == "__main__":
    main()
