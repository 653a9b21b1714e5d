"""Hand-written ONNX-importer texts (curation/sites/onnx-*.jsonl) against the records they override.

Every entry must name a shipped burn / burn-onnx record of the importer crates (onnx-ir,
burn-import, burn-onnx), use only ``{name}`` placeholders that are groups of that record's
pattern (and none inside example code, where a capture would be pasted into it), keep Python
example fixes syntactically valid, and never fall back to the old generic importer boilerplate.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List


from curation_support import TEXT_FIELDS, entries, placeholder_problems

ROOT = Path(__file__).resolve().parents[2]
IMPORTER_CRATES = {"onnx-ir", "burn-import", "burn-onnx", "onnx-ir-derive"}
# Phrases of the generic family text these entries replace; none of them may come back.
BOILERPLATE = (
    "Re-export the model with a lower opset and static shapes",
    "Importing models exported with newer opsets, dynamic shapes, or operators",
)


ENTRIES = entries("onnx-*.jsonl")


def _texts(entry: Dict, field: str) -> List[str]:
    value = entry.get(field) or []
    return value if isinstance(value, list) else [value]


def test_there_are_onnx_entries_and_each_id_appears_once():
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) > 500
    assert len(ids) == len(set(ids))


def test_every_entry_names_a_shipped_importer_record(shipped):
    unknown = [e["id"] for e in ENTRIES if e["id"] not in shipped]
    assert unknown == []
    assert {shipped[e["id"]]["crate"] for e in ENTRIES} <= IMPORTER_CRATES


def test_placeholders_are_pattern_groups_and_stay_out_of_code(shipped):
    assert placeholder_problems(ENTRIES, shipped) == []


def test_python_example_fixes_parse():
    python_fixes = [e for e in ENTRIES if e.get("exampleFix", "").startswith("import ")]
    assert python_fixes, "expected some onnx-package example fixes"
    for e in python_fixes:
        ast.parse(e["exampleFix"])


def test_no_generic_importer_boilerplate():
    hits = [
        (e["id"], phrase)
        for e in ENTRIES
        for field in TEXT_FIELDS + ("exampleFix",)
        for text in _texts(e, field)
        for phrase in BOILERPLATE
        if phrase in text
    ]
    assert hits == []
