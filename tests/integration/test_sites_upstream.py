"""The site facts in the case lists hold at the pinned upstream revisions.

Runs only where the upstream git mirrors are present (``INTEGRATION_MIRROR_ROOT``, default
``/work/.mirror``); it needs no binding. For each case the file exists at the pinned commit
and contains the site: the enum variant it constructs, or the start of the template's
longest literal run (long enough to be specific, short enough to stay on one source line).
"""

from __future__ import annotations

import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import List

import pytest

from _site import Site
from cases_burn import CASES as BURN_CASES
from cases_candle import CASES as CANDLE_CASES
from cases_safetensors import CASES as ST_CASES

MIRROR_ROOT = Path(os.environ.get("INTEGRATION_MIRROR_ROOT", "/work/.mirror"))
PINNED = {
    "huggingface/candle": "cd29c7ccd420a840d883361c290ee92d06b9b96c",
    "tracel-ai/burn": "f5d889d29c33f51fdfe8786daa758d278082a565",
    "KwachOjunga/wrap-burn": "dd6657a656a2662506cb1fadae63bc121ea508e2",
    "huggingface/safetensors": "cc43011eaae470d14c411b8ba243273135830ce7",
}
PROBE_CHARS = 40
ALL: List[Site] = CANDLE_CASES + BURN_CASES + ST_CASES

pytestmark = pytest.mark.skipif(
    not all((MIRROR_ROOT / repo.replace("/", "+") / "repo").is_dir() for repo in PINNED),
    reason=f"upstream git mirrors not found under {MIRROR_ROOT} (set INTEGRATION_MIRROR_ROOT)",
)


@lru_cache(maxsize=None)
def _source(repo: str, path: str) -> str:
    git_dir = MIRROR_ROOT / repo.replace("/", "+") / "repo"
    proc = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{PINNED[repo]}:{path}"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, f"{repo}@{PINNED[repo][:10]} has no {path}: {proc.stderr.strip()}"
    return proc.stdout


def probe(template: str) -> str:
    """The opening characters of the template's longest literal run (placeholders removed)."""
    runs = re.split(r"\{[^{}]*\}", template)
    longest = max(runs, key=len).strip()
    return longest.split("\n")[0][:PROBE_CHARS]


@pytest.mark.parametrize("case", ALL, ids=lambda c: f"{c.repo.split('/')[1]}-{c.id}")
def test_site_is_in_the_file_at_the_pinned_commit(case: Site) -> None:
    text = _source(case.repo, case.file_path)
    if case.variant:  # an error-enum variant, named (as a whole word) where it is declared or built
        assert re.search(rf"\b{re.escape(case.variant)}\b", text), f"{case.id}: {case.variant!r} not in {case.repo}:{case.file_path}"
        return
    needle = probe(case.template)
    assert len(needle) >= 8, f"{case.id}: probe {needle!r} too short to be specific"
    assert needle in text, f"{case.id}: {needle!r} not in {case.repo}:{case.file_path}"
