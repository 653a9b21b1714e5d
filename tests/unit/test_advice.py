"""errhint.advice on the shipped dataset: typed captures, advice in Rust for Rust texts,
relevance (nothing unrelated), rendering of advice and fix code, the JSON shape."""

from __future__ import annotations

import errhint
import pytest

from errhint.advice import values
from errhint.advice.broadcast import bad_axes, missing_axis
from errhint.advice.reshape import candidates


@pytest.fixture(autouse=True)
def shipped(clean_errhint: None) -> None:
    """Every test here reads the shipped dataset only."""


# --------------------------------------------------------------------------- typed captures


@pytest.mark.parametrize("raw, typed", [
    ("[2, 3]", [2, 3]), ("[]", []), ("(4,)", [4]), ("7", 7), ("-1", -1), ("I64", "I64"),
    ('"matmul"', "matmul"), ("matmul", "matmul"), ("[2, x]", "[2, x]"),
])
def test_typed_reads_shapes_ints_dtypes_and_strings(raw: str, typed: object) -> None:
    assert values.typed({"v": raw})["v"] == typed


def test_clean_captures_names_values_for_what_they_hold() -> None:
    got = values.clean_captures({"f0": "U32", "f1": "matmul", "dtype": "U32", "op": "op matmul", "other": "U32 for op matmul"})
    assert got == {"f0": "U32", "f1": "matmul", "dtype": "U32", "op": "matmul"}


def test_unsupported_dtype_captures_are_named_and_typed() -> None:
    m = errhint.explain('UnsupportedDTypeForOp(I64, "matmul")')[0]
    assert m.captures["op"] == "matmul" and m.captures["dtype"] == "I64"
    assert "other" not in m.captures
    assert m.values["op"] == "matmul" and m.values["dtype"] == "I64"


@pytest.mark.parametrize("text, name, shape", [
    ('ShapeMismatchBinaryOp { lhs: [3, 8], rhs: [5, 3], op: "matmul" }', "lhs", [3, 8]),
    ("ShapeMismatchCat { dim: 1, first_shape: [4, 9], n: 3, nth_shape: [4, 2] }", "nth_shape", [4, 2]),
    ('NarrowInvalidArgs { shape: [6, 2], dim: 0, start: 5, len: 4, msg: "start + len > dim_len" }', "shape", [6, 2]),
])
def test_shapes_are_lists_of_ints(text: str, name: str, shape: list) -> None:
    assert errhint.explain(text)[0].values[name] == shape


# --------------------------------------------------------------------------- computation


def test_broadcast_helpers() -> None:
    assert bad_axes([5, 7], [6, 7]) == [(0, 5, 6)]
    assert bad_axes([8, 1, 3], [4, 3]) == []
    assert missing_axis([5, 7], [5, 6, 7]) == 1
    assert missing_axis([5, 7], [5, 7, 2]) == 2
    assert missing_axis([5, 8], [5, 6, 7]) is None


def test_reshape_candidates_change_one_axis() -> None:
    assert candidates(30, [7, 5]) == [[6, 5]]
    assert candidates(24, [5, 4]) == [[6, 4]]
    assert candidates(13, [2, 2]) == []


# --------------------------------------------------------------------------- the caller's language


def test_rust_text_gets_rust_advice_and_no_fix_code() -> None:
    m = errhint.explain('ShapeMismatchBinaryOp { lhs: [3, 8], rhs: [5, 8], op: "matmul" }')[0]
    assert m.fix_language == "rust" and m.fix_code is None
    assert "`lhs.matmul(&rhs.t()?)?`" in m.advice_fix and "[3, 5]" in m.advice_fix
    assert "is 8" in m.advice_cause and "is 5" in m.advice_cause


def test_pasted_python_traceback_gets_python_advice() -> None:
    text = ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
            '    y = x.matmul(w)\nValueError: ShapeMismatchBinaryOp { lhs: [3, 8], rhs: [5, 8], op: "matmul" }\n')
    m = errhint.explain(text)[0]
    assert m.fix_language == "python" and m.fix_code is None  # no frame to rewrite from
    assert "`a.matmul(b.t())`" in m.advice_fix


@pytest.mark.parametrize(
    "given, first, others",
    [("q4_k_m", "q4k", ()), ("q5", "q5_0", ("q5_1", "q5k")), ("q8-0", "q8_0", ())],
)
def test_an_unknown_quantize_name_gets_the_nearest_accepted_ones(given: str, first: str, others: tuple) -> None:
    text = ('Traceback (most recent call last):\n  File "quant.py", line 4, in <module>\n'
            f'    q = w.quantize("{given}")\nValueError: unknown quantized-dtype {given}\n')
    m = errhint.explain(text)[0]
    assert m.fix_language == "python"
    assert f"If you meant {first}, pass `'{first}'`" in m.advice_fix
    for name in others:
        assert name in m.advice_fix


def test_an_unknown_quantize_name_with_nothing_near_names_no_format() -> None:
    m = errhint.explain("unknown quantized-dtype int8")[0]
    assert "'int8' is not a format name" in m.advice_cause
    assert "If you meant" not in m.advice_fix and m.fix_code is None


def test_rank_advice_drops_the_records_inner_dimension_fix() -> None:
    """matmul's rank check and its inner-dimension check raise the same text; for two vectors
    the record's first fix (compare the inner sizes) is about the other check."""
    m = errhint.explain('ShapeMismatchBinaryOp { lhs: [6], rhs: [6], op: "matmul" }')[0]
    assert m.record_fix is False and "two vectors of 6" in m.advice_fix
    assert "`(&lhs * &rhs)?.sum_all()?`" in m.advice_fix
    brief = m.render()
    assert "or:" not in brief and "second-to-last" not in brief
    inner = errhint.explain('ShapeMismatchBinaryOp { lhs: [3, 8], rhs: [5, 8], op: "matmul" }')[0]
    assert inner.record_fix is True


def test_no_numbers_but_the_errors() -> None:
    import re

    m = errhint.explain('ShapeMismatchBinaryOp { lhs: [3, 8], rhs: [5, 8], op: "matmul" }')[0]
    numbers = set(re.findall(r"\d+", f"{m.advice_cause} {m.advice_fix}"))
    assert numbers <= {"3", "8", "5"}


# --------------------------------------------------------------------------- nothing unrelated


def test_plain_python_slice_error_gets_no_hint() -> None:
    with pytest.raises(ValueError) as info:
        [1, 2, 3][::0]
    assert errhint.lookup(info.value) == []


def test_same_message_at_two_sites_is_one_hint() -> None:
    ms = errhint.explain('DTypeMismatchBinaryOp { lhs: F32, rhs: F64, op: "add" }')
    assert len(ms) == 1 and ms[0].also


def test_generic_pattern_does_not_ride_along() -> None:
    ms = errhint.explain("UnexpectedNumberOfDims { expected: 4, got: 2, shape: [9, 9] }")
    assert len(ms) == 1 and ms[0].kind == "full"


def test_other_packages_exception_gets_no_generic_record() -> None:
    class ValidationError(Exception):
        pass

    ValidationError.__module__ = "pydantic_core._pydantic_core"
    with pytest.raises(ValidationError) as info:
        raise ValidationError("1 validation error for Config\nhidden_size\n  Input should be a valid integer")
    assert [m for m in errhint.lookup(info.value) if m.record.get("generic")] == []


# --------------------------------------------------------------------------- rendering and JSON


def test_brief_shows_advice_first_then_the_records_fix() -> None:
    m = errhint.explain('ShapeMismatchBinaryOp { lhs: [3, 8], rhs: [5, 8], op: "matmul" }')[0]
    lines = m.render("brief").splitlines()
    assert lines[1].strip().startswith("likely cause:") and m.advice_cause in lines[1]
    assert lines[2].strip() == f"fix: {m.advice_fix}"
    full = m.render("full").splitlines()
    assert full[1].strip().startswith("from your values:")


def test_to_dict_has_the_advice_fields() -> None:
    d = errhint.explain('ShapeMismatchBinaryOp { lhs: [3, 8], rhs: [5], op: "matmul" }')[0].to_dict()
    assert d["fixLanguage"] == "rust" and d["fixCode"] is None
    assert d["values"] == {"lhs": [3, 8], "rhs": [5], "op": "matmul"}
    assert d["hint"]["advice"]["cause"] == d["hint"]["cause"]
    assert d["site"]["line"] == 1502 and d["githubUrl"].endswith("#L1502")  # the rank check
