"""Format strings → templates → regexes, and the synthesised examples they must match."""

from __future__ import annotations

import regex
import pytest
from hypothesis import given, settings, strategies as st

from builder.template import (
    Template,
    display_text,
    escape,
    name_placeholders,
    parse_format,
    plain,
    substitute,
    synthesize,
    to_regex,
)


def _compile(tpl: Template, tail=None) -> "regex.Pattern[str]":
    return regex.compile(to_regex(tpl, tail), regex.DOTALL)


def test_parse_placeholders_and_escaped_braces():
    tpl = parse_format("a {x:?} {{literal}} {} {0:#?} {:08x}")
    assert [p.arg for p in tpl.placeholders] == ["x", "", "0", ""]
    assert [p.spec for p in tpl.placeholders] == ["?", "", "#?", "08x"]
    assert "{literal}" in tpl.literal
    assert tpl.text == "a {x:?} {{literal}} {} {0:#?} {:08x}"


def test_malformed_braces_stay_text():
    tpl = parse_format("set {a b} or } alone")
    assert tpl.placeholders == []
    assert tpl.literal == "set {a b} or } alone"


def test_group_names_follow_the_rules():
    tpl = name_placeholders(parse_format("{dtype:?} {} {} {0} {name} {dtype}"), positional=["op", None], named={"name": "n"})
    assert tpl.groups() == ["dtype", "op", "arg1", "op_2", "name", "dtype_2"]


def test_field_names_for_enum_templates():
    tuple_tpl = name_placeholders(parse_format("bad {0:?} for {1}"), fields={"0": "0", "1": "1"})
    struct_tpl = name_placeholders(parse_format("in {op}, lhs: {lhs:?}"), fields={"op": "op", "lhs": "lhs"})
    assert tuple_tpl.groups() == ["f0", "f1"]
    assert [p.field for p in tuple_tpl.placeholders] == ["0", "1"]
    assert struct_tpl.groups() == ["op", "lhs"]
    assert display_text(tuple_tpl) == "bad {0:?} for {1}"


def test_middle_final_and_leading_groups():
    tpl = name_placeholders(parse_format("{op} during capture of {n} kernels"))
    pattern = to_regex(tpl)
    assert pattern.startswith("(?<=(?:^|\\n)(?P<op>")  # leading value captured behind the literal
    assert "(*PRUNE)" in pattern
    m = _compile(tpl).search("prefix\nmatmul during capture of 3 kernels")
    assert m is not None and m.group("op") == "matmul" and m.group("n") == "3"


def test_final_group_stops_at_end_of_line():
    tpl = name_placeholders(parse_format("unsupported dtype {dtype}"))
    m = _compile(tpl).search("unsupported dtype I64\nstack backtrace: ...")
    assert m.group("dtype") == "I64"


def test_plain_literal_keeps_braces_and_escapes_specials():
    tpl = plain("Wrong number of inputs (expected {D}, is {}) [x]+")
    assert tpl.placeholders == []
    assert _compile(tpl).search("panicked: Wrong number of inputs (expected {D}, is {}) [x]+: Err")


def test_escape_only_touches_regex_specials():
    assert escape("a-b c:d") == "a-b c:d"
    assert escape("(x)\n") == "\\(x\\)\\n"


def test_substitute_literal_payloads_debug_quoted():
    tpl = name_placeholders(parse_format("unsupported dtype {0:?} for op {1} ({1:?})"), fields={"0": "0", "1": "1"})
    out = substitute(tpl, {"1": plain("matmul")})
    assert out.text == 'unsupported dtype {0:?} for op matmul ("matmul")'
    assert out.groups() == ["f0"]


def test_optional_tail_for_tensor_checks():
    desc = plain("Can't widen the tensor.")
    tail = name_placeholders(parse_format("Requested dim: {dim}."))
    compiled = _compile(desc, tail)
    assert compiled.search("    1. Can't widen the tensor. Requested dim: 4. ").group("dim") == "4"
    assert compiled.search("    1. Can't widen the tensor. ")


def test_synthesize_uses_name_hints():
    tpl = name_placeholders(parse_format("{op} on {dtype:?} with shape {shape:?} at dim {dim}"))
    assert synthesize(tpl) == "matmul on F16 with shape [2, 3] at dim 3"
    assert synthesize(tpl, variant=1) == "v1 on v2 with shape v3 at dim v4"


_TEXT = st.text(alphabet=st.sampled_from(list("abc XYZ:,.()[]*+?|\\{}\"'\n-")), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_TEXT, st.sampled_from(["{}", "{x}", "{y:?}", "{0}", "{z:#?}"])), min_size=1, max_size=6))
def test_every_template_matches_its_own_example(parts):
    tpl = name_placeholders(parse_format("".join(parts)), positional=["p0", None, "p2"])
    if tpl.is_passthrough():
        return
    compiled = _compile(tpl)
    assert compiled.search(synthesize(tpl)) or compiled.search(synthesize(tpl, variant=1))


# ---------------------------------------------------------------- Debug values with spaces


@pytest.mark.parametrize(
    "template, message, expected",
    [
        ("{self_shape:?} {:?} incompatible in widget", "[20] [32, 20] incompatible in widget", {"self_shape": "[20]", "arg0": "[32, 20]"}),
        ("shapes {a:?} {b:?} {c:?} do not line up", "shapes [2, 3] (4, 5) [6] do not line up", {"a": "[2, 3]", "b": "(4, 5)", "c": "[6]"}),
        ("mismatch on widget dim {s:?} {:?}", "mismatch on widget dim [4, 4] [8, 4]", {"s": "[4, 4]", "arg0": "[8, 4]"}),
        # a Debug value that is not one bracket group still falls back to the lazy match
        ("widget {w:?} vs {v:?} failed", "widget Layout { shape: [2] } vs [3, 1] failed", {"w": "Layout { shape: [2] }", "v": "[3, 1]"}),
    ],
)
def test_debug_shapes_are_captured_whole(template, message, expected):
    tpl = name_placeholders(parse_format(template))
    m = regex.compile(to_regex(tpl), regex.DOTALL).search(message)
    assert m is not None and {k: m.group(k) for k in expected} == expected


def test_bracketed_debug_groups_pass_the_64k_timing_gate():
    from builder.gates import Gates

    tpl = name_placeholders(parse_format("{self_shape:?} {:?} {:?} widget shapes differ {x:?} in {op}"))
    gates = Gates([], ["shape", "widget"])
    assert gates.check(to_regex(tpl), [synthesize(tpl)], timing=True).ok
