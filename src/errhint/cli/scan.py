"""``errhint scan FILE...|-``: every known error in logs, each with its hint, then a count per record.

``_logsplit`` cuts the log into blocks (tracebacks, panics, burn reports, multi-line Debug
values, pytest ``E`` lines, single lines); each block goes to ``errhint.engine.explain``.
A Rust panic printed on stderr and the Python traceback of the same ``PanicException``
right after it are one error, reported once at the panic's line.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Sequence

from errhint.cli import _logsplit
from errhint.cli._common import (
    EXIT_NOTHING,
    EXIT_OK,
    Output,
    UsageError,
    base_parent,
    data_parent,
    lookup_kwargs,
    match_parent,
    verbosity,
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "scan",
        parents=[base_parent(), data_parent(), match_parent()],
        help="find every known error in log files ('-' for stdin)",
        description="Find every known candle/burn error in logs (tracebacks, panics, burn reports, "
        "multi-line Debug values, pytest output) and print each with its hint, then a count per "
        "record. Exit 0 when something was found, 1 when nothing, 2 when a file cannot be read.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="log files; '-' reads stdin")
    p.add_argument("--summary-only", action="store_true", help="print only the count per record")
    p.set_defaults(handler=run)


@dataclass
class Finding:
    file: str
    block: _logsplit.Block
    matches: List[Any]

    def to_dict(self) -> Dict[str, Any]:
        b = self.block
        return {
            "file": self.file,
            "line": b.line,
            "endLine": b.end,
            "kind": b.kind,
            "excType": b.error_type or b.exc_type,
            "excerpt": b.excerpt,
            "matches": [m.to_dict() for m in self.matches],
        }


def run(args: argparse.Namespace, out: Output) -> int:
    texts = [(name, _read(name)) for name in args.files]
    kwargs = lookup_kwargs(args)
    findings: List[Finding] = []
    per_file: List[Dict[str, Any]] = []
    for name, text in texts:
        lines = _logsplit.clean_lines(text)
        found = list(scan_lines(name, lines, kwargs))
        findings.extend(found)
        per_file.append({"path": name, "lines": len(lines), "findings": len(found)})
    summary = summarise(findings)
    if out.json_mode:
        out.emit_json(
            {
                "files": per_file,
                "findings": [f.to_dict() for f in findings],
                "summary": summary,
                "count": len(findings),
            }
        )
    else:
        _print(out, findings, summary, per_file, verbosity(args), args.summary_only)
    return EXIT_OK if findings else EXIT_NOTHING


def scan_lines(name: str, lines: Sequence[str], kwargs: Dict[str, Any]) -> Iterator[Finding]:
    """Findings in one file, in order; an echoed panic traceback is folded into its panic."""
    from errhint import engine

    previous: Any = None
    for block in _logsplit.split(lines):
        if previous is not None and _same_panic(previous, block):
            continue
        previous = block
        matches = list(engine.explain(block.text, exc_type=block.exc_type, **kwargs))
        if matches:
            yield Finding(name, block, matches)


def _same_panic(panic: _logsplit.Block, block: _logsplit.Block) -> bool:
    """The traceback that pyo3 raises for a panic repeats the panic message printed just before."""
    if panic.kind != "panic" or not (block.error_type or block.exc_type or "").endswith("PanicException"):
        return False
    text = block.text if block.message is None else block.message
    return " ".join(text.split()) == " ".join(panic.text.split())


def summarise(findings: Sequence[Finding]) -> List[Dict[str, Any]]:
    """One row per record that matched, most frequent first; a record counts once per finding."""
    rows: Dict[str, Dict[str, Any]] = {}
    for f in findings:
        seen = set()
        for m in f.matches:
            rec = m.record
            if rec.id in seen:
                continue
            seen.add(rec.id)
            row = rows.setdefault(
                rec.id, {"id": rec.id, "repo": rec.repo, "errorMessage": rec.error_message, "count": 0}
            )
            row["count"] += 1
    return sorted(rows.values(), key=lambda r: (-r["count"], r["repo"], r["id"]))


def _read(name: str) -> str:
    if name == "-":
        return sys.stdin.read() if sys.stdin is not None else ""
    try:
        with open(name, "rb") as fh:
            return fh.read().decode("utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None


def _print(
    out: Output,
    findings: Sequence[Finding],
    summary: Sequence[Dict[str, Any]],
    per_file: Sequence[Dict[str, Any]],
    level: str,
    summary_only: bool,
) -> None:
    if not summary_only:
        for f in findings:
            where = out.style(f"{f.file}:{f.block.line}", "key")
            span = f"lines {f.block.line}-{f.block.end}" if f.block.end > f.block.line else f"line {f.block.line}"
            out.line(f"{where}: {f.block.excerpt}")
            out.line(out.style(f"  ({f.block.kind}, {span})", "dim"))
            for m in f.matches:
                out.line(_indent(m.render(level, color=out.color).rstrip("\n"), "  "))
            out.line()
    files = len(per_file)
    if not findings:
        out.line(f"No known candle or burn errors in {files} file{'s' if files != 1 else ''}.")
        return
    hits = sum(r["count"] for r in summary)
    out.heading(
        f"{len(findings)} error{'s' if len(findings) != 1 else ''} with hints in "
        f"{files} file{'s' if files != 1 else ''} ({len(summary)} distinct record{'s' if len(summary) != 1 else ''}, {hits} hints)"
    )
    out.table(
        ["count", "id", "repo", "message"],
        [[r["count"], r["id"], r["repo"], _one_line(r["errorMessage"])] for r in summary],
        right=(0,),
    )


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + ln if ln else ln for ln in text.splitlines())


def _one_line(text: str, width: int = 100) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."
