"""Hand-written candle texts (curation/sites/candle-*.jsonl) against the records they override.

Checks that every entry names a shipped record, that its ``{name}`` placeholders are groups of
that record's pattern (and never sit in code, where a capture would be pasted into it), and
that the Python example fixes run against the installed candle-nn binding.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from curation_support import entries, failing_snippets, placeholder_problems

ROOT = Path(__file__).resolve().parents[2]


ENTRIES = entries("candle-*.jsonl")


def test_there_are_candle_entries_and_each_id_appears_once():
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) > 100
    assert len(ids) == len(set(ids))


def test_every_entry_names_a_shipped_candle_record(shipped):
    unknown = [e["id"] for e in ENTRIES if e["id"] not in shipped]
    assert unknown == []
    assert {shipped[e["id"]]["repo"] for e in ENTRIES} == {"huggingface/candle"}


def test_placeholders_are_pattern_groups_and_stay_out_of_code(shipped):
    assert placeholder_problems(ENTRIES, shipped) == []


def test_python_example_fixes_name_only_real_binding_attributes():
    candle = pytest.importorskip("candle")
    called = re.compile(r"\bcandle\.([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?")
    import importlib

    missing = []
    for e in ENTRIES:
        code = e.get("exampleFix", "")
        if not code.startswith("import candle"):
            continue
        for top, sub in called.findall(code):
            if not hasattr(candle, top):
                try:
                    importlib.import_module("candle." + top)
                except ImportError:
                    missing.append((e["id"], top))
                    continue
            obj = getattr(candle, top, None) or importlib.import_module("candle." + top)
            if sub and not hasattr(obj, sub):
                missing.append((e["id"], top + "." + sub))
    assert missing == []


@pytest.mark.parametrize("backtrace", ["0", "1"])
def test_python_example_fixes_run_against_the_installed_binding(tmp_path, backtrace):
    pytest.importorskip("candle")
    snippets = [[e["id"], e["exampleFix"]] for e in ENTRIES if e.get("exampleFix", "").startswith("import candle")]
    assert len(snippets) >= 30
    assert failing_snippets(snippets, backtrace, tmp_path) == []
