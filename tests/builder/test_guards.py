"""The condition guarding each site and its enclosing ``Type::fn`` (builder.guards), on a Rust
fixture written for these tests and on known sites of the pinned upstream sources."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Dict

import pytest

from builder.rustlex import lex
from builder.sites import FileFacts, Site, analyze_file
from builder import conditions

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rust"
MIRRORS = Path("/work/.mirror")


@pytest.fixture(scope="module")
def facts() -> FileFacts:
    return analyze_file((FIXTURES / "guards.rs").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def by_text(facts) -> Dict[str, Site]:
    return {s.template.text: s for s in facts.sites if s.template is not None}


@pytest.mark.parametrize(
    "text, guard",
    [
        ("cannot join an empty widget", "`self.dims.is_empty()`"),
        ("widget join is not finished", "`!self.dims.is_empty()`"),
        ("left slot of widget is sealed", "`slot` matches `Slot::Left`"),
        ("right slot of a wide widget is sealed", "`slot` matches `Slot::Right` and `self.dims.len() > 3` (`self.dims.len()` is greater than `3`)"),
        ("widget slot is unknown", "`slot` matches none of the other arms of its `match`"),
        ("widget kind has no width",
         "`kind` matches none of the other arms of its `match` (the other arms take `Kind::Narrow`, `Kind::Thin` and `Kind::Wide(n)`)"),
        ("widget has no first dim", "`self.dims.first()` is None"),
        ("widget has no fifth dim", "`self.dims.get(4)` returns None or an error"),
        ("widget listener has hung up", "`self.sender.send(m)` returns an error"),
        ("widget iterator is empty", "`self.dims.iter().next()` returns None"),
        ("widget ends with a last dim", "`self.dims.last()` matches `Some(x)`"),
        ("widget value over ten", "`*v >= 10` (`*v` is at least `10`)"),
    ],
)
def test_guard_of_each_construct(by_text, text, guard):
    assert by_text[text].guard == guard


@pytest.mark.parametrize(
    "text, guard",
    [
        ("widget rank over four", "`self.dims.len() > 4` (`self.dims.len()` is greater than `4`)"),
        ("widget must start with one", "`self.dims[0] != 1` (`self.dims[0]` differs from `1`)"),
        ("widget must not start with seven", "`self.dims[0] == 7` (`self.dims[0]` equals `7`)"),
        # De Morgan: the assert fails when either part is false
        ("widget rank under two", "`self.dims.len() <= 1 || self.dims.is_empty()`"),
    ],
)
def test_asserts_fire_when_their_condition_is_false(by_text, text, guard):
    assert by_text[text].guard == guard


def test_unconditional_site_has_no_guard(by_text):
    """A loop is not a guard and nothing is invented for a site that always runs."""
    assert by_text["widget values always fail"].guard is None


def test_function_is_qualified_by_its_impl_type(by_text):
    assert by_text["cannot join an empty widget"].function == "Widget::join"
    assert by_text["widget rank over four"].function == "Widget::fmt"  # impl Display for Widget
    assert by_text["widget value over ten"].function == "loose"


def test_constructions_carry_guard_and_owner(facts):
    c = next(c for c in facts.constructions if c.variant == "WidgetMismatch")
    assert (c.owner, c.fn) == ("Widget", "join")
    assert c.guard == "`k != k2 || self.dims.len() != 2` (`k` differs from `k2`, or `self.dims.len()` differs from `2`)"


def test_long_conditions_are_left_out_and_arguments_shortened():
    src = (
        "fn f(a: &[usize]) -> Result<()> {\n"
        "    if a.iter().map(|x| x * 2).filter(|x| *x > 3).count() > first_long_identifier_name + second_long_identifier_name {\n"
        "        bail!(\"first widget message\")\n"
        "    }\n"
        "    if check(aaaaaaaaaaaa, bbbbbbbbbbbbbb, cccccccccccc) {\n"
        "        bail!(\"second widget message\")\n"
        "    }\n"
        "    Ok(())\n"
        "}\n"
    )
    sites = {s.template.text: s for s in analyze_file(src).sites}
    assert sites["first widget message"].guard is None
    assert sites["second widget message"].guard == "`check(..)`"


def test_condition_never_contains_a_block():
    toks = lex("x.map(|v| { v + 1 }).is_some() && y").tokens
    assert conditions.condition(toks, range(0, len(toks))) == "`x.map(..).is_some() && y`"


def _git_show(repo: str, commit: str, path: str) -> str:
    git = MIRRORS / repo / "repo"
    return subprocess.run(["git", f"--git-dir={git}", "show", f"{commit}:{path}"], capture_output=True, text=True, check=True).stdout


needs_mirrors = pytest.mark.skipif(not (MIRRORS / "huggingface+candle" / "repo").exists(), reason="needs the upstream mirrors")


@needs_mirrors
def test_candle_042_matmul_rank_check_and_inner_dimension_check_differ():
    src = _git_show("huggingface+candle", "cd29c7ccd420a840d883361c290ee92d06b9b96c", "candle-core/src/tensor.rs")
    facts = analyze_file(src)
    matmul = sorted((c.line, c.guard) for c in facts.constructions if c.fn == "matmul" and c.variant == "ShapeMismatchBinaryOp")
    assert [g for _, g in matmul] == [
        "`dim < 2 || b_dims.len() != dim` (`dim` is less than `2`, or `b_dims.len()` differs from `dim`)",
        "`k != k2 || batching != batching_b` (`k` differs from `k2`, or `batching` differs from `batching_b`)",
    ]
    assert {c.owner for c in facts.constructions if c.fn == "matmul"} == {"Tensor"}


@needs_mirrors
def test_burn_0180_tensor_check_matmul():
    src = _git_show("tracel-ai+burn", "f5d889d29c33f51fdfe8786daa758d278082a565", "crates/burn-tensor/src/tensor/api/check.rs")
    sites = [s for s in analyze_file(src).sites if s.kind == "tensor_check" and s.fn == "matmul"]
    assert [(s.function, s.guard) for s in sites] == [("TensorCheck::matmul", "`dim_lhs != dim_rhs` (`dim_lhs` differs from `dim_rhs`)")]
    assert sites[0].template.text.startswith("The inner dimension of matmul should be the same")


PY_SOURCE = '''
class Widget:
    def f(self, n, mode):
        if n < 0:
            raise ValueError(f"widget count {n} is negative")
        if mode not in ("a", "b"):
            raise ValueError("widget mode is unknown")
        else:
            if not self.ready:
                raise RuntimeError("widget is not ready")
        if n == 3:
            pass
        else:
            raise ValueError("widget count must be three")
        raise TypeError("widget always fails")


def g(x):
    if isinstance(x, int):
        raise TypeError("widget wants no int")
'''


def test_python_raise_sites_carry_their_if_and_class():
    from builder.pysites import python_sites

    got = {s.template.text: (s.function, s.guard) for s in python_sites(PY_SOURCE)}
    assert got == {
        "widget count {n} is negative": ("Widget::f", "`n < 0` (`n` is less than `0`)"),
        "widget mode is unknown": ("Widget::f", "`mode not in ('a', 'b')`"),
        "widget is not ready": ("Widget::f", "`not self.ready`"),
        "widget count must be three": ("Widget::f", "`n != 3` (`n` differs from `3`)"),  # the else of `n == 3`
        "widget always fails": ("Widget::f", None),
        "widget wants no int": ("g", "`isinstance(x, int)`"),
    }


def test_turbofish_generics_are_not_comparisons():
    toks = lex("x.sum::<usize>() != n").tokens
    assert conditions.condition(toks, range(0, len(toks))) == "`x.sum::<usize>() != n` (`x.sum::<usize>()` differs from `n`)"


def _only_site_guard(src: str):
    sites = [s for s in analyze_file(src).sites if s.template is not None]
    assert len(sites) == 1
    return sites[0].guard


def test_patterns_are_never_shortened():
    """`Float(..)` would say "any float" where the arm names one kind."""
    src = (
        "fn f(dtype: ElemType) {\n    match dtype {\n"
        "        ElemType::Float(cubecl_core::ir::FloatKind::TF32) => {\n"
        "            panic!(\"widget does not support TF32\")\n        }\n        _ => {}\n    }\n}\n"
    )
    assert _only_site_guard(src) == "`dtype` matches `ElemType::Float(cubecl_core::ir::FloatKind::TF32)`"


def test_grouping_parentheses_are_written_out():
    src = "fn f() -> Result<()> {\n    if !(l1.is_contiguous() && l2.is_contiguous() && l3.is_contiguous()) {\n        bail!(\"widget needs contiguous inputs\")\n    }\n    Ok(())\n}\n"
    assert _only_site_guard(src) == "`!(l1.is_contiguous() && l2.is_contiguous() && l3.is_contiguous())`"


def test_nothing_is_quoted_that_says_nothing_or_uses_macro_variables():
    tuple_match = "fn f(a: A, b: B) {\n    match (a.kind_of_the_left_operand_of_the_widget(), b.kind_of_the_right_operand_of_the_widget()) {\n        _ => panic!(\"widget pair is unknown\"),\n    }\n}\n"
    assert _only_site_guard(tuple_match) is None  # too long to quote, and `(..)` would say nothing
    in_macro = "macro_rules! m {\n    ($($x:ident),+) => {\n        fn g() {\n            match ($($x),+) {\n                _ => panic!(\"widget types differ\"),\n            }\n        }\n    };\n}\n"
    assert _only_site_guard(in_macro) is None
