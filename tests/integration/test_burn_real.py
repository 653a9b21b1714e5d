"""Real pyburn 0.1.7 (burn v0.18.0) errors: errhint's top match is the site that raised them.

Each case runs alone in a fresh interpreter (a panic can poison burn's RNG lock for the rest
of a process), once with RUST_BACKTRACE=0 and once with 1.
"""

from __future__ import annotations

import pytest
from _site import Site, require_binding

require_binding("pyburn")

from _checks import check_case  # noqa: E402
from cases_burn import BURN, CASES  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_top_match_is_the_raising_site(case: Site, backtrace: str, case_results) -> None:
    check_case(case, case_results.get("cases_burn", case.id, backtrace), backtrace)


def test_covers_at_least_25_distinct_burn_sites() -> None:
    sites = {(c.template, c.file_path) for c in CASES if c.repo == BURN}
    assert len(sites) >= 25, len(sites)
    assert len({c.id for c in CASES}) == len(CASES)


def test_panics_are_base_exceptions(case_results) -> None:
    """pyo3's PanicException escapes ``except Exception``: the cases must catch BaseException."""
    case = next(c for c in CASES if c.exc_type == "PanicException")
    result = case_results.get("cases_burn", case.id, "0")
    assert result["exc_module"] == "pyo3_runtime"
