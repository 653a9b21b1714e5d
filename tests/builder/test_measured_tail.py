"""builder.coverage.measured_tail: the benchmarks' part of docs/coverage.md survives a build."""

from __future__ import annotations

from pathlib import Path

from builder import coverage


def test_the_part_after_the_marker_is_kept_and_nothing_else(tmp_path: Path) -> None:
    doc = tmp_path / "coverage.md"
    assert coverage.measured_tail(doc) == ""  # no file yet
    doc.write_text("# generated table\n| a | b |\n", encoding="utf-8")
    assert coverage.measured_tail(doc) == ""  # no marker: nothing to keep
    doc.write_text("# generated\n\n" + coverage.MEASURED + "\n## measured\n| 80.0% |\n", encoding="utf-8")
    kept = coverage.measured_tail(doc)
    assert kept == "\n" + coverage.MEASURED + "\n## measured\n| 80.0% |\n"
    doc.write_text("# generated again\n" + kept, encoding="utf-8")  # what the next build writes
    assert coverage.measured_tail(doc) == kept  # stable across builds
