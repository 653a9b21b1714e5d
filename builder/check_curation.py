"""``python -m builder.check_curation``: problems in the hand-written text of ``curation/sites``.

Checks each line of the given curation files (default: every ``curation/sites/*.jsonl``)
against the built dataset: the line is JSON with an ``id`` no other line wrote, the id names a
shipped record, it writes some text, every ``{name}`` in its prose is a group of the record's
pattern (the renderer fills those from the user's error), and no group name is pasted into
``exampleFix`` code. Prints one line per problem and exits 1 if there is any; notes (version
ranges in the prose that differ from the record's releases) are printed too but do not fail.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from builder.review_sample import load_records
from errhint.constants import NAMED_GROUP

PROSE_FIELDS = ("triggerScenarios", "documentation", "commonSituations", "solutions", "preventionTips")
WRITTEN_FIELDS = ("documentation", "triggerScenarios", "solutions", "exampleFix")
RANGE = re.compile(r"(?:(?:candle|burn) )?v?(0\.\d+)(?:\.\d+)?\s*(?:to|-|–|through)\s*v?(0\.\d+)(?:\.\d+)?")
FRAMEWORKS = ("huggingface/candle", "tracel-ai/burn")
MAIN = re.compile(r"\bmain\b")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
GROUP = re.compile(NAMED_GROUP)


def _texts(value: Any) -> Iterator[str]:
    for text in value if isinstance(value, list) else [value]:
        if isinstance(text, str):
            yield text


def placeholder_problems(entry: Dict[str, Any], pattern: str) -> List[Tuple[str, str]]:
    """``(field, name)`` for each ``{name}`` in prose that is not a group of ``pattern``, and for
    each group name written into ``exampleFix`` (a capture would be pasted into code). A
    ``{name}`` the message itself prints literally (escaped in ``pattern``) is quoted, not filled."""
    groups = set(GROUP.findall(pattern))
    problems = [
        (field, name)
        for field in PROSE_FIELDS
        for text in _texts(entry.get(field) or [])
        for name in PLACEHOLDER.findall(text)
        if name not in groups and f"\\{{{name}\\}}" not in pattern  # a literal {name} in the message
    ]
    problems += [("exampleFix", n) for n in PLACEHOLDER.findall(entry.get("exampleFix") or "") if n in groups]
    return problems


def _minor(label: str) -> tuple:
    parts = label.lstrip("v").split("-")[0].split(".")
    return tuple(int(p) for p in parts[:2] if p.isdigit())


def range_notes(entry: Dict[str, Any], record: Dict[str, Any]) -> List[str]:
    """Version ranges ("burn v0.16-v0.18", "candle 0.4.2 to 0.8") in a candle/burn entry's
    prose whose ends are not the oldest and newest release of the record's ``versions``: a
    range written for other releases, or one that adding releases made stale; also a range that
    ends at the newest release in a text that never mentions ``main`` when the template is on
    main too (readers take it as "not on main"). Notes, not problems: a range may speak of
    something else than the template (how a backend worked)."""
    releases = [v for v in record.get("versions") or () if v[:1].isdigit() or v[:2] == "v0"]
    if record.get("repo") not in FRAMEWORKS or not releases:
        return []
    span = (min(map(_minor, releases)), max(map(_minor, releases)))
    on_main = "main" in (record.get("versions") or ())
    notes = []
    for field in PROSE_FIELDS:
        for text in _texts(entry.get(field) or []):
            for m in RANGE.finditer(text):
                if (_minor(m.group(1)), _minor(m.group(2))) != span:
                    notes.append(f"{field} says {m.group(0)!r}; the template is in {releases[0]} ... {releases[-1]}")
                elif on_main and not MAIN.search(text):
                    notes.append(f"{field} says {m.group(0)!r} and never main; the template is on main too")
    return notes


def check_files(paths: Sequence[Path], records: Dict[str, Dict[str, Any]],
                notes: Optional[List[str]] = None) -> List[str]:
    """Every problem of the given curation files, as ``file:line: message`` strings; with
    ``notes``, the version-range notes (``range_notes``) are appended to it."""
    problems: List[str] = []
    seen: Dict[str, str] = {}
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path}:{n}"
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"{where}: not JSON ({exc.msg})")
                continue
            rid = entry.get("id") if isinstance(entry, dict) else None
            if not isinstance(rid, str):
                problems.append(f"{where}: no 'id'")
                continue
            if rid in seen:
                problems.append(f"{where}: id {rid} is already written at {seen[rid]}")
            seen[rid] = where
            record = records.get(rid)
            if record is None:
                problems.append(f"{where}: id {rid} names no shipped record")
                continue
            if not any(entry.get(f) for f in WRITTEN_FIELDS):
                problems.append(f"{where}: {rid} writes no text")
            if notes is not None:
                notes += [f"{where}: note: {rid} {n}" for n in range_notes(entry, record)]
            for field, name in placeholder_problems(entry, record.get("messagePattern") or ""):
                problems.append(f"{where}: {rid} {field} uses {{{name}}}, which "
                                + ("is a capture pasted into code" if field == "exampleFix" else "is not a group of the pattern"))
    return problems


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m builder.check_curation", description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="curation files (default: every curation/sites/*.jsonl)")
    ap.add_argument("--root", type=Path, default=Path("."), help="project root holding curation/")
    ap.add_argument("--data", type=Path, default=None, help="built dataset folder (default: ROOT/errhint_data)")
    args = ap.parse_args(argv)
    files = args.files or sorted((args.root / "curation" / "sites").glob("*.jsonl"))
    records = {r["id"]: r for r in load_records(args.data or args.root / "errhint_data")}
    notes: List[str] = []
    problems = check_files(files, records, notes)
    for line in notes + problems:
        print(line)
    print(f"{len(problems)} problem{'' if len(problems) == 1 else 's'} in {len(files)} file{'' if len(files) == 1 else 's'}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
