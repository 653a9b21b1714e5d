"""Site extraction on small Rust fixtures: kinds, lines, exclusions, message resolution."""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import pytest

from builder.items import excluded_module_files
from builder.pysites import python_sites
from builder.sites import Site, analyze_file, resolve_check_ops
from builder.sources import excluded_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rust"


@pytest.fixture(scope="module")
def facts():
    return analyze_file((FIXTURES / "sites.rs").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def by_text(facts) -> Dict[str, Site]:
    return {s.template.text: s for s in facts.sites if s.template is not None}


def test_bail_with_literal_on_a_later_line(by_text):
    site = by_text["unsupported combination {} and {:?} in matmul"]
    assert site.kind == "bail"
    assert site.line == 8 and site.end_line == 12
    assert site.template.groups() == ["op", "arg1"]
    assert site.fn == "bail_sites"


def test_path_qualified_macro(by_text):
    assert by_text["empty op name for {dtype:?}"].kind == "bail"


@pytest.mark.parametrize(
    "text, kind",
    [
        ("rank {n} is not supported by the widget kernel", "panic"),
        ("widget kernel for rank {}", "unimplemented"),
        ("strided widget kernel", "todo"),
        ("widget state {n} cannot happen", "unreachable"),
        ("rank must be below ten, got {n}", "assert"),
        ("rank {} must be even", "assert_eq"),
        ("rank three is reserved", "assert_eq"),
    ],
)
def test_panic_family_kinds(by_text, text, kind):
    assert by_text[text].kind == kind


def test_bare_panics_have_no_literal(facts):
    bare = [s for s in facts.sites if s.template is None and s.reason == "bare"]
    assert {s.kind for s in bare} == {"unreachable", "assert"}


def test_expect_plain_literal_keeps_braces(by_text):
    site = by_text["widget data must be present (expected {D}, is {})"]
    assert site.kind == "expect" and not site.template.is_format and site.template.placeholders == []


def test_expect_with_format_and_let_resolution(by_text, facts):
    assert by_text["cannot open widget file {path}"].kind == "expect"
    assert by_text["widget {path} is corrupted beyond repair"].kind == "expect"
    assert any(s.kind == "expect" and s.reason == "expression" for s in facts.sites)  # some_message()


def test_string_errors(by_text):
    assert by_text["widget count {x} must be positive"].kind == "string_error"
    assert by_text["failed to read widget file: {e}"].kind == "string_error"
    assert by_text["plain widget failure"].kind == "string_error"


def test_tensor_check_with_details_and_operation(by_text):
    site = by_text["Can't widen a tensor with fewer dims than requested."]
    assert site.kind == "tensor_check"
    assert site.tail is not None and site.tail.text == "Requested dim: {dim}."
    assert site.tags == ("Widen",)


def test_tensor_check_operation_names_from_callers(facts, by_text):
    site = by_text["Dimension {dim} is too large for the widget."]
    assert site.op_param == "ops"
    ops = resolve_check_ops(facts.check_callers)
    assert ops["dim_check"] == {"Flip", "Roll"}


def test_pyo3_errors_name_the_python_class(by_text):
    assert by_text["widgets must be tensors, not lists"].error_class == "TypeError"
    site = by_text["unknown widget kind {kind}"]
    assert site.kind == "pyerr" and site.error_class == "ValueError"


def test_io_error(by_text):
    assert by_text["widget stream ended early"].kind == "io_error"


def test_macro_rules_body_is_scanned(by_text):
    assert by_text["widget macro failure: {}"].kind == "panic"


def test_test_code_is_excluded(facts, by_text):
    texts = set(by_text)
    assert "this panic is inside a test module" not in texts
    assert "this panic is inside a test function" not in texts
    assert "cfg any test is kept" in texts
    assert facts.test_mods == ["more_tests"]


def test_cfg_test_module_files_are_excluded():
    assert excluded_module_files("src/ops/mod.rs", ["tests"]) == {"src/ops/tests.rs", "src/ops/tests/mod.rs"}
    assert excluded_module_files("src/ops.rs", ["tests"]) == {"src/ops/tests.rs", "src/ops/tests/mod.rs"}


@pytest.mark.parametrize(
    "path, excluded",
    [
        ("candle-core/src/tensor.rs", False),
        ("candle-core/tests/tensor_tests.rs", True),
        ("crates/burn-backend-tests/src/lib.rs", True),
        ("candle-examples/src/lib.rs", True),
        ("crates/burn-core/src/record/tests.rs", True),
        ("crates/burn-core/build.rs", True),
        ("crates/burn-tensor/src/tests/ops/add.rs", True),
        ("crates/burn-core/src/testing.rs", False),
    ],
)
def test_path_rules(path, excluded):
    assert excluded_path(path) is excluded


def test_python_raise_sites():
    source = '''
def add(self, name, module, j):
    raise KeyError(f"attribute '{name}' already exists")
    raise TypeError("expected a Module, got " + type(module).__name__)
    raise IndexError("index {} is out of range".format(j))
    raise ValueError(message)
    raise StopIteration
'''
    sites = python_sites(source)
    texts = [(s.error_class, s.template.text if s.template else None, s.reason) for s in sites]
    assert texts == [
        ("KeyError", "attribute '{name}' already exists", None),
        ("TypeError", "expected a Module, got {__name__}", None),
        ("IndexError", "index {} is out of range", None),
        ("ValueError", None, "variable"),
    ]
    assert all(s.kind == "python_raise" and s.fn == "add" for s in sites)
