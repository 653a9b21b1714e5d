"""Run every ``advice_cases`` case in this interpreter and print one JSON line per case.

Each script is written to a file (so its source is readable, as a user's is), run with
``runpy``; the exception goes to ``errhint.lookup``; the top match's ``fix_code`` is executed in
the failing frame's namespace.  Usage: ``python advice_runner.py DIR``.
"""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import errhint

from advice_cases import CASES

MARKER = "@@advice@@ "


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
