"""Stream a log file to the blocks worth explaining, in flat memory, for ``errhint scan``.

Contract: ``blocks(stream, prefilter)`` reads a binary stream in chunks and yields the
``_logsplit.Block`` values of the candidate regions only, in order, with 1-based line numbers
counted on ``\\n`` alone. Memory is bounded by one chunk plus one block's window, whatever the
file's size.

A region is a candidate when ``Prefilter`` finds one of its terms in it: the error markers
(a traceback header, a Rust panic, a burn report, a candle Debug wrapper, a pytest ``E``
line, ``Error: ``/``Exception: ``) and, from the loaded dataset, each record's longest
required literal (cut to ``LITERAL_PREFIX`` bytes: a prefix of required text is still
required) and each error-enum variant's Debug opening (``Name(``, ``Name {``). All terms
are searched at once by one Aho-Corasick automaton over the raw bytes (``ahocorasick_rs``,
a DFA in Rust), so ordinary lines cost no Python work at all; a candidate line and the
lines after it are then decoded and handed to ``_logsplit.read_one``, which decides where
the block ends. Lines over ``MAX_LINE`` bytes and lines holding NUL bytes are read as
blank (skipped, never decoded whole).
"""

from __future__ import annotations

from typing import IO, Any, Dict, Iterable, Iterator, List, Optional, Tuple

from errhint.cli import _logsplit

CHUNK = 4 << 20
MAX_LINE = 1 << 20
"""Longer lines are skipped: no error text is that long, and decoding one would cost memory."""
LITERAL_PREFIX = 12
FIRST_WINDOW = 64
MAX_WINDOW = 10 * _logsplit.MAX_BLOCK_LINES + _logsplit.MAX_BLOCK_LINES

MARKERS: Tuple[str, ...] = (
    "Traceback (most recent call last):",
    "panicked at ",
    "=== Tensor Operation Error ===",
    "WithBacktrace {",
    "Context {",
    "WithPath {",
    "\nE ",
    "Error: ",
    "Exception: ",
)
"""What starts a block whatever the dataset holds (``\\nE `` is a pytest line at a line start)."""


class Prefilter:
    """One automaton over every term; ``hits(buf, start)`` lists where terms start, in order.

    ``big``: a DFA, several times slower to build (about 0.1 s for the shipped dataset) and
    faster to run, worth it from some tens of megabytes on; otherwise a contiguous NFA."""

    def __init__(self, terms: Iterable[str], *, big: bool = True) -> None:
        self.terms = sorted({t.encode("utf-8") for t in terms if t and t.strip()})
        self.hits: Any = _automaton(self.terms, big)


BIG_INPUT = 32 << 20
"""Bytes of input from which the DFA pays for its build."""


def _automaton(terms: List[bytes], big: bool) -> Any:
    try:
        import ahocorasick_rs
    except ImportError:  # Python 3.9, or no wheel: one regex shaped as a trie, ~50x slower
        import re

        rx = re.compile(_trie_pattern(terms)) if terms else None

        def by_regex(buf: bytes, start: int) -> List[int]:
            return [m.start() for m in rx.finditer(buf, start)] if rx is not None else []

        return by_regex
    kind = ahocorasick_rs.Implementation.DFA if big else ahocorasick_rs.Implementation.ContiguousNFA
    # leftmost-first: where terms overlap only the leftmost start is reported, which is all a
    # prefilter needs, and the DFA runs it faster than the standard (report-everything) search
    ac = ahocorasick_rs.BytesAhoCorasick(terms, implementation=kind, matchkind=ahocorasick_rs.MatchKind.LeftmostFirst)

    overlap = max((len(t) for t in terms), default=1) - 1
    workers = _workers() if big else 1

    def search(view: Any, at: int) -> List[int]:
        return [at + h[1] for h in ac.find_matches_as_indexes(view)]

    def by_automaton(buf: bytes, start: int) -> List[int]:
        view = memoryview(buf)
        size = len(buf) - start
        if workers < 2 or size < SPLIT_AT:
            return search(view[start:], start)
        # the search releases the GIL: the parts run on separate cores. Each part but the last
        # reads `overlap` bytes into the next, so a term across the cut is still found; its
        # hits at or after the cut are the next part's (a prefilter may report a start the
        # whole-buffer search would have skipped inside another match: harmless, never fewer)
        cuts = [start + size * k // workers for k in range(workers)] + [len(buf)]
        parts = [(cuts[k], min(cuts[k + 1] + overlap, len(buf)), cuts[k + 1]) for k in range(workers)]
        found = list(_pool().map(lambda p: [h for h in search(view[p[0]:p[1]], p[0]) if h < p[2]], parts))
        return [h for hits in found for h in hits]

    return by_automaton


SPLIT_AT = 2 << 20
"""Buffers from this size on are searched in parallel parts (one per worker)."""

_POOL: List[Any] = []


def _workers() -> int:
    import os

    return max(1, min(4, os.cpu_count() or 1))


def _pool() -> Any:
    """One thread pool for the process (created on first use; a list append is atomic)."""
    if not _POOL:
        from concurrent.futures import ThreadPoolExecutor

        _POOL.append(ThreadPoolExecutor(max_workers=_workers(), thread_name_prefix="errhint-scan"))
    return _POOL[0]


def _trie_pattern(terms: List[bytes]) -> bytes:
    """One regex matching where any term starts, nested by common prefixes (``ab(?:c|d)``):
    a flat alternation of thousands of terms tries each one at every byte (0.02 MB/s), the
    trie one branch per byte (a few MB/s). A term that is a prefix of others ends its branch:
    for a prefilter, the shorter match at the same position is enough."""
    import re

    trie: Dict[int, Any] = {}
    for term in terms:
        node = trie
        for byte in term:
            node = node.setdefault(byte, {})
        node[-1] = {}

    def emit(node: Dict[int, Any]) -> bytes:
        if -1 in node:
            return b""
        alts = [re.escape(bytes([k])) + emit(node[k]) for k in sorted(node)]
        return alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"

    return emit(trie)


def dataset_terms(ds: Any) -> List[str]:
    """The markers plus, per record of ``ds`` (an ``engine.Dataset``), its longest required
    literal (cut to ``LITERAL_PREFIX``) and the Debug opening of each error-enum variant
    (``Name(`` and ``Name {``; a name of 8 characters or more stands alone: it is rare
    enough, and one term instead of two keeps the automaton small)."""
    import json

    from errhint.indexfile import LITERALS

    out = list(MARKERS)
    for ix in ds.indexes:
        rows_text = getattr(ix, "_rows_text", None)  # every row at once: one decode, not thousands
        try:
            rows = json.loads("[" + rows_text.replace("\n", ",") + "]") if rows_text else None
        except ValueError:
            rows = None
        if rows is None or len(rows) != len(ix):
            rows = [ix.row(i) for i in range(len(ix))]
        for row in rows:
            literals = [part for lit in row[LITERALS] for part in str(lit).split("\n")]
            longest = max(literals, key=lambda s: len(s.strip()), default="").strip()
            if len(longest) >= 4:
                out.append(longest[:LITERAL_PREFIX])
        # the variant table: line 1 is the name -> rows map, then one "name<TAB>..." line each
        for line in str(getattr(ix, "_variant_text", "")).split("\n")[1:]:
            name = line.partition("\t")[0]
            if len(name) >= 8:
                out.append(name)
            elif name:
                out.extend((name + "(", name + " {"))
    return out


class LogReader:
    """The candidate blocks of one binary stream (``blocks()``), and its line count once read.

    The buffer holds the text from the current line on; the hits of the prefilter in it are
    computed once per buffer (after each chunk read), so a dense region costs one search.
    """

    def __init__(self, stream: IO[bytes], prefilter: Prefilter, progress: Any = None) -> None:
        self.stream = stream
        self.prefilter = prefilter
        self.progress = progress
        self.buf = b"\n"  # a sentinel line break: a pytest "\nE " marker can hit line 1
        self.pos = 1
        self.line = 1
        self.lines = 0
        """Lines in the stream (``\\n``-terminated, plus a final unterminated one); set at the end."""
        self.eof = False
        self._hits: Optional[List[int]] = None
        self._long_line = False
        self._overlong = False

    # ------------------------------------------------------------ buffer

    def _more(self, *, drop: bool) -> bool:
        """Append one chunk; with ``drop``, first forget what lies before ``pos``. False at the end."""
        if self.eof:
            return False
        read = getattr(self.stream, "read1", None) or self.stream.read  # read1: a pipe's bytes as they come
        data = read(CHUNK)
        if self.progress is not None:
            self.progress(len(data))
        if not data:
            self.eof = True
            return False
        if drop:
            keep = max(self.pos - 1, 0)  # the line break before pos stays, for "\nE "
            self.buf = self.buf[keep:] + data
            self.pos -= keep
        else:
            self.buf += data
        self._hits = None
        return True

    def _advance(self, to: int) -> None:
        """Move ``pos`` forward to ``to``, counting the line breaks passed."""
        if to > self.pos:
            self.line += self.buf.count(b"\n", self.pos, to)
            self.pos = to

    def _first_hit(self) -> int:
        if self._hits is None:
            self._hits = self.prefilter.hits(self.buf, 0)
        import bisect

        k = bisect.bisect_left(self._hits, self.pos - 1)
        return self._hits[k] if k < len(self._hits) else -1

    def _to_last_line(self) -> None:
        """No hit before the last (maybe partial) line: move there; an endless line is dropped."""
        self._advance(self.buf.rfind(b"\n", self.pos) + 1)
        if len(self.buf) - self.pos > MAX_LINE:
            self.buf, self.pos, self._hits, self._long_line = b"", 0, None, True

    def _skip_long_line(self) -> bool:
        """After dropping an over-long line's start: drop on to its end. True once past it."""
        nl = self.buf.find(b"\n")
        if nl < 0:
            self.buf, self._hits = b"", None
            return False
        self.line += 1
        self.buf, self.pos, self._hits, self._long_line = self.buf[nl:], 1, None, False
        return True

    def _lines_from(self, start: int, count: int) -> Tuple[List[str], List[int]]:
        """Up to ``count`` cleaned lines from byte ``start``, only those already in the buffer
        (the last one only once the stream has ended), and the byte offset where each starts
        plus where the line after the last starts."""
        offsets = [start]
        lines: List[str] = []
        at = start
        end = len(self.buf)
        self._overlong = False
        while len(lines) < count and at < end:
            nl = self.buf.find(b"\n", at)
            if nl < 0:
                if not self.eof and end - at <= MAX_LINE:
                    break  # a line still being written
                self._overlong = not self.eof  # an endless line: read as blank, its rest skipped
                nl = end
            lines.append(_decode(self.buf[at:nl]))
            at = nl + 1
            offsets.append(at)
            if self._overlong:
                break
        return lines, offsets

    # ------------------------------------------------------------ blocks

    def blocks(self) -> Iterator[_logsplit.Block]:
        """The candidate blocks in order, line numbers 1-based; sets ``lines`` at the end."""
        self._more(drop=True)
        while True:
            if self._long_line:
                if not self._skip_long_line() and not self._more(drop=True):
                    break
                continue
            hit = self._first_hit()
            if hit < 0:
                self._to_last_line()
                if not self._more(drop=True):
                    break
                continue
            self._advance(max(self.buf.rfind(b"\n", 0, hit + 1) + 1, self.pos))
            block, after = self._read_block(self.pos)
            if block is not None:
                yield block
            if after > len(self.buf) and not self.eof:  # a line longer than MAX_LINE runs on: skip it
                self._advance(len(self.buf))
                self.buf, self.pos, self._hits, self._long_line = b"", 0, None, True
                continue
            if after <= self.pos or after > len(self.buf):  # the stream ended inside the block
                break
            self._advance(after)
        tail = self.buf[self.pos :]
        self.lines = self.line - 1 + tail.count(b"\n") + (1 if tail.strip(b"\n") and not tail.endswith(b"\n") else 0)

    def _read_block(self, start: int) -> Tuple[Optional[_logsplit.Block], int]:
        """The block at byte ``start`` (line ``self.line``) and the byte offset after it.

        A block is decided once a line after it is known (or the stream ended), so a finding
        from a pipe is reported when the next line arrives, not when a window fills."""
        size = FIRST_WINDOW
        while True:
            lines, offsets = self._lines_from(start, size)
            block, nxt = _logsplit.read_one(lines, 0) if lines else (None, 1)
            if nxt < len(lines) or size >= MAX_WINDOW and len(lines) >= size or self._overlong:
                break
            if len(lines) >= size:
                size *= 4
            elif not self._more(drop=False):
                lines, offsets = self._lines_from(start, size)  # the stream ended: the last line counts
                block, nxt = _logsplit.read_one(lines, 0) if lines else (None, 1)
                break
        if block is not None:
            block = _logsplit.shift(block, self.line)
        return block, offsets[min(nxt, len(offsets) - 1)]


def _decode(raw: bytes) -> str:
    if len(raw) > MAX_LINE or b"\x00" in raw:
        return ""
    return _logsplit.clean_line(raw.decode("utf-8", errors="replace"))
