"""``errhint show ID``: one record in full (the pointer every brief hint ends with).

Placeholders such as ``{dtype}`` stay as written: there is no error to fill them from.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any, Dict, List, Optional

from errhint.cli import _records
from errhint.cli._common import EXIT_NOTHING, EXIT_OK, Output, add_command


def register(sub: Any) -> None:
    p = add_command(sub, "show", run, help="show one record in full",
                    description="Show one record: message, source link, versions, documentation, fixes, example. "
                    "ID is a record id, a unique id prefix (4+ characters) or a unique slug. Exit 0 when found, 1 when not.", options=("base", "data"))
    p.add_argument("id", metavar="ID")


def run(args: argparse.Namespace, out: Output) -> int:
    ds = _records.load()
    try:
        record = ds.get(args.id)
    except KeyError:
        sys.stderr.write(f"errhint: no record {args.id!r} (try: errhint search WORDS)\n")
        return EXIT_NOTHING
    family = ds.family(record)
    if out.json_mode:
        out.emit_json({"record": record, "family": family})
    else:
        render(out, record, family)
    return EXIT_OK


def render(out: Output, r: Dict[str, Any], family: Optional[Dict[str, Any]]) -> None:
    """The record as readable sections; empty fields are left out."""
    out.heading(_flat(r.get("errorMessage", "")))
    facts = [r.get("id"), r.get("repo"), r.get("errorType")]
    if r.get("backgroundTag"):
        title = (family or {}).get("title")
        facts.append(f"family {r['backgroundTag']}" + (f" ({title})" if title else ""))
    out.line(out.style("  ".join(str(f) for f in facts if f), "dim"))
    out.line()
    where = f"{r.get('filePath')}:{r.get('lineNumber')}"
    extra = ", ".join(str(x) for x in (r.get("crate"), r.get("siteKind")) if x)
    _field(out, "Where", where + (f" ({extra})" if extra else ""))
    if r.get("versions"):
        _field(out, "Versions", ", ".join(r["versions"]))
    if r.get("variant"):
        v = r["variant"]
        _field(out, "Variant", f"{v.get('enum')}::{v.get('name')} ({v.get('shape')})")
    _field(out, "Source", r.get("githubUrl"))
    _field(out, "Pattern", r.get("messagePattern"))
    if r.get("tags"):
        _field(out, "Tags", ", ".join(r["tags"]))
    _section(out, "What it means", r.get("documentation"))
    _section(out, "When it happens", r.get("triggerScenarios"))
    _section(out, "Common situations", r.get("commonSituations"))
    _items(out, "How to fix", r.get("solutions") or [], numbered=True)
    _code(out, "Example fix", r.get("exampleFix"))
    _items(out, "Prevention", r.get("preventionTips") or [], numbered=False)
    for key, title in (("validationCode", "Validation"), ("typeGuard", "Type guard"), ("tryCatchPattern", "Handling")):
        _code(out, title, r.get(key))


def _field(out: Output, name: str, value: Any) -> None:
    if value:
        out.line(f"{out.style(name.ljust(9), 'key')} {value}")


def _section(out: Output, title: str, text: Optional[str]) -> None:
    if not text:
        return
    out.line()
    out.line(out.style(title, "title"))
    for para in str(text).split("\n"):
        out.line(textwrap.fill(para, width=96, initial_indent="  ", subsequent_indent="  ") if para.strip() else "")


def _items(out: Output, title: str, items: List[str], *, numbered: bool) -> None:
    if not items:
        return
    out.line()
    out.line(out.style(title, "title"))
    for i, item in enumerate(items, 1):
        bullet = f"{i}. " if numbered else "- "
        out.line(textwrap.fill(str(item), width=96, initial_indent="  " + bullet, subsequent_indent="  " + " " * len(bullet)))


def _code(out: Output, title: str, code: Optional[str]) -> None:
    if not code:
        return
    out.line()
    out.line(out.style(title, "title"))
    for ln in str(code).rstrip("\n").split("\n"):
        out.line("    " + out.style(ln, "code") if ln else "")


def _flat(text: str) -> str:
    return " ".join(str(text).split())
