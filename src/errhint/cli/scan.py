"""``errhint scan FILE...|-``: every known error in logs, each with its hint, then a count per record.

Streaming: ``_logstream`` reads each file in chunks and hands over only the candidate blocks
(one automaton over the error markers and the dataset's literals rejects ordinary lines);
each block goes to ``errhint.engine.explain`` and its finding is printed as soon as the block
ends. Only the per-record counts are kept, so memory stays flat whatever the files' size.
A Rust panic and the Python traceback of the same ``PanicException`` after it (its
``stack backtrace:`` block in between) are one error, reported once at the panic's line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from typing import IO, Any, Dict, Iterator, List, Optional, Sequence

from errhint.cli import _logsplit, _logstream
from errhint.cli._common import EXIT_NOTHING, EXIT_OK, Output, UsageError, add_command, lookup_kwargs, plural, verbosity


def register(sub: Any) -> None:
    p = add_command(sub, "scan", run, help="find every known error in log files ('-' for stdin)",
                    description="Find every known candle/burn error in logs (tracebacks, panics, burn reports, "
                    "multi-line Debug values, pytest output) and print each with its hint, then a count per "
                    "record. Exit 0 when something was found, 1 when nothing, 2 when a file cannot be read.",
                    options=("base", "data", "match"))
    p.add_argument("files", nargs="+", metavar="FILE", help="log files; '-' reads stdin")
    p.add_argument("--summary-only", action="store_true", help="print only the count per record")


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
    for name in args.files:  # every file readable before anything is printed
        _check_readable(name)
    from errhint import engine

    prefilter = _logstream.Prefilter(_logstream.dataset_terms(engine.dataset()), big=_input_size(args.files) >= _logstream.BIG_INPUT)
    kwargs = lookup_kwargs(args)
    tally = Tally()
    per_file: List[Dict[str, Any]] = []
    writer = _JsonWriter(out) if out.json_mode else _TextWriter(out, verbosity(args), args.summary_only)
    for name in args.files:
        with _open(name) as stream:
            progress = _Progress.for_file(name, stream)
            reader = _logstream.LogReader(stream, prefilter, progress.update if progress else None)
            count = 0
            try:
                for finding in scan_blocks(name, reader.blocks(), kwargs):
                    if progress:
                        progress.clear()
                    tally.add(finding)
                    writer.finding(finding)
                    count += 1
            except OSError as exc:
                raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
            finally:
                if progress:
                    progress.clear()
            per_file.append({"path": name, "lines": reader.lines, "findings": count})
    writer.end(per_file, tally)
    return EXIT_OK if tally.findings else EXIT_NOTHING


def scan_blocks(name: str, blocks: Iterator[_logsplit.Block], kwargs: Dict[str, Any]) -> Iterator[Finding]:
    """Findings in one file, in order; a panic's echoed ``PanicException`` traceback is folded into it."""
    from errhint import engine

    previous: Any = None
    for block in blocks:
        if previous is not None and _same_panic(previous, block):
            previous = None  # one echo per panic
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


class Tally:
    """Per record, how many findings it explained (a record counts once per finding)."""

    def __init__(self) -> None:
        self.findings = 0
        self.rows: Dict[str, Dict[str, Any]] = {}

    def add(self, finding: Finding) -> None:
        self.findings += 1
        seen = set()
        for m in finding.matches:
            rec = m.record
            if rec.id in seen:
                continue
            seen.add(rec.id)
            row = self.rows.setdefault(rec.id, {"id": rec.id, "repo": rec.repo, "errorMessage": rec.error_message, "count": 0})
            row["count"] += 1

    def summary(self) -> List[Dict[str, Any]]:
        """One row per record that matched, most frequent first (ties: repository, then id)."""
        return sorted(self.rows.values(), key=lambda r: (-r["count"], r["repo"], r["id"]))


def _input_size(names: Sequence[str]) -> int:
    """Bytes in the named files; stdin counts as big (it may be a whole log piped in)."""
    total = 0
    for name in names:
        if name == "-":
            return _logstream.BIG_INPUT
        try:
            total += os.path.getsize(name)
        except OSError:
            pass
    return total


def _check_readable(name: str) -> None:
    if name == "-":
        if sys.stdin is None:
            raise UsageError("cannot read -: no stdin")
        return
    try:
        with open(name, "rb") as fh:
            fh.read(0)
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None


def _open(name: str) -> IO[bytes]:
    if name == "-":
        stdin = sys.stdin
        raw = getattr(stdin, "buffer", None)
        if raw is None:  # a text stream without bytes underneath (tests feed StringIO)
            import io

            return io.BytesIO(stdin.read().encode("utf-8", errors="replace"))
        import contextlib

        return contextlib.nullcontext(raw)  # type: ignore[return-value]
    try:
        return open(name, "rb")
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None


class _Progress:
    """``scanning FILE: N%`` on stderr, redrawn per chunk, for big files when stderr is a terminal.

    Hand-written (a dozen lines) rather than tqdm or rich.progress: one percentage per 4 MiB
    chunk needs no library, and neither is a dependency of errhint.
    """

    MIN_SIZE = 8 << 20

    def __init__(self, name: str, size: int) -> None:
        self.name, self.size, self.done, self.shown = name, size, 0, -1

    @classmethod
    def for_file(cls, name: str, stream: Any) -> Optional["_Progress"]:
        err = sys.stderr
        if name == "-" or err is None or not getattr(err, "isatty", lambda: False)():
            return None
        try:
            size = os.fstat(stream.fileno()).st_size
        except (OSError, AttributeError, ValueError):
            return None
        return cls(name, size) if size >= cls.MIN_SIZE else None

    def update(self, nbytes: int) -> None:
        self.done += nbytes
        pct = min(100, self.done * 100 // max(self.size, 1))
        if pct != self.shown:
            self.shown = pct
            sys.stderr.write(f"\rscanning {self.name}: {pct}%")
            sys.stderr.flush()

    def clear(self) -> None:
        if self.shown >= 0:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = -1


class _TextWriter:
    """Each finding as it comes (unless --summary-only), the summary at the end."""

    def __init__(self, out: Output, level: str, summary_only: bool) -> None:
        self.out, self.level, self.summary_only = out, level, summary_only

    def finding(self, f: Finding) -> None:
        if self.summary_only:
            return
        out = self.out
        where = out.style(f"{f.file}:{f.block.line}", "key")
        span = f"lines {f.block.line}-{f.block.end}" if f.block.end > f.block.line else f"line {f.block.line}"
        out.line(f"{where}: {f.block.excerpt}")
        out.line(out.style(f"  ({f.block.kind}, {span})", "dim"))
        for m in f.matches:
            out.line(_indent(m.render(self.level, color=out.color).rstrip("\n"), "  "))
        out.line()
        out.stream.flush()

    def end(self, per_file: Sequence[Dict[str, Any]], tally: Tally) -> None:
        _print_summary(self.out, tally, len(per_file))


class _JsonWriter:
    """One JSON document, written as it grows: ``findings`` first (each as soon as found), then
    ``files``, ``summary`` and ``count``; the same keys and shapes as docs/cli.md."""

    def __init__(self, out: Output) -> None:
        self.out = out
        self.first = True
        out.stream.write('{\n  "findings": [')

    def finding(self, f: Finding) -> None:
        text = json.dumps(f.to_dict(), indent=2, ensure_ascii=self.out.ascii_only)
        self.out.stream.write(("\n" if self.first else ",\n") + _indent(text, "    "))
        self.out.stream.flush()
        self.first = False

    def end(self, per_file: Sequence[Dict[str, Any]], tally: Tally) -> None:
        rest = {"files": list(per_file), "summary": tally.summary(), "count": tally.findings}
        tail = json.dumps(rest, indent=2, ensure_ascii=self.out.ascii_only)
        self.out.stream.write(("\n  ]," if not self.first else "],") + "\n" + tail[2:] + "\n")


def _print_summary(out: Output, tally: Tally, files: int) -> None:
    if not tally.findings:
        out.line(f"No known candle or burn errors in {plural(files, 'file')}.")
        return
    summary = tally.summary()
    hits = sum(r["count"] for r in summary)
    out.heading(
        f"{plural(tally.findings, 'error')} with hints in {plural(files, 'file')} "
        f"({plural(len(summary), 'distinct record')}, {plural(hits, 'hint')})"
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
