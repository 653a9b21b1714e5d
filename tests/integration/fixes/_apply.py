"""Run one fix script, look up its error, apply the hint's fix code, and report JSON.

``python _apply.py SCRIPT`` (RUST_BACKTRACE set by the caller: Rust reads it once per process).
The script's source is compiled with its real path as filename and run as ``__main__`` in a
fresh namespace; its exception is caught (pyo3's PanicException is a BaseException) and given
to ``errhint.lookup``. The top match's ``fix_code`` is executed with ``exec`` in the namespace of
the innermost traceback frame whose file is the script. One line ``@@fix@@ {json}`` goes to
stdout (pyburn prints there too, hence the marker) with:

``script``, ``binding``; ``raised``, ``exc_type``, ``error`` (backtrace cut), ``line`` (failing
line) and ``last_statement`` (whether that line is the script's last top-level statement);
``record_id``, ``template``, ``repo``, ``message``, ``captures``, ``cause``, ``fix``,
``fix_code``, ``fix_language``, ``lookup_error``; ``fix_ok`` and ``fix_error``: the fix ran, bound
the failing statement's targets and rebound no other name (a fix that "repairs" the inputs
is not a rewrite of the statement); ``foreign_numbers``: integers in cause/fix/fix_code that
are not the user's (``_values``); ``distinctive``, ``values_shown`` (in message, cause, fix) and
``advice_values`` (in cause and fix only); ``unknown_api`` (names in fix code or in the hint's
Python code spans that the binding lacks, ``_api``) and ``rust_spans`` (Rust code in a hint
given to a Python caller), each entry prefixed with where it is: ``fix_code``, ``message``,
``cause``, ``fix`` or ``solutions[i]``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _api  # noqa: E402
import _values  # noqa: E402

MARKER = "@@fix@@ "
_PANIC_AT = re.compile(r"panicked at (\S+?):(\d+):\d+:")


class _Stderr:
    """Redirect fd 2 (Rust writes panics there) into a temporary file while a block runs."""

    def __enter__(self) -> "_Stderr":
        self.file = tempfile.TemporaryFile()
        sys.stderr.flush()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc: Any) -> None:
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", "replace")
        self.file.close()


def _script_frame(tb: Optional[TracebackType], path: str) -> Optional[TracebackType]:
    """The innermost traceback entry whose code lives in the script."""
    found = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            found = tb
        tb = tb.tb_next
    return found


def _targets(tree: ast.Module, line: int) -> tuple:
    """(names the failing statement assigns, whether it is the last top-level statement)."""
    body = tree.body
    for i, stmt in enumerate(body):
        if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            names: List[str] = []
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
            for target in targets:
                if target is not None:
                    names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
            return names, i == len(body) - 1
    return [], False


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _describe(match: Any) -> Dict[str, Any]:
    data = match.to_dict()
    hint = data.get("hint") or {}
    return {
        "record_id": data["id"],
        "template": match.record.error_message,
        "repo": data["repo"],
        "score": data["score"],
        "message": data["message"],
        "captures": _plain(data["captures"]),
        "cause": hint.get("cause") or "",
        "fix": hint.get("fix") or "",
        "solutions": list(hint.get("solutions") or []),
        "fix_code": getattr(match, "fix_code", None),
        "fix_language": getattr(match, "fix_language", None),
    }


def _apply_fix(code: str, frame: FrameType, targets: List[str]) -> Optional[str]:
    """Run ``code`` in the frame's namespace; None when it ran and did what a rewrite must do:
    bind (or rebind) the failing statement's targets and leave every other name as it was."""
    namespace = frame.f_locals
    before = {name: id(value) for name, value in namespace.items()}
    try:
        with _Stderr():
            exec(compile(code, "<errhint fix_code>", "exec"), frame.f_globals, namespace)
    except BaseException as err:  # PanicException too
        return f"{type(err).__name__}: {_values.clean_error(str(err))[:400]}"
    unbound = [name for name in targets if name not in namespace or id(namespace[name]) == before.get(name)]
    if unbound:
        return f"the fix did not bind {unbound}"
    rebound = sorted(n for n, i in before.items() if n in namespace and id(namespace[n]) != i and n not in targets)
    if rebound:
        return f"the fix rebound {rebound}, not only the statement's targets"
    return None


def run(path: str) -> Dict[str, Any]:
    path = str(Path(path).resolve())
    source = Path(path).read_text()
    binding = "pyburn" if re.search(r"^\s*(?:import|from)\s+pyburn\b", source, re.M) else "candle"
    code = _values.code_only(source)
    result: Dict[str, Any] = {"script": Path(path).name, "binding": binding}
    namespace: Dict[str, Any] = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
    exc: Optional[BaseException] = None
    with _Stderr() as err:
        try:
            exec(compile(source, path, "exec"), namespace)
        except BaseException as caught:
            exc = caught
    result["panic_at"] = [f"{f}:{n}" for f, n in _PANIC_AT.findall(err.text)]
    if exc is None:
        return {**result, "raised": False}
    error = _values.clean_error(str(exc))
    tb = _script_frame(exc.__traceback__, path)
    line = tb.tb_lineno if tb else 0
    targets, last = _targets(ast.parse(source), line)
    result.update(raised=True, exc_type=type(exc).__name__, error=error[:2000], line=line, last_statement=last)
    try:
        import errhint

        matches = errhint.lookup(exc)
    except Exception as problem:
        return {**result, "lookup_error": repr(problem), "fix_ok": False, "fix_error": "lookup failed"}
    result["matches"] = len(matches)
    if not matches:
        return {**result, "record_id": None, "fix_code": None, "fix_ok": False, "fix_error": "no hint"}
    top = _describe(matches[0])
    result.update(top)
    hint_texts = [top["cause"], top["fix"]]
    fix_code = top["fix_code"]
    allowed = _values.allowed_numbers(str(exc), code)
    result["foreign_numbers"] = _values.foreign_numbers(hint_texts + [fix_code or ""], allowed)
    distinctive = _values.distinctive_values(code)
    result["distinctive"] = sorted(distinctive)
    result["values_in_error"] = _values.values_shown(error, distinctive)
    result["values_shown"] = _values.values_shown(" ".join([top["message"]] + hint_texts), distinctive)
    result["advice_values"] = _values.values_shown(" ".join(hint_texts), distinctive)
    frame_ns = dict(tb.tb_frame.f_locals) if tb else {}
    fields = [("message", top["message"]), ("cause", top["cause"]), ("fix", top["fix"])]
    fields += [(f"solutions[{i}]", text) for i, text in enumerate(top["solutions"])]
    unknown: List[str] = []
    result["rust_spans"] = []
    for field, text in fields:
        result["rust_spans"] += [f"{field}: `{s}`" for s in _api.code_spans(text) if _api.looks_like_rust(s)]
        for span in _api.python_spans([text]):
            unknown += [f"{field}: `{span}`: {name}" for name in _api.unknown_names(span, binding, frame_ns)]
    if fix_code is None:
        result.update(fix_ok=False, fix_error="fix_code is None")
    elif top["fix_language"] not in (None, "python"):
        result.update(fix_ok=False, fix_error=f"fix_language is {top['fix_language']!r} for a Python caller")
    else:
        try:
            unknown += [f"fix_code: {name}" for name in _api.unknown_names(fix_code, binding, frame_ns)]
        except SyntaxError as problem:
            unknown.append(f"fix_code does not parse: {problem}")
        failure = _apply_fix(fix_code, tb.tb_frame, targets) if tb else "no script frame"
        result.update(fix_ok=failure is None, fix_error=failure)
    result["unknown_api"] = unknown
    return result


def main(argv: List[str]) -> int:
    for path in argv:
        out = run(path)
        sys.stdout.write(MARKER + json.dumps(out, default=str) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
