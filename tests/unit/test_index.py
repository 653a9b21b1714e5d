"""The index: its file format (``indexfile``) and ``LoadedIndex``: prefilter, rows, records, variants."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine_support import CANDLE, fixture_records, record, variant
from errhint import indexfile, keys, loaded_index
from errhint.indexfile import build_index, index_files, read_index
from errhint.keys import choose_keys, text_tokens
from errhint.literals import literal_runs
from errhint.loaded_index import LoadedIndex


def test_build_index_format_and_determinism() -> None:
    recs = fixture_records()
    locations = [(0, i * 10, 10) for i in range(len(recs))]
    a = build_index(recs, files=["records/a.jsonl"], locations=locations, dataset_version="dv")
    b = build_index(recs, files=["records/a.jsonl"], locations=locations, dataset_version="dv")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert index_files(a) == index_files(b)
    assert a["format"] == 6 and a["datasetVersion"] == "dv" and "inline" not in a and a["count"] == len(recs)
    assert isinstance(a["rows"], str) and a["rows"].count("\n") == len(recs) - 1  # decoded only when selected
    row = LoadedIndex(a).row(0)
    assert row[:indexfile.LITERALS] == [recs[0]["id"], 0, 0, 10] and len(row) == 5  # who, where, literals
    assert a["repoLabels"]["huggingface/candle"] == sorted(["0.4.2", "0.6.0", "0.8.0", "0.9.1", "0.11.0"])
    key = choose_keys([literal_runs(r["messagePattern"]) for r in recs])[0]
    kind, bucket = keys.key_bucket(key)
    columns = a["keys"][kind]  # two strings per first character of the keys
    assert all(isinstance(v, str) for col in columns.values() for v in col.values())
    assert set(columns["words"]) == set(columns["rows"]) and bucket[0] in columns["words"]
    key_map = dict(zip(columns["words"][bucket[0]].split("|"), columns["rows"][bucket[0]].split(";")))
    assert "0" in key_map[bucket].split(",")
    every = [r for m in a["keys"].values() for col in m["rows"].values() for rows in col.split(";") for r in rows.split(",")]
    assert len(every) + len(a["scan"]) == len(recs)
    lines = a["variants"].split("\n")  # byVariant, then "name<TAB>entries" per name: found on demand
    by_variant = json.loads(lines[0])
    assert by_variant["ShapeMismatchBinaryOp"] == [
        i for i, r in enumerate(recs) if (r.get("variant") or {}).get("name") == "ShapeMismatchBinaryOp"]
    entries = dict(line.split("\t", 1) for line in lines[1:])
    names = list(entries)
    assert names.count("UnsupportedDTypeForOp") == 1
    assert len(json.loads(entries["UnsupportedDTypeForOp"])) == 1  # definition and construction share one entry
    json.dumps(a)  # JSON-able


def test_index_files_round_trip_and_keep_the_tables_apart_from_the_rows() -> None:
    recs = fixture_records()
    built = build_index(recs, files=["records/a.jsonl"], locations=[(0, i, 1) for i in range(len(recs))])
    files = index_files(built)
    assert set(files) == {indexfile.INDEX_FILE, indexfile.ROWS_FILE, indexfile.VARIANTS_FILE}
    tables = json.loads(files[indexfile.INDEX_FILE])
    assert "rows" not in tables and "variants" not in tables  # the tables file holds no row and no template
    assert files[indexfile.ROWS_FILE].decode().splitlines() == built["rows"].split("\n")
    assert files[indexfile.VARIANTS_FILE].decode().rstrip("\n") == built["variants"]
    assert all(b < 128 for blob in files.values() for b in blob)  # ASCII: decodes narrow
    again = read_index(files.__getitem__)
    assert again == json.loads(json.dumps(built))
    loaded = LoadedIndex(again)
    text = "unsupported dtype I64 for op matmul"
    assert loaded.prefiltered(text, text_tokens(text)) == LoadedIndex(built).prefiltered(text, text_tokens(text)) != []


def test_an_empty_index_and_broken_rows() -> None:
    empty = build_index([])
    assert index_files(empty)[indexfile.ROWS_FILE] == b"" and len(LoadedIndex(read_index(index_files(empty).__getitem__))) == 0
    assert LoadedIndex(empty).prefiltered("anything at all", text_tokens("anything at all")) == []
    recs = fixture_records()[:3]
    cut = dict(build_index(recs), rows="\n".join(build_index(recs)["rows"].split("\n")[:2]))
    with pytest.raises(ValueError, match="rows do not match"):
        LoadedIndex(cut).row(0)
    with pytest.raises(ValueError, match="row offsets"):
        LoadedIndex(dict(build_index(recs), rowOffsets="00")).row(0)
    for keys in ({"exact": {"words": "a|b", "rows": "0"}}, {"exact": {"words": {"a": "aaa|abb"}, "rows": {"a": "0"}}},
                 {"exact": {"words": {"a": "aaa"}, "rows": {"b": "0"}}}):
        with pytest.raises(ValueError, match="key columns"):
            LoadedIndex(dict(build_index(recs), keys=keys)).prefiltered("aaa bbb", text_tokens("aaa bbb"))


def test_rows_keep_short_literals_and_meta_comes_from_the_record() -> None:
    long = "x" * 30 + " " + "y" * 30
    recs = [
        record("a/b", "t1", f"(?P<a>.+?)a{long} (?P<b>.+?) second run (?P<c>.+?) third (?P<d>.+?) fourth"),
        record("huggingface/safetensors", "t2", "header too small", pulled_in_by=["huggingface/candle@0.4.2"]),
    ]
    data = build_index(recs)
    rows = [json.loads(r) for r in data["rows"].split("\n")]
    assert len(rows[0][indexfile.LITERALS]) == indexfile.MAX_LITERALS
    assert all(len(lit) <= indexfile.MAX_LITERAL_LEN for lit in rows[0][indexfile.LITERALS])
    ix = LoadedIndex(data)
    assert ix.literal_chars(0) == len("a" + long + " ") + len(" second run ") + len(" third ") + len(" fourth")
    meta = ix.meta(1)
    assert meta.pulled_in_by == ("huggingface/candle@0.4.2",) and meta.repo == "huggingface/safetensors"
    assert meta.pattern == "header too small" and ix.meta(0).pulled_in_by == ()
    text = "Za" + long + " 1 second run 2 third 3 fourth"
    assert ix.prefiltered(text, text_tokens(text)) == [0]


def test_an_index_of_another_format_is_refused() -> None:
    recs = fixture_records()[:2]
    old = {"format": 1, "records": [json.dumps([r["id"], -1, i, 0, ["x"]]) for i, r in enumerate(recs)], "inline": recs,
           "keys": {}, "scan": [0, 1]}
    with pytest.raises(ValueError, match="format 1"):
        LoadedIndex(old)


def test_build_index_inline_and_location_checks() -> None:
    recs = fixture_records()[:3]
    inline = build_index(recs)
    row = json.loads(inline["rows"].split("\n")[2])
    assert inline["inline"] == recs and row[indexfile.FILE] == -1 and row[indexfile.OFFSET] == 2
    assert LoadedIndex(inline).pattern(2) == recs[2]["messagePattern"]
    with pytest.raises(ValueError):
        build_index(recs, locations=[(0, 0, 1)])


def _loaded(recs: List[Dict[str, Any]]) -> LoadedIndex:
    return LoadedIndex(build_index(recs))


def test_prefilter_selects_by_key_and_literals() -> None:
    ix = _loaded(fixture_records())
    text = "shape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]"
    rows = ix.prefiltered(text, text_tokens(text))
    slugs = {ix.pattern(i) for i in rows}
    assert any(p.startswith("shape mismatch in") for p in slugs)
    assert all("shape mismatch" in p for p in slugs)
    assert ix.prefiltered("KeyError: 'x'", text_tokens("KeyError: 'x'")) == []


def test_prefilter_edge_keys_and_scan_list() -> None:
    recs = [
        record("a/b", "{} Overflow detected {}", r"(?P<a>.+?) Overflow detected (?P<b>.+)"),
        record("a/b", "{}Underflow{}", r"(?P<a>.+?)Underflow(?P<b>.+)"),
        record("a/b", "Overflow", r"Overflow"),
    ]
    ix = _loaded(recs)
    keys = choose_keys([literal_runs(r["messagePattern"]) for r in recs])
    assert keys == ["Overflow detected", None, "Overflow"] and ix.scan == [1]
    assert ix.prefiltered("x Overflow detected y", text_tokens("x Overflow detected y")) == [0, 2]
    assert ix.prefiltered("xUnderflowy", text_tokens("xUnderflowy")) == [1]


def test_excluded_ids_are_not_indexed() -> None:
    recs = fixture_records()
    ix = LoadedIndex(build_index(recs), exclude_ids={recs[0]["id"]})
    text = "unsupported dtype I64 for op conv"
    assert 0 not in ix.prefiltered(text, text_tokens(text))


def test_record_reader_gets_the_row_location() -> None:
    recs = fixture_records()[:2]
    data = build_index(recs, files=["records/x.jsonl"], locations=[(0, 0, 5), (0, 5, 7)])
    calls = []

    def reader(name: str, offset: int, length: int) -> Dict[str, Any]:
        calls.append((name, offset, length))
        return {"record": recs[1], "datasetVersion": "x"}

    ix = LoadedIndex(data, reader=reader)
    assert ix.record(1)["id"] == recs[1]["id"]
    assert ix.pattern(1) == recs[1]["messagePattern"]  # not in the row: read from the record
    assert calls == [("records/x.jsonl", 5, 7)]  # once: the record is cached
    with pytest.raises(LookupError):
        LoadedIndex(data).record(0)


def test_extra_variants_without_records() -> None:
    extra = [{"repo": "huggingface/candle", "variant": {"enum": "Error", "name": "SafeTensor", "shape": "tuple",
                                                        "fields": [{"name": "0", "debug": False}], "display": None, "transparent": True}}]
    ix = LoadedIndex(build_index(fixture_records()[:2], variants=extra))
    info = ix.variants("SafeTensor")[0]
    assert info.transparent and info.repo == "huggingface/candle" and ix.variant_rows("SafeTensor") == []


def test_variant_lines_are_found_and_decoded_per_name() -> None:
    recs = fixture_records()
    built = build_index(recs + [record(CANDLE, "odd", "odd", variant=variant("Error", "Bad\nName", "unit", [], "odd"))])
    assert "Bad\nName\t" not in built["variants"]  # cannot be a line of its own: left out
    loaded = LoadedIndex(built)
    assert [v.enum for v in loaded.variants("UnsupportedDTypeForOp")] and loaded.variants("Bad\nName") == []
    assert loaded.variants("UnsupportedDTypeFor") == [] and loaded.variants("Bad\tName") == []  # whole names only
    assert LoadedIndex(dict(built, variants="")).variants("UnsupportedDTypeForOp") == []  # no table: no templates


def test_key_buckets_are_built_for_the_tokens_then_all_at_once() -> None:
    recs = fixture_records()
    built = build_index(recs)
    ix, whole = LoadedIndex(built), LoadedIndex(built)
    whole.FILL_ALL_AFTER = 0  # every bucket on the first lookup
    text = "unsupported dtype I64 for op matmul"
    first = ix.prefiltered(text, text_tokens(text))
    assert first == whole.prefiltered(text, text_tokens(text)) != []
    exact = ix._key_maps()[0]
    assert exact and {key[0] for key in exact} <= {tok[0] for tok in text_tokens(text)}  # only the tokens' buckets
    assert whole._pending is None and len(whole._key_maps()[0]) == sum(
        col.count("|") + 1 for col in built["keys"]["exact"]["words"].values())
    others = [r["errorMessage"] for r in recs]
    for _ in range(ix.FILL_ALL_AFTER + 1):  # answers never depend on which buckets exist yet
        for message in others:
            assert ix.prefiltered(message, text_tokens(message)) == whole.prefiltered(message, text_tokens(message))
    assert ix._pending is None


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError):
        LoadedIndex({"format": 99, "records": []})


def test_variants_table_and_labels() -> None:
    ix = _loaded(fixture_records())
    infos = ix.variants("ShapeMismatchBinaryOp")
    assert len(infos) == 1 and infos[0].fields[0] == ("lhs", True) and infos[0].shape == "struct"
    assert ix.variants("Nope") == []
    assert ix.labels("huggingface/candle") == sorted(["0.4.2", "0.6.0", "0.8.0", "0.9.1", "0.11.0"])


# ---------------------------------------------------------------- property: no lost matches

_WORDS = st.sampled_from(["shape", "mismatch", "dtype", "for", "op", "tensor", "rank", "dim", "a", "of", "Can't", "x1"])
_SEPS = st.sampled_from([" ", ", ", ": ", " (", ") ", "'", " => ", "."])
_VALUES = st.sampled_from(["I64", "[2, 3]", "matmul", "xx", "", "Foo(1)", "a b", "7"])


@st.composite
def _template(draw: Any) -> List[Any]:
    parts: List[Any] = []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            parts.append(draw(_WORDS) + draw(_SEPS))
        else:
            parts.append(None)  # a placeholder
    return parts


def _pattern(parts: List[Any]) -> str:
    out = []
    groups = sum(1 for p in parts if p is None)
    seen = 0
    for p in parts:
        if p is None:
            seen += 1
            out.append(f"(?P<g{seen}>[^\\n]+)" if seen == groups and p is parts[-1] else f"(?P<g{seen}>.+?)")
        else:
            out.append(re.escape(p))
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(st.lists(_template(), min_size=1, max_size=6), st.data())
def test_prefilter_never_drops_a_match(templates: List[List[Any]], data: Any) -> None:
    recs = [record("t/t", f"t{i}", _pattern(parts), id=f"{i:016x}") for i, parts in enumerate(templates)]
    ix = _loaded(recs)
    for i, parts in enumerate(templates):
        prefix = data.draw(st.sampled_from(["", "glued", "x ", "\n"]))
        suffix = data.draw(st.sampled_from(["", "glued", " tail", "\n"]))
        text = prefix + "".join(p if p is not None else (data.draw(_VALUES) or "v") for p in parts) + suffix
        m = re.search(recs[i]["messagePattern"], text, re.DOTALL)
        if m and _on_word_boundaries(text, m.start(), m.end()):
            assert i in ix.prefiltered(text, text_tokens(text)), (recs[i]["messagePattern"], text)


def _on_word_boundaries(text: str, start: int, end: int) -> bool:
    def word(ch: str) -> bool:
        return ch.isascii() and (ch.isalnum() or ch == "_")

    return (start == 0 or not word(text[start - 1]) or not word(text[start])) and (
        end == len(text) or not word(text[end]) or not word(text[end - 1])
    )


def test_variant_field_types_reach_the_runtime_table() -> None:
    """``variant.fields[i].type`` (from the builder) is kept, so a nested value is read with
    the enum its wrapper's field names; entries without types still load."""
    wrapper = {"repo": "huggingface/candle", "variant": {
        "enum": "Error", "name": "SafeTensor", "shape": "tuple", "display": None, "transparent": True,
        "fields": [{"name": "0", "debug": False, "type": "safetensors::SafeTensorError"}]}}
    plain = {"repo": "r/r", "variant": {"enum": "E", "name": "V", "shape": "tuple", "display": "v {0}",
                                        "transparent": False, "fields": [{"name": "0", "debug": False}]}}
    loaded = LoadedIndex(build_index([], variants=[wrapper, plain]))
    info = loaded.variants("SafeTensor")[0]
    assert info.types == ("safetensors::SafeTensorError",) and info.field_enum("0") == "SafeTensorError"
    assert loaded.variants("V")[0].types == (None,) and loaded.variants("V")[0].field_enum("0") is None


def test_unknown_variant_names_are_not_held_without_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = LoadedIndex(build_index(fixture_records()))
    monkeypatch.setattr(loaded_index, "MAX_CACHED_MISSES", 8)
    for n in range(50):
        assert loaded.variants(f"NoSuchVariant{n}") == []
    assert loaded.variants("UnsupportedDTypeForOp")  # a known name is still decoded and kept
    assert len(loaded._variants) <= 9 and "UnsupportedDTypeForOp" in loaded._variants
