"""Shipped records' own example messages, bare and wrapped the ways users see them.

Shared by ``bench_floor.py`` and the floor tests: each case is (record id, pattern,
text). The example is the builder's synthesised message for the record's template
(``builder.template.synthesize``), the one the build gate checks the pattern against.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "errhint_data" / "records"

WRAPPERS: Dict[str, Callable[[str], str]] = {
    "bare": lambda m: m,
    "rust-main": lambda m: "Error: " + m,
    "context": lambda m: "layer 3 failed: " + m,
    "anyhow": lambda m: "Error: Failed to load model\n\nCaused by:\n    0: " + m.replace("\n", "\n       "),
    "anyhow-chain": lambda m: "Error: Failed to run\n\nCaused by:\n    0: while loading weights\n    1: " + m.replace("\n", "\n       "),
    "repr": lambda m: "RuntimeError(" + repr(m) + ")",
    "sentence": lambda m: "the job stopped because " + m,
    "suffix": lambda m: m + "\n(see the log above for the failing call)",
}
"""How a message reaches a user, beyond its bare form (the ``{}`` is the message)."""


def shipped_records(root: Path = RECORDS) -> List[dict]:
    out = []
    for path in sorted(root.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["record"])
    return out


def example(record: dict) -> str:
    """The builder's example message of ``record`` (its template with example values)."""
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from builder.template import parse_format, synthesize

    return synthesize(parse_format(record["errorMessage"]))


def same_error(rec: dict, match, by_id: Dict[str, dict]) -> bool:
    """Whether ``match`` names ``rec``'s error: its record or one merged into it (``also``)
    has ``rec``'s pattern (the same template at another site), or, for a Debug form, it is
    the same enum variant read with another release's or crate's Display (the engine shows
    one hint for rival readings of one Debug value)."""
    ids = (match.id,) + tuple(match.also)
    if any(by_id[i]["messagePattern"] == rec["messagePattern"] for i in ids if i in by_id):
        return True
    variant = rec.get("variant") or {}
    if not variant.get("name"):
        return False
    return any((by_id[i].get("variant") or {}).get("name") == variant["name"] for i in ids if i in by_id)


def cases(records: List[dict], wrappers: Dict[str, Callable[[str], str]] = WRAPPERS) -> Iterator[Tuple[dict, str, str]]:
    """(record, wrapper name, text) for every record whose pattern matches its own example; not
    the records ``onlyVia`` a binding call, which a text never gets (docs/matching.md)."""
    import regex

    for rec in records:
        if rec.get("onlyVia"):
            continue
        msg = example(rec)
        if regex.search(rec["messagePattern"], msg, regex.DOTALL) is None:
            continue  # the gate's own example differs (a TensorCheck details tail): not a case
        for name, wrap in wrappers.items():
            yield rec, name, wrap(msg)
