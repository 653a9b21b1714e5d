"""Real candle-nn 0.4.2 errors: errhint's top match is the site that raised them.

Each case runs in a fresh interpreter with RUST_BACKTRACE set to 0 and to 1 (the binding
wraps most errors in ``WithBacktrace { .. }`` under 1); see conftest.py and _checks.py.
"""

from __future__ import annotations

import pytest
from _site import Site, require_binding

require_binding("candle")

from _checks import check_case  # noqa: E402
from cases_candle import CANDLE, CASES  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_top_match_is_the_raising_site(case: Site, backtrace: str, case_results) -> None:
    check_case(case, case_results.get("cases_candle", case.id, backtrace), backtrace)


def test_backtrace_wrapper_follows_rust_backtrace(case_results) -> None:
    """RUST_BACKTRACE=1 really reaches Rust: every ``.bt()`` site shows the wrapper, no other does."""
    wrapped = {c.id for c in CASES if c.wrapped}
    assert len(wrapped) >= 30
    seen = {
        c.id
        for c in CASES
        if case_results.get("cases_candle", c.id, "1").get("text", "").startswith("WithBacktrace {")
    }
    assert seen == wrapped
    assert not any(
        case_results.get("cases_candle", c.id, "0").get("text", "").startswith("WithBacktrace {") for c in CASES
    )


def test_covers_at_least_40_distinct_candle_sites() -> None:
    sites = {(c.template, c.file_path) for c in CASES if c.repo == CANDLE}
    templates = {c.template for c in CASES if c.repo == CANDLE}
    assert len(templates) >= 40, len(templates)
    assert len(sites) >= len(templates)
    assert len({c.id for c in CASES}) == len(CASES)


def test_rust_reads_rust_backtrace_once_per_process(tmp_path) -> None:
    """Why each value needs its own interpreter: changing os.environ after the first error is ignored."""
    import subprocess
    import sys

    code = (
        "import os, candle\n"
        "def text():\n"
        "    try:\n"
        "        candle.ones((2, 3), dtype=candle.i64).matmul(candle.ones((3, 2), dtype=candle.i64))\n"
        "    except ValueError as e:\n"
        "        return str(e)\n"
        "first = text().startswith('WithBacktrace')\n"
        "os.environ['RUST_BACKTRACE'] = '0' if first else '1'\n"
        "print(first, text().startswith('WithBacktrace'))\n"
    )
    for start, expected in (("0", "False False"), ("1", "True True")):
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
            env={"RUST_BACKTRACE": start, "PATH": "/usr/bin:/bin"}, cwd=str(tmp_path),
        )
        assert proc.stdout.strip() == expected, proc.stderr[-2000:]
