"""The blind-review draw: the same seed and dataset give the same sample; worksheets show the text under review."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict

from builder.review_sample import draw, load_records, worksheet


def _dataset(tmp_path: Path, make_record: Callable[..., Dict[str, Any]], n: int) -> Path:
    (tmp_path / "records").mkdir()
    lines = [json.dumps({"record": make_record(id=f"{i:016x}"), "datasetVersion": "t"}) for i in range(n)]
    (tmp_path / "records" / "a.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_draw_is_reproducible_and_depends_on_the_seed(tmp_path: Path, make_record: Callable[..., Dict[str, Any]]) -> None:
    records = load_records(_dataset(tmp_path, make_record, 50))
    first = [r["id"] for r in draw(records, 10, seed=7)]
    assert first == [r["id"] for r in draw(records, 10, seed=7)]
    assert first != [r["id"] for r in draw(records, 10, seed=8)]
    assert len(set(first)) == 10 and first == sorted(first)
    assert len(draw(records, 500, seed=7)) == 50


def test_worksheet_shows_template_site_and_first_solution(make_record: Callable[..., Dict[str, Any]]) -> None:
    record = make_record(solutions=["Give both frames the same widget count."])
    text = worksheet(record, "   10> panic!()")
    assert record["errorMessage"] in text and record["githubUrl"] in text
    assert "first solution: Give both frames the same widget count." in text
    assert "   10> panic!()" in text
    assert "first solution: (none)" in worksheet(make_record(solutions=[]), None)
