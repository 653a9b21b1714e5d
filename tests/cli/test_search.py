"""``errhint search``: the full-text index (words anywhere, ranked by field) and the command."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Dict, List

from cli_support import BURN_ID, DTYPE_ID, SHAPE_ID, cli, cli_data, records, write_dataset  # noqa: F401 (fixtures)

from errhint.cli._search import SearchIndex, terms


def ids(hits: List[Any]) -> List[str]:
    return [h.record["id"] for h in hits]


def test_terms_are_lowercased_unique_words() -> None:
    assert terms("Shape  shape, MATMUL!") == ["shape", "matmul"]
    assert terms("  ... ") == []


def test_every_word_must_occur() -> None:
    idx = SearchIndex(records())
    assert ids(idx.search("matmul")) and set(ids(idx.search("matmul"))) == {DTYPE_ID, SHAPE_ID}
    assert ids(idx.search("matmul broadcast")) == []
    assert ids(idx.search("broadcast")) == [BURN_ID]


def test_words_match_inside_longer_words_case_insensitively() -> None:
    idx = SearchIndex(records())
    assert ids(idx.search("DTYP")) == [DTYPE_ID]


def test_documentation_and_variant_names_are_searched() -> None:
    idx = SearchIndex(records())
    assert ids(idx.search("kernel exists")) == [DTYPE_ID]  # documentation only
    assert ids(idx.search("ShapeMismatchBinaryOp")) == [SHAPE_ID]  # variant name


def test_a_word_in_the_message_outranks_one_in_the_documentation(make_record: Callable[..., Dict[str, Any]]) -> None:
    in_doc = make_record(id="00000000000000d0", errorMessage="plain failure", documentation="about quantization here")
    in_msg = make_record(id="00000000000000d1", errorMessage="quantization failed", documentation="nothing")
    hits = SearchIndex([in_doc, in_msg]).search("quantization")
    assert ids(hits) == ["00000000000000d1", "00000000000000d0"]
    assert hits[0].score > hits[1].score


def test_filters_by_repo_type_and_family() -> None:
    idx = SearchIndex(records())
    assert ids(idx.search("shape", repos=["tracel-ai/burn"])) == [BURN_ID]
    assert ids(idx.search("shape", error_type="panic")) == [BURN_ID]
    assert ids(idx.search("shape", family="shape-mismatch-binary-op")) == [SHAPE_ID]


def test_family_titles_are_searchable() -> None:
    idx = SearchIndex(records(), {"broadcast": {"title": "Shapes that cannot be broadcast together"}})
    assert ids(idx.search("together")) == [BURN_ID]


def test_ten_thousand_records_search_in_well_under_a_tenth_of_a_second(make_record: Callable[..., Dict[str, Any]]) -> None:
    recs = [
        make_record(
            id=f"{i:016x}",
            errorMessage=f"operation number {i} failed with dtype F{i % 64}",
            documentation="Longer documentation text that mentions tensors, devices and shapes. " * 3,
            tags=[f"tag{i % 50}", "generic"],
        )
        for i in range(10_000)
    ]
    idx = SearchIndex(recs)
    start = time.perf_counter()
    hits = idx.search("dtype f63 generic")
    elapsed = time.perf_counter() - start
    assert len(hits) == len([i for i in range(10_000) if i % 64 == 63])
    assert elapsed < 2.0, elapsed  # a scan quadratic in the records would take far longer


def test_command_text_and_json(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("search", "--data", str(cli_data), "incompatible", "shapes")
    assert res.code == 0
    assert BURN_ID in res.out and "tracel-ai/burn" in res.out
    res = cli("search", "--data", str(cli_data), "--json", "matmul")
    doc = res.json()
    assert res.code == 0
    assert doc["query"] == "matmul" and doc["total"] == 2
    assert {r["id"] for r in doc["results"]} == {DTYPE_ID, SHAPE_ID}
    first = doc["results"][0]
    assert set(first) == {"id", "repo", "errorType", "errorMessage", "backgroundTag", "filePath", "score"}
    assert isinstance(first["score"], float)


def test_command_limit_and_nothing_found(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("search", "--data", str(cli_data), "--json", "-n", "1", "matmul")
    assert res.json()["total"] == 2 and len(res.json()["results"]) == 1
    res = cli("search", "--data", str(cli_data), "zzzqqq")
    assert res.code == 1 and res.out == "" and "no record" in res.err
    assert cli("search", "--data", str(cli_data), "--json", "zzzqqq").json() == {"query": "zzzqqq", "total": 0, "results": []}


def test_command_usage_errors(cli: Callable[..., Any], cli_data: Path) -> None:
    assert cli("search", "--data", str(cli_data), "...").code == 2
    assert cli("search").code == 2


def test_later_dataset_replaces_a_record_with_the_same_id(cli: Callable[..., Any], tmp_path: Path, cli_data: Path) -> None:
    changed = records()[0]
    changed["errorMessage"] = "replaced message with a unique word xylophone"
    override = write_dataset(tmp_path / "override.jsonl", [changed])
    res = cli("search", "--data", str(cli_data), "--data", str(override), "--json", "xylophone")
    assert [r["id"] for r in res.json()["results"]] == [DTYPE_ID]
    assert cli("search", "--data", str(cli_data), "--data", str(override), "--json", "col2im").json()["total"] == 0


def test_ties_prefer_records_in_more_releases_then_shorter_messages(make_record: Callable[..., Dict[str, Any]]) -> None:
    recs = [
        make_record(id="00000000000000e1", errorMessage="widget failed: long detail here", versions=["1"]),
        make_record(id="00000000000000e2", errorMessage="widget failed: detail", versions=["1"]),
        make_record(id="00000000000000e3", errorMessage="widget failed: the longest detail of all", versions=["1", "2"]),
    ]
    hits = SearchIndex(recs).search("widget")
    assert len({h.score for h in hits}) == 1
    assert ids(hits) == ["00000000000000e3", "00000000000000e2", "00000000000000e1"]
