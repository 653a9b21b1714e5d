"""distinfo.py: installed versions and entry points read from ``*.dist-info`` folders."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errhint import distinfo


@given(st.text(alphabet="aB9-_.é", max_size=16))
def test_canonical_is_pep503_normalisation(name: str) -> None:
    assert distinfo.canonical(name) == re.sub(r"[-_.]+", "-", name).lower()


def test_entry_points_of_one_group_across_distributions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = {
        "one-1.0": "[errhint.datasets]\none = one_pkg\n\n[console_scripts]\none = one:main\n",
        "two-2.0": "[console_scripts]\ntwo = errhint.datasets:main\n",  # names the group only in a value
        "three-3.0": "[ errhint.datasets ]\nthree = three_pkg\n",
        "four-4.0": None,  # no entry_points.txt at all
    }
    for folder, text in texts.items():
        dist = tmp_path / f"{folder}.dist-info"
        dist.mkdir()
        if text is not None:
            (dist / "entry_points.txt").write_text(text)
    (tmp_path / "not_a_dist").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    distinfo.clear()
    try:
        assert sorted(distinfo.entry_point_lines("errhint.datasets")) == ["one = one_pkg", "three = three_pkg"]
        assert {"one = one:main", "two = errhint.datasets:main"} <= set(distinfo.entry_point_lines("console_scripts"))
        assert (distinfo.version("One"), distinfo.version("four"), distinfo.version("not_a_dist")) == ("1.0", "4.0", None)
    finally:
        monkeypatch.undo()
        distinfo.clear()

