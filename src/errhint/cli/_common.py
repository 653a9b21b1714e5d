"""What every subcommand shares: exit codes, common options, and one ``Output`` for text/JSON/colour.

Colour follows ``errhint.config.use_color`` (TTY only, never with ``NO_COLOR``); ``rich``
draws tables and headings when it is installed and colour is on, plain aligned text otherwise.
JSON output is never coloured and always one document on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, Iterable, List, Optional, Sequence, TextIO

EXIT_OK = 0
EXIT_NOTHING = 1
EXIT_USAGE = 2

_ANSI = {
    "title": "1",
    "dim": "2",
    "key": "36",
    "ok": "32",
    "bad": "31",
    "warn": "33",
    "code": "35",
}


class UsageError(Exception):
    """Bad arguments or unreadable input: reported on stderr, exit code 2."""


class OutputError(Exception):
    """Standard output cannot be written (closed, full, or its reader went away)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))
        self.error = error


def plural(n: int, noun: str) -> str:
    """``1 hint``, ``2 hints``, ``0 files``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


ASCII_MARKS = str.maketrans({"\u00b7": "-", "\u2026": "...", "\u2192": "->", "\u2014": "--", "\u2013": "-", "\u00d7": "x", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
"""What the marks errhint prints become on a stream that cannot encode them."""


class GuardedStream:
    """A text stream whose write/flush failures become ``OutputError``, and which writes
    ASCII marks (then ``?``) for the characters its encoding cannot take."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            "\u00b7\u2026".encode(encoding)
            self.ascii_only = False
        except (UnicodeEncodeError, LookupError):
            self.ascii_only = True
        self._encoding = encoding

    def write(self, text: str) -> int:
        if self.ascii_only:
            text = text.translate(ASCII_MARKS)
            try:
                text.encode(self._encoding)
            except (UnicodeEncodeError, LookupError):
                text = text.encode("ascii", errors="replace").decode("ascii")
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise OutputError(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise OutputError(exc) from None

    def isatty(self) -> bool:
        try:
            return bool(self._stream.isatty())
        except (OSError, ValueError, AttributeError):
            return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


# ---------------------------------------------------------------- options


def base_parent() -> argparse.ArgumentParser:
    """``--json`` and ``--color``: every subcommand has them."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--json", action="store_true", help="print one JSON document (shape in docs/cli.md)")
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour: auto = only on a terminal; NO_COLOR always wins",
    )
    return p


def data_parent() -> argparse.ArgumentParser:
    """``--data PATH``: extra dataset files or folders on top of the shipped data and ERRHINT_DATA."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument(
        "--data",
        action="append",
        default=[],
        metavar="PATH",
        help="extra dataset (JSONL file or folder); repeatable",
    )
    return p


def match_parent() -> argparse.ArgumentParser:
    """Options that shape a lookup: how many hints, how sure, which repositories, how much text."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--limit", type=_positive_int, default=None, metavar="N", help="at most N hints per error")
    p.add_argument("--min-score", type=_score, default=None, metavar="X", help="drop hints scoring below X (0..1)")
    p.add_argument(
        "--repo", action="append", default=None, metavar="OWNER/NAME", help="only records of this repository; repeatable"
    )
    p.add_argument("--full", action="store_true", help="full hints: documentation, every fix, example, tips")
    return p


PARENTS = {"base": base_parent, "data": data_parent, "match": match_parent}
"""The shared option groups a subcommand can take, by name."""


def add_command(sub: Any, name: str, handler: Any, *, help: str, description: str,
                options: Sequence[str] = ("base",)) -> argparse.ArgumentParser:
    """Add subcommand ``name`` to ``sub`` (argparse subparsers) with the shared option groups
    named in ``options`` (keys of ``PARENTS``), handled by ``handler(args, out)``; returns its
    parser for the subcommand's own arguments."""
    p = sub.add_parser(name, parents=[PARENTS[o]() for o in options], help=help, description=description)
    p.set_defaults(handler=handler)
    return p


def _positive_int(text: str) -> int:
    return _parsed(text, int, "an integer", lambda v: v >= 1, "at least 1")


def _score(text: str) -> float:
    return _parsed(text, float, "a number", lambda v: 0.0 <= v <= 1.0, "between 0 and 1")


def _parsed(text: str, convert: Any, kind: str, valid: Any, bound: str) -> Any:
    """``convert(text)`` when it gives a value ``valid`` accepts; else argparse's usage error
    (``not <kind>`` or ``must be <bound>``)."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {kind}: {text!r}") from None
    if not valid(value):
        raise argparse.ArgumentTypeError(f"must be {bound}: {text!r}")
    return value


def apply_options(args: argparse.Namespace) -> None:
    """Make ``--data`` visible to the engine and to the record listing (``configure(paths=)``)."""
    paths = getattr(args, "data", None)
    if paths:
        import os

        missing = [p for p in paths if not os.path.exists(p)]
        if missing:
            raise UsageError(f"--data: no such file or directory: {missing[0]}")
        from errhint import config

        config.configure(paths=tuple(config.current().paths) + tuple(paths))


def verbosity(args: argparse.Namespace) -> str:
    """``--full`` wins; otherwise ERRHINT_VERBOSITY / configure() decide."""
    if getattr(args, "full", False):
        return "full"
    from errhint import config

    return config.current().verbosity


def lookup_kwargs(args: argparse.Namespace) -> Dict[str, Any]:
    """Per-call overrides for ``engine.explain``; unset options fall back to ``config.current()``."""
    out: Dict[str, Any] = {}
    if getattr(args, "limit", None) is not None:
        out["limit"] = args.limit
    if getattr(args, "min_score", None) is not None:
        out["min_score"] = args.min_score
    if getattr(args, "repo", None):
        out["repos"] = tuple(args.repo)
    return out


# ---------------------------------------------------------------- output


class Output:
    """Where a subcommand writes: plain text, coloured text (ANSI or rich), or JSON."""

    def __init__(self, stream: TextIO, *, color: bool, json_mode: bool, use_rich: Optional[bool] = None) -> None:
        self.stream = stream if isinstance(stream, GuardedStream) else GuardedStream(stream)
        self.ascii_only = self.stream.ascii_only
        self.json_mode = json_mode
        self.color = color and not json_mode
        self._console: Any = None
        if self.color and use_rich is not False and not self.ascii_only:
            self._console = _rich_console(stream)

    @classmethod
    def for_args(cls, args: argparse.Namespace, stream: Optional[TextIO] = None) -> "Output":
        stream = stream or sys.stdout
        return cls(stream, color=decide_color(getattr(args, "color", "auto"), stream), json_mode=bool(getattr(args, "json", False)))

    @property
    def rich(self) -> bool:
        return self._console is not None

    # plain text -------------------------------------------------------

    def line(self, text: str = "") -> None:
        self.stream.write(text + "\n")

    def style(self, text: str, kind: str) -> str:
        """``text`` in the colour for ``kind`` (title, dim, key, ok, bad, warn, code), or as is."""
        if not self.color or not text:
            return text
        return f"\033[{_ANSI.get(kind, '0')}m{text}\033[0m"

    def heading(self, text: str) -> None:
        if self._console is not None:
            from rich.text import Text

            self._console.print(Text(text, style="bold"))
        else:
            self.line(self.style(text, "title"))

    def table(self, headers: Sequence[str], rows: Iterable[Sequence[Any]], *, right: Sequence[int] = ()) -> None:
        """Aligned columns; ``right`` lists the column indexes aligned to the right (numbers)."""
        rows = [[("" if c is None else str(c)) for c in row] for row in rows]
        if self._console is not None:
            from rich import box
            from rich.table import Table

            t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, highlight=False)
            for i, h in enumerate(headers):
                last = i == len(headers) - 1  # only the free text folds; ids, counts, names keep their width
                widest = max([len(h)] + [len(row[i]) for row in rows if i < len(row)])
                t.add_column(h, justify="right" if i in right else "left", overflow="fold" if last else "ignore",
                             no_wrap=not last, min_width=None if last else widest)
            for row in rows:
                t.add_row(*row)
            self._console.print(t)
            return
        widths = [len(h) for h in headers]
        for row in rows:
            for i, cell in enumerate(row[:-1]):
                widths[i] = max(widths[i], len(cell))

        def fmt(cells: Sequence[str]) -> str:
            parts = []
            for i, cell in enumerate(cells):
                if i == len(cells) - 1:
                    parts.append(cell)
                elif i in right:
                    parts.append(cell.rjust(widths[i]))
                else:
                    parts.append(cell.ljust(widths[i]))
            return "  ".join(parts).rstrip()

        self.line(self.style(fmt(list(headers)), "dim"))
        for row in rows:
            self.line(fmt(row))

    # JSON ---------------------------------------------------------------

    def emit_json(self, obj: Any) -> None:
        self.stream.write(json.dumps(obj, indent=2, ensure_ascii=self.ascii_only, default=_json_default) + "\n")


def _json_default(obj: Any) -> Any:
    """Mappings and tuples from the engine (read-only views) become plain JSON."""
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if hasattr(obj, "items"):
        return dict(obj.items())
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def decide_color(choice: str, stream: Optional[TextIO]) -> bool:
    """auto: TTY and no NO_COLOR; always: on unless NO_COLOR; never: off."""
    from errhint import config

    if choice == "never":
        return False
    forced = True if choice == "always" else None
    return config.use_color(stream, config.merged(color=forced))


def _rich_console(stream: TextIO) -> Any:
    try:
        from rich.console import Console
    except ImportError:
        return None
    return Console(file=stream, force_terminal=True, highlight=False, soft_wrap=True)


def read_text_input(parts: List[str], what: str = "TEXT") -> str:
    """Joined arguments, or stdin when there are none (or the single argument ``-``)."""
    if parts and parts != ["-"]:
        return " ".join(parts)
    if sys.stdin is None:
        raise UsageError(f"no {what} given and no stdin")
    if sys.stdin.isatty():
        sys.stderr.write("errhint: paste the error or traceback, then press Ctrl-D\n")
    text = sys.stdin.read()
    if not text.strip():
        raise UsageError(f"no {what} given (empty stdin)")
    return text
