"""Cut a noisy log into the blocks that may hold one error each, for ``errhint scan``.

This module only finds where an error's text starts and ends in a log; it never interprets
the text. Each block goes to ``errhint.engine.explain``, which owns the normalisation
(Rust Debug forms, panic prefixes, burn reports, backtraces). Blocks:

* ``traceback``: ``Traceback (most recent call last):``, its indented frames, the final
  ``Type: message`` line and the message's continuation (indented lines, or lines up to the
  matching bracket of a multi-line Rust Debug value);
* ``panic``: ``thread '...' panicked at file:line:col:`` and the message lines after it (or the
  older ``panicked at 'message', file:line:col`` form); a following ``stack backtrace:`` belongs
  to the block but not to its text;
* ``burn-report``: a ``=== Tensor Operation Error ===`` report outside a traceback;
* ``debug``: a candle ``WithBacktrace {`` / ``Context {`` / ``WithPath {`` value spanning lines;
* ``pytest``: consecutive ``E   ...`` lines of a pytest failure report, prefix removed;
* ``line``: any other non-blank line.

errhint's own notes (``errhint: ...`` and their indented lines), chained-exception
separators and Rust's ``note: run with RUST_BACKTRACE`` lines are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterator, List, Optional, Sequence, Tuple

from errhint.constants import NOTE_MARKER

MAX_BLOCK_LINES = 500
MAX_TEXT = 64 * 1024

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_TRACEBACK = re.compile(r"^(?P<indent>[ \t]*)Traceback \(most recent call last\):\s*$")
_PANIC = re.compile(r"thread '(?P<thread>[^']*)' panicked at (?P<rest>.*)$")
_PANIC_LOC = re.compile(r"^(?P<loc>\S+?:\d+:\d+):\s?(?P<msg>.*)$")
_OLD_PANIC_END = re.compile(r"', (?P<loc>\S+?:\d+:\d+)\s*$")
_BURN = "=== Tensor Operation Error ==="
_DEBUG_OPEN = re.compile(r"\b(?:WithBacktrace|Context|WithPath) \{")
_PYTEST = re.compile(r"^E(?P<pad> +)\S")
_EXC_LINE = re.compile(r"^\s*(?P<type>[A-Za-z_][\w.]*)(?::(?: (?P<msg>.*))?)?$")
_EXC_PREFIX = re.compile(r"(?P<type>[A-Za-z_][\w.]*(?:Error|Exception)):\s*$")
_SKIP = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
_RUST_NOTE = re.compile(r"^\s*note: (?:run with `RUST_BACKTRACE|Some details are omitted)")
_BACKTRACE_HEAD = ("stack backtrace:", "Stack backtrace:")
"""std's panic backtrace, and the one an ``anyhow`` error carries in its message (pyburn)."""
_BACKTRACE_LINE = re.compile(r"^\s+(?:\d+: |at )")


@dataclass(frozen=True)
class Block:
    """One candidate error: where it is (1-based, inclusive lines) and the text to explain.

    ``text`` and ``exc_type`` are what ``engine.explain`` gets: a whole traceback (frames
    tell the engine which binding raised) or pytest report with the type inside the text
    and ``exc_type`` None, or a bare message with its type alongside. ``error_type`` and
    ``message`` describe the error for listings and for folding duplicates.
    """

    line: int
    end: int
    kind: str
    text: str
    exc_type: Optional[str] = None
    error_type: Optional[str] = None
    message: Optional[str] = None

    @property
    def excerpt(self) -> str:
        """The first non-blank line of the message, with its type, bounded, for listings."""
        body = self.text if self.message is None else self.message
        first = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
        kind = self.error_type or self.exc_type
        if kind and not first.startswith(kind):
            first = f"{kind}: {first}"
        return first if len(first) <= 160 else first[:157] + "..."


def clean_line(line: str) -> str:
    """One line (split on ``\\n`` only) as a terminal shows it: colour codes removed and, for a
    line redrawn with carriage returns (a progress bar), only its last non-empty drawing."""
    line = line.rstrip("\r")
    if "\r" in line:
        line = next((part for part in reversed(line.split("\r")) if part.strip()), "")
    return _ANSI.sub("", line) if "\x1b" in line else line


def clean_lines(text: str) -> List[str]:
    """The lines of ``text``, split on ``\\n`` only (a ``\\r`` is not a line break), each cleaned."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [clean_line(ln) for ln in lines]


def split(lines: Sequence[str], *, first_line: int = 1) -> Iterator[Block]:
    """Blocks in order of appearance; every non-blank line belongs to at most one block."""
    i, n = 0, len(lines)
    while i < n:
        block, i = read_one(lines, i)
        if block is not None:
            yield shift(block, first_line)


def read_one(lines: Sequence[str], i: int) -> Tuple[Optional[Block], int]:
    """The block that starts at line ``i`` (None for a line that starts none: blank, a
    separator, a Rust note, errhint's own notes) and the index of the line after it (> i)."""
    line = lines[i]
    if not line.strip() or line.strip() in _SKIP or _RUST_NOTE.match(line):
        return None, i + 1
    if line.startswith(NOTE_MARKER):
        return None, _skip_indented(lines, i + 1, 0)
    for reader in (_traceback, _pytest, _panic, _burn, _debug):
        found = reader(lines, i)
        if found is not None:
            block, j = found
            return (block if block is not None and block.text.strip() else None), max(j, i + 1)
    return Block(i, i, "line", line[:MAX_TEXT]), i + 1


# ---------------------------------------------------------------- readers
# Each takes (lines, i) and returns None (not mine) or (block or None, next index).

Found = Optional[Tuple[Optional[Block], int]]


def _traceback(lines: Sequence[str], i: int) -> Found:
    m = _TRACEBACK.match(lines[i])
    if not m:
        return None
    indent = _width(m.group("indent"))
    j = i + 1
    while j < len(lines) and lines[j].strip() and _width_of(lines[j]) > indent and j - i < 10 * MAX_BLOCK_LINES:
        j += 1  # frames, source lines, carets, "[Previous line repeated ...]"
    if j >= len(lines) or not lines[j].strip():
        return None if j == i + 1 else (None, j)
    em = _EXC_LINE.match(lines[j])
    if not em or _is_block_start(lines[j]):
        return (None, j)
    end = _message_end(lines, j, indent)
    text = "\n".join(ln[indent:] if _width_of(ln) >= indent else ln for ln in lines[i : end + 1])
    message = "\n".join([em.group("msg") or ""] + [ln for ln in lines[j + 1 : end + 1]])
    return Block(i, end, "traceback", text[:MAX_TEXT], None, em.group("type"), message), end + 1


def _pytest(lines: Sequence[str], i: int) -> Found:
    m = _PYTEST.match(lines[i])
    if not m:
        return None
    pad = 1 + len(m.group("pad"))
    j = i
    body: List[str] = []
    while j < len(lines) and (lines[j] == "E" or lines[j].startswith("E ")) and j - i < MAX_BLOCK_LINES:
        raw = lines[j]
        strip = pad if raw[:pad].strip() == "E" else 1 + (len(raw) - 1 - len(raw[1:].lstrip()))
        body.append(raw[strip:])
        j += 1
    em = _EXC_LINE.match(body[0]) if body else None
    text = "\n".join(body)[:MAX_TEXT]
    if em and em.group("msg") is not None and _looks_like_exception(em.group("type")):
        message = "\n".join([em.group("msg")] + body[1:])
        return Block(i, j - 1, "pytest", text, None, em.group("type"), message), j
    return Block(i, j - 1, "pytest", text), j


def _panic(lines: Sequence[str], i: int) -> Found:
    m = _PANIC.search(lines[i])
    if not m:
        return None
    rest = m.group("rest")
    body: List[str] = []
    j = i + 1
    if rest.startswith("'"):  # Rust before 1.73: panicked at 'message', src/x.rs:1:2
        chunk = rest[1:]
        while True:
            end = _OLD_PANIC_END.search(chunk)
            if end:
                body.append(chunk[: end.start()])
                break
            body.append(chunk)
            if j >= len(lines) or j - i > MAX_BLOCK_LINES:
                break
            chunk, j = lines[j], j + 1
    else:
        loc = _PANIC_LOC.match(rest)
        if loc and loc.group("msg").strip():
            body.append(loc.group("msg"))
        while j < len(lines) and j - i <= MAX_BLOCK_LINES:
            s = lines[j]
            if not s.strip() or _RUST_NOTE.match(s) or s.startswith(_BACKTRACE_HEAD) or _is_block_start(s):
                break
            body.append(s)
            j += 1
    end = j - 1
    j = _skip_rust_tail(lines, j)
    return Block(i, max(end, i), "panic", "\n".join(body)[:MAX_TEXT], "PanicException"), j


def _burn(lines: Sequence[str], i: int) -> Found:
    pos = lines[i].find(_BURN)
    if pos < 0:
        return None
    body = [lines[i][pos:]]
    j = i + 1
    while j < len(lines) and j - i <= MAX_BLOCK_LINES:
        s = lines[j]
        if not s.strip() or not s[:1].isspace() or _is_block_start(s):
            break
        body.append(s)
        j += 1
    prefix = _EXC_PREFIX.search(lines[i][:pos])
    return Block(i, j - 1, "burn-report", "\n".join(body)[:MAX_TEXT], prefix.group("type") if prefix else None), j


def _debug(lines: Sequence[str], i: int) -> Found:
    m = _DEBUG_OPEN.search(lines[i])
    if not m or _balance(lines[i][m.start() :]) <= 0:
        return None
    depth = _balance(lines[i][m.start() :])
    body = [lines[i][m.start() :]]
    j = i + 1
    while j < len(lines) and depth > 0 and j - i <= MAX_BLOCK_LINES and not _is_block_start(lines[j]):
        depth += _balance(lines[j])
        body.append(lines[j])
        j += 1
    prefix = _EXC_PREFIX.search(lines[i][: m.start()])
    return Block(i, j - 1, "debug", "\n".join(body)[:MAX_TEXT], prefix.group("type") if prefix else None), j


# ---------------------------------------------------------------- helpers


def _message_end(lines: Sequence[str], j: int, indent: int) -> int:
    """Last line of the exception message starting at ``j``: balanced brackets, then indented lines."""
    depth = _balance(lines[j])
    k = j + 1
    while k < len(lines) and k - j <= MAX_BLOCK_LINES:
        s = lines[k]
        if _is_block_start(s) or s[indent:].startswith(NOTE_MARKER):
            break
        if depth > 0:
            depth += _balance(s)
            k += 1
            continue
        if not s.strip() or _width_of(s) <= indent:
            break
        depth += _balance(s)
        k += 1
    return k - 1


def _skip_rust_tail(lines: Sequence[str], j: int) -> int:
    """Past the blank line, ``note:`` lines and ``stack backtrace:`` frames after a panic message."""
    k = j
    while k < len(lines):
        s = lines[k]
        if _RUST_NOTE.match(s):
            k += 1
        elif s.startswith(_BACKTRACE_HEAD):
            k += 1
            while k < len(lines) and _BACKTRACE_LINE.match(lines[k]):
                k += 1
        elif not s.strip() and k + 1 < len(lines) and (
            _RUST_NOTE.match(lines[k + 1]) or lines[k + 1].startswith(_BACKTRACE_HEAD)
        ):
            k += 1
        else:
            break
    return k


def _skip_indented(lines: Sequence[str], j: int, indent: int) -> int:
    while j < len(lines) and lines[j].strip() and _width_of(lines[j]) > indent:
        j += 1
    return j


def _is_block_start(line: str) -> bool:
    return bool(_TRACEBACK.match(line) or _PANIC.search(line)) or line.strip() in _SKIP


def _looks_like_exception(name: str) -> bool:
    tail = name.rsplit(".", 1)[-1]
    return tail.endswith(("Error", "Exception", "Warning", "Interrupt", "Exit")) or tail in ("StopIteration",)


def _balance(text: str) -> int:
    """Opening minus closing brackets outside double-quoted (Rust/JSON) strings."""
    depth = 0
    in_str = False
    escaped = False
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
    return depth


def _width(indent: str) -> int:
    return len(indent.expandtabs(8))


def _width_of(line: str) -> int:
    return _width(line[: len(line) - len(line.lstrip())])


def shift(block: Block, first_line: int) -> Block:
    """``block`` with its 0-based line indexes turned into line numbers from ``first_line``."""
    return replace(block, line=block.line + first_line, end=block.end + first_line)
