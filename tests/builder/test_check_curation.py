"""``python -m builder.check_curation`` and ``python -m builder.uncurated``: the writers' tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder import check_curation, uncurated

ROOT = Path(__file__).resolve().parents[2]
RECORD = {"id": "aaaa000000000001", "repo": "r/x", "crate": "x", "errorMessage": "bad {dim} of size \\{N\\}",
          "messagePattern": r"bad (?P<dim>\d+) of size \{N\}", "curated": False}


def test_every_curation_file_passes_the_check():
    files = sorted((ROOT / "curation" / "sites").glob("*.jsonl"))
    records = {r["id"]: r for r in uncurated.load_records(ROOT / "errhint_data")}
    assert files and check_curation.check_files(files, records) == []


def test_the_check_reports_each_problem_with_its_line(tmp_path):
    lines = [
        "not json",
        json.dumps({"documentation": "no id"}),
        json.dumps({"id": "ffff000000000000", "documentation": "unknown id"}),
        json.dumps({"id": RECORD["id"], "solutions": ["Make {dim} smaller than {rank}."]}),
        json.dumps({"id": RECORD["id"], "exampleFix": "x.narrow({dim}, 0, 1)"}),
        json.dumps({"id": "aaaa000000000002", "commonSituations": "only this"}),
    ]
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = {RECORD["id"]: RECORD, "aaaa000000000002": dict(RECORD, id="aaaa000000000002")}
    problems = check_curation.check_files([path], records)
    where = [p.split(": ", 1)[0].rsplit(":", 1)[1] for p in problems]
    assert where == ["1", "2", "3", "4", "5", "5", "6"], problems
    assert "{rank}" in problems[3] and "{dim}" not in problems[3]
    assert "already written" in problems[4] and "pasted into code" in problems[5]
    assert "writes no text" in problems[6]


def test_a_literal_brace_name_in_the_message_may_be_quoted():
    entry = {"id": RECORD["id"], "documentation": "The text prints {N} literally; {dim} is the axis."}
    assert check_curation.placeholder_problems(entry, RECORD["messagePattern"]) == []


def test_the_work_list_holds_only_unwritten_records_of_the_asked_crates():
    written = dict(RECORD, id="b", curated=True)
    other = dict(RECORD, id="c", crate="y")
    todo = uncurated.unwritten([RECORD, written, other], crates=["x"])
    assert [r["id"] for r in todo] == [RECORD["id"]]
    assert uncurated.work_item(RECORD)["groups"] == ["dim"]


def test_the_work_list_command_runs_on_the_shipped_dataset(capsys):
    data = ROOT / "errhint_data"
    todo = uncurated.unwritten(uncurated.load_records(data))
    assert uncurated.main(["--summary", "--data", str(data)]) == 0
    summary = capsys.readouterr().out.strip().splitlines()
    assert summary[-1] == f"{len(todo)} in all"
    if not todo:
        return
    crate = todo[0]["crate"]
    assert uncurated.main(["--crate", crate, "--data", str(data)]) == 0
    items = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert items and {i["crate"] for i in items} == {crate}
    assert {i["id"] for i in items} == {r["id"] for r in todo if r["crate"] == crate}


@pytest.mark.parametrize(
    "text, noted",
    [
        ("Fires in burn v0.19 to v0.21.", "never main"),
        ("Fires in burn v0.19 to v0.21 and main.", None),
        ("Fires in burn v0.18 to v0.21.", "the template is in v0.19.0"),
    ],
)
def test_a_range_that_stops_before_main_is_noted(text, noted):
    record = {"repo": "tracel-ai/burn", "versions": ["v0.19.0", "v0.20.0", "v0.21.0", "main"]}
    notes = check_curation.range_notes({"triggerScenarios": text}, record)
    if noted is None:
        assert notes == []
    else:
        assert len(notes) == 1 and noted in notes[0]
