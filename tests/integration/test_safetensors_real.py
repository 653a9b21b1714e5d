"""Malformed safetensors files loaded for real through candle-nn 0.4.2.

The files are written by the trigger into this run's tmp directory; each case is checked
with RUST_BACKTRACE=0 and 1.
"""

from __future__ import annotations

import pytest
from _site import Site, require_binding

require_binding("candle")

from _checks import check_case  # noqa: E402
from cases_safetensors import CASES, ST  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_top_match_is_the_raising_site(case: Site, backtrace: str, case_results) -> None:
    check_case(case, case_results.get("cases_safetensors", case.id, backtrace), backtrace)


def test_debug_form_is_what_users_see(case_results) -> None:
    """safetensors 0.4.1 prints Debug as Display: the variant name is the whole message."""
    result = case_results.get("cases_safetensors", "offsets-not-contiguous", "1")
    assert result["text"] == 'SafeTensor(InvalidOffset("t"))'


def test_covers_the_safetensors_variants_reachable_from_candle() -> None:
    variants = {c.variant for c in CASES if c.repo == ST}
    assert len(variants) >= 9, sorted(variants)
