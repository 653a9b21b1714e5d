from __future__ import annotations

from pathlib import Path

import pytest

from errhint import rustdebug
from errhint.rustdebug import parse, parse_prefix, parse_struct_head, unescape

TEXTS = Path(__file__).resolve().parents[1] / "fixtures" / "texts"


def test_struct_variant_keeps_field_order_and_raw_text() -> None:
    v = parse('ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [4, 2], op: "matmul" }')
    assert v is not None and v.kind == "variant" and v.shape == "struct"
    assert v.name == "ShapeMismatchBinaryOp"
    assert [k for k, _ in v.fields] == ["lhs", "rhs", "op"]
    assert v.field("lhs").raw == "[2, 3]"
    assert v.field("op").kind == "str" and v.field("op").text == "matmul"
    assert v.field("op").raw == '"matmul"'


def test_tuple_variant_fields_are_numbered() -> None:
    v = parse('UnsupportedDTypeForOp(I64, "matmul")')
    assert v.shape == "tuple" and v.name == "UnsupportedDTypeForOp"
    named = v.named_values()
    assert list(named) == ["0", "1"]
    assert named["0"].kind == "atom" and named["0"].text == "I64"
    assert named["1"].text == "matmul"


def test_unit_variant_is_an_atom_that_counts_as_variant() -> None:
    v = parse("NotCompiledWithCudaSupport")
    assert v.kind == "atom" and v.is_variant
    assert not parse("42").is_variant
    assert not parse("true").is_variant


def test_nested_variants() -> None:
    v = parse('SafeTensor(InvalidOffset("w"))')
    inner = v.items[0]
    assert inner.kind == "variant" and inner.name == "InvalidOffset"
    assert inner.items[0].text == "w"


def test_msg_string_escapes_are_undone() -> None:
    v = parse(r'Msg("unexpected shape [2, 3] for \"x\"\nsecond \\ line \u{e9} tab\t")')
    assert v.items[0].text == 'unexpected shape [2, 3] for "x"\nsecond \\ line \u00e9 tab\t'


@pytest.mark.parametrize(
    "body, expected",
    [
        (r"a\"b", 'a"b'),
        (r"a\\b", "a\\b"),
        (r"x\ny", "x\ny"),
        (r"\u{1f600}", "\U0001f600"),
        (r"\0", "\0"),
        (r"\'", "'"),
        ("plain", "plain"),
    ],
)
def test_unescape(body: str, expected: str) -> None:
    assert unescape(body) == expected


def test_backtrace_list_and_anonymous_structs() -> None:
    v = parse('Backtrace [{ fn: "a::b", file: "./x.rs", line: 3 }, { fn: "_start" }]')
    assert v.kind == "variant" and v.shape == "list" and len(v.items) == 2
    assert v.items[0].kind == "struct" and v.items[0].field("line").text == "3"


def test_maps_sets_tuples_numbers_ranges_and_opaque_values() -> None:
    v = parse('Foo { a: 1.5e-3, b: -2, c: 0..5, d: <disabled>, e: (1, "x"), f: {"k": [1]}, g: {1, 2}, h: PhantomData<f32>, .. }')
    kinds = {k: val.kind for k, val in v.fields}
    assert kinds == {"a": "atom", "b": "atom", "c": "atom", "d": "atom", "e": "tuple", "f": "map", "g": "set", "h": "atom"}
    assert v.field("c").raw == "0..5"
    assert v.field("f").fields[0][0] == '"k"'


def test_real_candle_withbacktrace_text() -> None:
    text = (TEXTS / "candle_0.4.2_withbacktrace.txt").read_text()
    v = parse(text)
    assert v is not None and v.name == "WithBacktrace"
    assert v.field("inner").raw == 'UnsupportedDTypeForOp(I64, "matmul")'
    assert v.field("backtrace").name == "Backtrace" and len(v.field("backtrace").items) > 5


def test_struct_head_reads_inner_of_a_truncated_text() -> None:
    text = (TEXTS / "candle_0.4.2_withbacktrace.txt").read_text()[:150]
    assert parse(text) is None  # cut in the middle of the backtrace
    fields = parse_struct_head(text, "WithBacktrace")
    assert fields is not None and fields["inner"].name == "UnsupportedDTypeForOp"
    assert parse_struct_head("Other { inner: X }", "WithBacktrace") is None


def test_parse_prefix_returns_the_end_position() -> None:
    text = 'prefix: Msg("a") trailing words'
    value, end = parse_prefix(text, len("prefix: "))
    assert value.name == "Msg" and text[end:] == " trailing words"


@pytest.mark.parametrize(
    "text",
    ["not debug at all", "Foo(", 'Msg("unterminated)', "Foo { a 1 }", "[1, 2", "", "a: b", "Foo } {"],
)
def test_non_debug_text_gives_none(text: str) -> None:
    assert parse(text) is None


def test_deep_nesting_is_refused_not_crashing() -> None:
    depth = rustdebug.MAX_DEPTH + 10
    assert parse("A(" * depth + "1" + ")" * depth) is None
    ok = rustdebug.MAX_DEPTH - 2
    assert parse("A(" * ok + "1" + ")" * ok) is not None

