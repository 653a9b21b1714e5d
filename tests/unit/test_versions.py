"""errhint.versions: the one ordering of release labels (runtime ranking, CLI stats, builder)."""

from __future__ import annotations

import random

import pytest

from errhint.rank import pick_label
from errhint.versions import is_release, version_key

ORDERED = ["v0.13.0", "0.13.1", "0.14.0-pre.1", "0.14.0-pre.2", "0.14.0", "0.14.0.post1", "v0.16.0",
           "v0.18.0", "v0.20.0", "v23.0.0-pre", "v23.0.0", "main", "nightly"]


def test_labels_sort_by_number_pre_releases_first_branch_then_text_last() -> None:
    shuffled = ORDERED[:]
    random.Random(7).shuffle(shuffled)
    assert sorted(shuffled, key=version_key) == ORDERED


@pytest.mark.parametrize("label, release", [("v0.18.0", True), ("0.4.2", True), ("0.9.0rc1", True),
                                            ("main", False), ("nightly", False), ("", False)])
def test_is_release(label: str, release: bool) -> None:
    assert is_release(label) is release


def test_pick_label_takes_the_newest_release_not_newer_than_installed() -> None:
    labels = ["0.3.3", "0.4.2", "0.8.4", "main", "0.11.0"]
    assert pick_label("0.4.2", labels) == "0.4.2"
    assert pick_label("0.5.1", labels) == "0.4.2"
    assert pick_label("0.4.2.post1", labels) == "0.4.2"
    assert pick_label("0.9.0rc1", labels) == "0.8.4"
    assert pick_label("0.2.0", labels) is None
