"""Dataset sources: shipped package, paths, ERRHINT_DATA, entry points; caching and errors."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

import errhint
from errhint import data, distinfo

SEED_IDS = {"e5cbc383ddde27cd", "e2024bcfe3b937af"}

pytestmark = pytest.mark.usefixtures("clean_errhint")


def test_shipped_dataset_loads_validated_records_including_the_seeds() -> None:
    records = errhint.load_dataset()
    ids = {r.id for r in records}
    assert SEED_IDS <= ids
    assert len(ids) == len(records)
    manifest = data.shipped_manifest()
    counted = sum(f["records"] for name, f in manifest["files"].items() if name.endswith(".jsonl"))
    assert counted == len(records)


def test_shipped_sources_are_the_record_files_only() -> None:
    names = [name for name, _ in data.shipped_sources()]
    assert names and all(n.startswith("errhint_data/records/") and n.endswith(".jsonl") for n in names)


def test_load_dataset_is_cached_per_process() -> None:
    first = errhint.load_dataset()
    second = errhint.load_dataset()
    assert first == second and first[0] is second[0]


def test_paths_add_records_and_same_id_replaces_shipped(make_record: Callable[..., Dict[str, Any]], write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl([make_record(), make_record(id="e5cbc383ddde27cd", slug="replaced-seed")])
    records = {r.id: r for r in errhint.load_dataset(paths=[path])}
    assert records["00000000000000aa"].slug == "widget-count-mismatch"
    assert records["e5cbc383ddde27cd"].slug == "replaced-seed"
    assert len([r for r in records.values() if r.id == "e5cbc383ddde27cd"]) == 1


def test_errhint_data_env_takes_files_and_folders(
    make_record: Callable[..., Dict[str, Any]], write_jsonl: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = write_jsonl([make_record(id="00000000000000a1")], "one/a.jsonl")
    write_jsonl([make_record(id="00000000000000b1")], "two/b.jsonl")
    monkeypatch.setenv("ERRHINT_DATA", os.pathsep.join([str(a), str(tmp_path / "two")]))
    ids = {r["id"] for r in data.extra_records()}
    assert ids == {"00000000000000a1", "00000000000000b1"}


def test_bare_records_are_accepted(make_record: Callable[..., Dict[str, Any]], write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl([make_record()], wrap=False)
    assert [r["id"] for r in data.extra_records([path])] == ["00000000000000aa"]


def test_malformed_json_line_is_skipped_with_a_warning_naming_file_and_line(
    tmp_path: Path, make_record: Callable[..., Dict[str, Any]], capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"record": make_record()}) + "\n{not json\n")
    assert [r["id"] for r in data.extra_records([path])] == ["00000000000000aa"]  # the good line survives
    err = capsys.readouterr().err
    assert f"{path}:2: not valid JSON" in err and err.count("warning") == 1


def test_invalid_field_names_file_line_record_and_field(make_record: Callable[..., Dict[str, Any]], write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl([make_record(), make_record(id="00000000000000bb", lineNumber=-3)])
    with pytest.raises(errhint.DatasetError) as info:
        errhint.load_dataset(paths=[path])
    err = info.value
    assert (err.file, err.line, err.record_id, err.field) == (str(path), 2, "00000000000000bb", "lineNumber")


def test_missing_path_is_one_warning_not_an_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert data.extra_records([tmp_path / "absent.jsonl"]) == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file or directory" in err and "absent.jsonl" in err


def test_problems_lists_every_problem(make_record: Callable[..., Dict[str, Any]], write_jsonl: Callable[..., Path]) -> None:
    path = write_jsonl([make_record(lineNumber=0, errorType="boom"), make_record(), make_record()])
    found = data.problems([path])
    fields = sorted(p.field for p in found)
    assert fields == ["errorType", "id", "lineNumber"]


def test_entry_point_dataset_is_discovered(
    tmp_path: Path, make_record: Callable[..., Dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "acme_hints"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "acme.jsonl").write_text(json.dumps({"record": make_record(id="00000000000000ee")}) + "\n")
    dist = tmp_path / "acme_hints-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-hints\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[errhint.datasets]\nacme = acme_hints\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    distinfo.clear()
    assert distinfo.version("acme_hints") == "1.0"
    ids = {r.id for r in errhint.load_dataset()}
    assert "00000000000000ee" in ids and SEED_IDS <= ids


def test_concurrent_first_loads_validate_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: List[int] = []
    real = data._validated

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(data, "_validated", counting)
    results: List[List[Any]] = []
    barrier = threading.Barrier(16)

    def work() -> None:
        barrier.wait()
        results.append(errhint.load_dataset())

    threads = [threading.Thread(target=work) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 16
    assert all(r == results[0] for r in results)
    assert len(calls) == 2  # shipped once + extras once, not per thread


def test_shipped_line_is_read_by_byte_range() -> None:
    index = data.shipped_index()
    assert index is not None and index["files"]
    manifest = data.shipped_manifest()
    assert set(index["files"]) <= set(manifest["files"])


def test_one_family_is_read_alone_and_equals_the_catalogue_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    catalogue = data.shipped_families()
    assert catalogue and all(data.shipped_family(tag) == family for tag, family in catalogue.items())
    assert data.shipped_family("no-such-family") is None and data.shipped_family('a"b') is None
    # another layout of the file (no indentation): found by decoding the whole catalogue
    pkg = data._package()
    compact = json.dumps({"families": catalogue}, separators=(",", ":")).encode()
    monkeypatch.setattr(pkg, "read_bytes", lambda name: compact if name == "families.json" else b"")
    tag = sorted(catalogue)[0]
    assert data.shipped_family(tag) == catalogue[tag]
