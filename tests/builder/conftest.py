"""Fixtures of the builder-layer tests."""

from __future__ import annotations

from typing import Dict

import pytest

from curation_support import shipped_records


@pytest.fixture(scope="module")
def shipped() -> Dict[str, Dict]:
    """The shipped records by id; the test is skipped in a tree without a dataset."""
    records = shipped_records()
    if not records:
        pytest.skip("no shipped dataset in this tree")
    return records
