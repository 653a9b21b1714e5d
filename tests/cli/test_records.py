"""``errhint show``, ``stats`` and ``validate``: commands that look at whole records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from cli_support import BURN_ID, DTYPE_ID, DTYPE_MARK, SHAPE_ID, cli, cli_data, records, write_dataset  # noqa: F401

from errhint.cli.stats import compute

# ---------------------------------------------------------------- show


def test_show_prints_every_section_of_the_record(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("show", "--data", str(cli_data), DTYPE_ID)
    assert res.code == 0
    out = res.out
    assert out.splitlines()[0] == "unsupported dtype {0:?} for op {1}"
    for expected in (
        "candle-core/src/error.rs:30",
        "0.4.2, 0.6.0",
        "Error::UnsupportedDTypeForOp (tuple)",
        "https://github.com/huggingface/candle/blob/",
        "What it means",
        "How to fix",
        f"1. Cast the {{f0}} tensor to F32 before {{f1}} ({DTYPE_MARK})",
        "x = x.to_dtype(candle.f32)",
        "Prevention",
    ):
        assert expected in out, expected
    assert "\x1b[" not in out  # not a terminal: no colour


def test_show_accepts_a_unique_prefix_or_slug(cli: Callable[..., Any], cli_data: Path) -> None:
    assert cli("show", "--data", str(cli_data), "--json", "incompatible-shapes-broadcast-cli").json()["record"]["id"] == BURN_ID
    assert cli("show", "--data", str(cli_data), "--json", SHAPE_ID[:-2]).json()["record"]["id"] == SHAPE_ID


def test_show_ambiguous_prefix_is_a_usage_error_and_unknown_id_is_not_found(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("show", "--data", str(cli_data), "c110")
    assert res.code == 2 and "ambiguous" in res.err
    res = cli("show", "--data", str(cli_data), "ffffffffffffffff")
    assert res.code == 1 and res.out == "" and "no record" in res.err


def test_show_json_shape(cli: Callable[..., Any], cli_data: Path) -> None:
    doc = cli("show", "--data", str(cli_data), "--json", DTYPE_ID).json()
    assert set(doc) == {"record", "family"}
    assert doc["record"] == records()[0]  # the record exactly as written (camelCase)
    assert doc["family"] is None  # the test families are not in any catalogue


# ---------------------------------------------------------------- stats


def test_stats_counts_per_repo_version_family_and_type() -> None:
    s = compute(records())
    assert s["total"] == 3
    assert s["repos"] == {"huggingface/candle": 2, "tracel-ai/burn": 1}
    assert s["versions"] == {"huggingface/candle": {"0.4.2": 2, "0.6.0": 1}, "tracel-ai/burn": {"v0.16.0": 1, "v0.18.0": 1}}
    assert s["errorTypes"] == {"exception": 2, "panic": 1}
    assert s["families"] == {"broadcast": 1, "shape-mismatch-binary-op": 1, "unsupported-dtype-for-op": 1}


def test_stats_orders_versions_numerically_and_marks_unversioned(make_record: Callable[..., Any]) -> None:
    recs = [make_record(id=f"{i:016x}", versions=v) for i, v in enumerate([["v0.9.0"], ["v0.13.0"], None])]
    s = compute(recs)
    assert list(s["versions"]["example/widgets"]) == ["v0.9.0", "v0.13.0", "(none)"]


def test_stats_command_text_and_json(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("stats", "--data", str(cli_data))
    assert res.code == 0
    for word in ("Per repository", "Per version", "Per errorType", "Per family", "tracel-ai/burn", "v0.18.0"):
        assert word in res.out
    doc = cli("stats", "--data", str(cli_data), "--json").json()
    assert set(doc) == {"datasetVersion", "total", "repos", "versions", "families", "errorTypes"}
    assert doc["total"] >= 3  # plus the shipped records once they exist
    assert doc["repos"]["tracel-ai/burn"] >= 1


# ---------------------------------------------------------------- validate


def test_validate_valid_file(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("validate", str(cli_data))
    assert res.code == 0
    assert "ok: 1 file, 3 record lines, no problems" in res.out


def test_validate_lists_every_problem_and_exits_1(cli: Callable[..., Any], tmp_path: Path) -> None:
    bad = records() + [records()[2]]
    bad[0]["messagePattern"] = "(unclosed"
    del bad[1]["solutions"]
    path = write_dataset(tmp_path / "bad.jsonl", bad)
    with path.open("a") as fh:
        fh.write("{broken json\n")
    res = cli("validate", str(path))
    assert res.code == 1
    lines = [ln for ln in res.out.splitlines() if ln.startswith("error: ")]
    assert len(lines) == 4
    assert any(":1: record " + DTYPE_ID + ": field messagePattern" in ln for ln in lines)
    assert any(":2: record " + SHAPE_ID + ": field solutions" in ln for ln in lines)
    assert any(":4: record " + BURN_ID + ": field id: duplicate id" in ln for ln in lines)
    assert any(":5: not valid JSON" in ln for ln in lines)
    doc = cli("validate", "--json", str(path)).json()
    assert doc["ok"] is False and doc["records"] == 5 and doc["files"] == [str(path)]
    assert [p["line"] for p in doc["problems"]] == [1, 2, 4, 5]
    assert set(doc["problems"][0]) == {"file", "line", "recordId", "field", "reason", "message"}
    assert doc["problems"][1]["field"] == "solutions"


def test_validate_folder_and_missing_path(cli: Callable[..., Any], tmp_path: Path) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    write_dataset(folder / "a.jsonl", records()[:1])
    write_dataset(folder / "b.jsonl", records()[1:])
    doc = cli("validate", "--json", str(folder)).json()
    assert doc["ok"] is True and len(doc["files"]) == 2 and doc["records"] == 3
    res = cli("validate", "--json", str(tmp_path / "missing.jsonl"))
    assert res.code == 1
    assert "no such file" in res.json()["problems"][0]["reason"]


def test_validate_json_output_is_plain_json_even_when_colour_is_forced(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("validate", "--json", "--color", "always", str(cli_data))
    assert json.loads(res.out)["ok"] is True and "\x1b[" not in res.out


# ---------------------------------------------------------------- loading


def test_a_broken_extra_dataset_line_is_a_warning_and_the_rest_loads(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{nope\n" + cli_data.read_text(encoding="utf-8"), encoding="utf-8")
    res = cli("stats", "--json", "--data", str(bad))
    assert res.code == 0 and res.json()["total"] == 3  # the three good lines after the bad one
    assert res.err.count("warning") == 1 and f"{bad}:1: not valid JSON" in res.err
