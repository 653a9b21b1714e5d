"""errhint.advice.callsite: the failing statement read from a live exception's traceback."""

from __future__ import annotations

import ast
import runpy
from pathlib import Path

import pytest

from errhint.advice import callsite


def raise_from(tmp_path: Path, source: str) -> BaseException:
    script = tmp_path / "user_script.py"
    script.write_text(source, encoding="utf-8")
    with pytest.raises(Exception) as info:
        runpy.run_path(str(script), run_name="__main__")
    return info.value


def test_finds_the_failing_call_and_rewrites_it_keeping_the_targets(tmp_path: Path) -> None:
    # list.index raises in C: the innermost user frame is the statement calling it
    exc = raise_from(tmp_path, "a = [1, 2]\nb = 5\ny = a.index(b)\n")
    site = callsite.find(exc)
    assert site is not None
    assert ast.unparse(site.stmt) == "y = a.index(b)"
    call = callsite.failing_call(site, ("index",))
    assert call is not None and ast.unparse(call) == "a.index(b)"
    assert site.rewrite("a.index(b - 4)") == "y = a.index(b - 4)"
    assert site.rewrite("candle.cat([a, b], 1)", ("candle",)) == "import candle\ny = candle.cat([a, b], 1)"
    assert site.lookup("b") == 5


def test_multi_line_statement(tmp_path: Path) -> None:
    exc = raise_from(tmp_path, "a = [1, 2]\nz = (\n    a.index(\n      7)\n)\n")
    site = callsite.find(exc)
    assert site is not None and ast.unparse(site.stmt) == "z = a.index(7)"


def test_no_source_no_site() -> None:
    code = compile("raise ValueError('x')", "<string>", "exec")
    with pytest.raises(ValueError) as info:
        exec(code, {})
    assert callsite.find(info.value) is None


def test_constructed_exception_has_no_site() -> None:
    assert callsite.find(ValueError("never raised")) is None


def test_only_names_are_read_never_code_run(tmp_path: Path) -> None:
    exc = raise_from(tmp_path, "class P:\n    @property\n    def w(self):\n        raise RuntimeError('ran')\n"
                               "p = P()\ny = [1].index(9)\n")
    site = callsite.find(exc)
    assert site is not None
    attr = ast.parse("p.w", mode="eval").body
    assert site.value(attr) is callsite._MISSING  # a property is not run
    assert site.tensor_shape(ast.parse("p", mode="eval").body) is None
