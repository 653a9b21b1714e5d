"""Quality gates: compile, self-match, unrelated messages, adversarial timing."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.gates import Gates, generic_inputs, load_negatives, pattern_inputs
from builder.template import name_placeholders, parse_format, synthesize, to_regex

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gates():
    return Gates(load_negatives(ROOT / "curation" / "negatives.txt"), ["shape", "dtype", "tensor", "matmul"])


def test_negatives_are_many_and_decoded():
    negs = load_negatives(ROOT / "curation" / "negatives.txt")
    assert len(negs) >= 200
    assert any("\n" in n for n in negs)
    assert not any(n.startswith("#") for n in negs)


def test_a_builder_pattern_passes(gates):
    tpl = name_placeholders(parse_format("shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}"))
    assert gates.check(to_regex(tpl), [synthesize(tpl)]).ok


def test_pattern_must_match_its_example(gates):
    result = gates.check("widget exploded", ["gadget exploded"])
    assert not result.ok and "own example" in (result.reason or "")


def test_pattern_must_not_match_unrelated_messages(gates):
    result = gates.check(r"index out of bounds", ["index out of bounds in widget"])
    assert not result.ok and "unrelated" in (result.reason or "")


def test_broken_pattern_is_reported(gates):
    result = gates.check("widget (unclosed", ["widget (unclosed"])
    assert not result.ok and "compile" in (result.reason or "")


def test_catastrophic_backtracking_fails_the_timing_gate(gates):
    pattern = r"(?:\w+\s?)+widget exploded$"
    result = gates.check(pattern, ["aaa widget exploded"])
    assert not result.ok and "adversarial" in (result.reason or "")


def test_inputs_are_64k_and_deterministic():
    a = generic_inputs(["foo", "bar"])
    b = generic_inputs(["foo", "bar"])
    assert a == b
    assert all(len(v) == 64 * 1024 for v in a.values())
    p = pattern_inputs("bad widget 3 here")
    assert all(len(v) >= 64 * 1024 for v in p.values())
    assert "\x01" in p["near-miss-log"]


# ---------------------------------------------------------------- over-generic patterns


def _probe(rid: str, text: str):
    from builder.gates import Probe

    tpl = name_placeholders(parse_format(text))
    pieces = [p for p in tpl.pieces if isinstance(p, str)]
    return Probe(rid, to_regex(tpl), tpl.literal_chars(), max(pieces, key=len), (synthesize(tpl), synthesize(tpl, variant=1)))


def test_catch_all_pattern_is_reported_with_the_records_it_shadows():
    from builder.gates import over_generic

    probes = [
        _probe("generic", "{k} is not divisible by {qk}"),
        _probe("q4", "vec_dot_q4_1_q8_1: {n} is not divisible by {qk}"),
        _probe("q5", "vec_dot_q5_0_q8_0: {n} is not divisible by {qk}"),
        _probe("conv", "in_channels {c} is not divisible by the number of groups {g}"),
        _probe("other", "widget size must be non-zero"),
    ]
    assert over_generic(probes) == {"generic": ["conv", "q4", "q5"]}
    assert over_generic(probes, threshold=4) == {}


def test_records_with_less_literal_text_do_not_count():
    from builder.gates import over_generic

    probes = [_probe("a", "widget {x} is not divisible by {y}"), _probe("b", "{x} is not divisible by {y}"),
              _probe("c", "{x} is not divisible by {y} here"), _probe("d", "{x}, {y} is not divisible by {z}")]
    assert "a" not in over_generic(probes, threshold=1)
