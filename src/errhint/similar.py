"""Approximate matches: the nearest template when no pattern matches at all.

A message from a release newer than the dataset may differ from its template by a word
(``and`` → ``or``, ``Record error`` → ``Recorder error``), a fixed typo (``synchonously``),
or a prefix or suffix added to the text. No pattern matches it, but its words are nearly
the template's. This module compares the words of a text with the literal words of every
row (``index.rows``' required literals: no record is read to build it) and returns the rows
whose words the text holds almost all of, a word being equal or, for words of 5 letters or
more, one edit apart in spelling (the ratio of ``difflib.SequenceMatcher`` at least
``SPELLING``). The engine asks only when nothing else matched, restricts the rows to the
repositories the error can come from, and shows the result as an approximate match with a
lower score.

The table is built once per index on first use (thread-safe), about 4,600 short rows.
"""

from __future__ import annotations

import re
import threading
import weakref

from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from errhint import rustfmt

MIN_WORDS = 3
"""A row needs this many distinct content words to be compared at all (shorter templates,
``Index out of range: {}``, are too easy to meet by chance)."""
RECALL = 0.75
"""Share of a row's content words the text must hold."""
WEIGHTED_RECALL = 0.6
"""The same share, each word weighted by its rarity (a changed word is often a rare one)."""
PRECISION = 0.6
"""Share of the distinct words between the first and the last shared one that the row
explains (an added prefix or suffix is tolerated, words strewn across a long unrelated
text are not)."""
SPELLING = 0.8
"""``SequenceMatcher`` ratio at which two words of 5 letters or more count as one word."""
MAX_TEXT_WORDS = 200
"""Words of a text considered (its head: where an error's message is)."""
MAX_RESULTS = 3
DISTINCT = 5
"""At least one shared word must occur in no more than this many rows (``synchonously``,
``recorder``): words every framework uses (``index``, ``out``, ``bounds``, ``dimension``)
do not tell whose message a text is."""
MAX_COMPARED = 24
"""Rows compared in full per text (those sharing the most words with it)."""
COMMON = 0.05
"""A word in more than this share of the rows does not select candidate rows on its own."""
LINE_MAX = 160
"""A message line longer than this is not compared as a whole (``nearest_line``)."""
LEAD_MAX = 64
"""Longest opening (first literal run) that ``nearest_line`` looks up at the start of a line."""
MIN_LITERAL = 8
"""Characters other than spaces that a template's literal text needs before
``nearest_line`` compares it at all (``IO error: `` has 8)."""
RESEMBLANCE = 0.88
"""``SequenceMatcher`` ratio of a whole line to a template without placeholders at which
``nearest_line`` takes one for the other (``Could not get home directory`` →
``Could not get cache directory``: 0.91; two different ops' ``X not supported for bool
tensors``: 0.85, left apart)."""

_lock = threading.Lock()
_tables: "weakref.WeakKeyDictionary[object, Table]" = weakref.WeakKeyDictionary()
"""Per loaded index (forgotten with it)."""


STOPWORDS = frozenset(
    "a an and are as at be been but by can cannot could did do does for from has have if in into is it its "
    "may must no not of on or should than that the then there these this to was were when which while will "
    "with without would".split()
)
"""Words that say nothing about which template a text is (``and`` → ``or`` is a rewording)."""


def words(text: str) -> List[str]:
    """Content words of ``text``, lowercased, in order: runs of letters and digits of 3
    characters or more with a letter, not in STOPWORDS."""
    out: List[str] = []
    cur: List[str] = []
    for ch in text[: 16 * 1024] + " ":
        if ch.isalnum() or ch == "_":
            cur.append(ch.lower())
            continue
        if len(cur) >= 3:
            word = "".join(cur)
            if word not in STOPWORDS and not word.isdigit():
                out.append(word)
        cur = []
    return out


def literal_runs(template: str) -> List[str]:
    """The literal text of a Rust format template between its placeholders (``rustfmt.parse``):
    one run more than there are placeholders, empty where a placeholder starts or ends the
    template or two placeholders meet."""
    runs = [""]
    for piece in rustfmt.parse(template):
        if isinstance(piece, str):
            runs[-1] += piece
        else:
            runs.append("")
    return runs


def template_words(template: str) -> List[str]:
    """Content words of a Rust format template's literal text (``{..}`` placeholders left out)."""
    return words(" ".join(literal_runs(template)))


def row_words(literals: Sequence[str], cut: int = 40) -> List[str]:
    """Content words of a row's literal runs; a run cut at ``cut`` characters (the index
    keeps a prefix of long runs) loses its last word, which may be a fragment."""
    out: List[str] = []
    for run in literals:
        found = words(run)
        if len(run) >= cut and found and run[-1:].isalnum():
            found = found[:-1]
        out.extend(found)
    return out


class Table:
    """Literal words per row of one index, and the rows of each word."""

    def __init__(self, row_words: Sequence[FrozenSet[str]], leads: Optional[Sequence[str]] = None,
                 whole: Optional[Sequence[bool]] = None) -> None:
        """``row_words[i]``: row i's content words; ``leads[i]``: its first literal run (the
        rows ``nearest_line`` may compare); ``whole[i]``: the row's template has no
        placeholder (its lead is all of it, up to the index's cut)."""
        self.row_words = list(row_words)
        self.rows_of: Dict[str, List[int]] = {}
        for i, ws in enumerate(self.row_words):
            for w in ws:
                self.rows_of.setdefault(w, []).append(i)
        n = max(1, len(self.row_words))
        self.common = max(8, int(COMMON * n))
        self.rows_by_lead: Dict[str, List[int]] = {}
        self.rows_by_ends: Dict[Tuple[str, str], List[Tuple[int, int]]] = {}
        self.rows_by_start: Dict[str, List[Tuple[int, str]]] = {}
        for i, lead in enumerate(leads or ()):
            loose = _loose(lead)
            if len(loose) < MIN_LITERAL:
                continue
            if whole is not None and whole[i]:  # a word split or joined, a word's suffix dropped
                self.rows_by_start.setdefault(_compact(loose)[:MIN_LITERAL], []).append((i, loose))
                label, colon, rest = loose.partition(": ")
                if colon and " " not in label and len(_compact(rest)) >= MIN_LITERAL:  # ``Pad: `` dropped
                    self.rows_by_start.setdefault(_compact(rest)[:MIN_LITERAL], []).append((i, rest))
            self.rows_by_lead.setdefault(loose, []).append(i)
            words_ = loose.split(" ")
            if len(words_) > 2:  # a one-word change is told by the first and the last word
                self.rows_by_ends.setdefault((words_[0], words_[-1]), []).append((i, len(loose)))

    def weight(self, word: str) -> float:
        """Rarer words count more (1 / log-ish of how many rows have it)."""
        df = len(self.rows_of.get(word, ())) or 1
        return 1.0 / (1.0 + 0.25 * (df - 1) ** 0.5)

    def nearest(self, text: str, full_words: Optional[Callable[[int], Sequence[str]]] = None) -> List[Tuple[int, float]]:
        """Rows whose words the text holds (see the module doc), best first, with a
        similarity in (0, 1]. Rows are selected by the words of their index literals (a
        long run is cut there); ``full_words(i)``, when given, gives row i's whole template's
        words for the comparison itself."""
        tw = words(text)[:MAX_TEXT_WORDS]
        text_words = set(tw)
        if len(text_words) < 2:
            return []
        counts: Dict[int, int] = {}
        for w in text_words:
            rows = self.rows_of.get(w)
            if rows is None or len(rows) > self.common:
                continue
            for i in rows:
                counts[i] = counts.get(i, 0) + 1
        chosen = sorted((i for i, shared in counts.items() if shared >= 2), key=lambda i: (-counts[i], i))[:MAX_COMPARED]
        out: List[Tuple[int, float]] = []
        for i in chosen:
            row = frozenset(full_words(i)) if full_words is not None else self.row_words[i]
            if len(row) < MIN_WORDS:
                continue
            sim = self._similarity(row, tw)
            if sim > 0:
                out.append((i, sim))
        out.sort(key=lambda item: (-item[1], item[0]))
        return out[:MAX_RESULTS]

    def nearest_line(self, text: str, template_of: Callable[[int], str]) -> List[Tuple[int, float]]:
        """Rows whose whole template reads as the first line of ``text`` apart from letter
        case, a payload left off the end, or (for a template without placeholders) a
        changed word: ``IO error: {0}`` for ``io error: ..``, ``Invalid id. {err}`` for
        ``Invalid id.``, ``Could not get home directory`` for ``Could not get cache
        directory``. For the short messages ``nearest`` leaves alone (too few words to go by).
        Only rows whose opening (first literal run) starts the line, or which begin and end
        with the line's first and last words at a length that allows the resemblance, or
        (templates without placeholders) which start, or continue after a one-word label such
        as ``Pad: ``, with the line's first eight letters and digits and whose opening
        resembles the line's head (``ReduceNode input`` for ``Reduce node input``,
        ``BitShiftNode only`` for ``BitShift only``, ``Pad: Negative pad`` for ``Negative
        pad``), have their record read and compared.
        Best first, with a similarity below 1."""
        line = text.strip().split("\n", 1)[0].strip()
        if not MIN_LITERAL <= len(line) <= LINE_MAX:
            return []
        loose_line = _loose(line)
        rows = [i for k in range(MIN_LITERAL - 1, min(len(loose_line), LEAD_MAX))
                for i in self.rows_by_lead.get(loose_line[: k + 1], ())]  # openings of the line
        words_ = loose_line.split(" ")
        rows += [i for i, size in self.rows_by_ends.get((words_[0], words_[-1]), ())
                 if 2 * min(size, len(loose_line)) >= RESEMBLANCE * (size + len(loose_line))]
        rows += [i for i, lead in self.rows_by_start.get(_compact(loose_line)[:MIN_LITERAL], ())
                 if _resembles(lead, loose_line[: len(lead) + 4])]
        out: List[Tuple[int, float]] = []
        for i in dict.fromkeys(rows):  # each row once, in order
            sim = _line_similarity(template_of(i), line)
            if sim > 0:
                out.append((i, sim))
        out.sort(key=lambda item: (-item[1], item[0]))
        return out[:MAX_RESULTS]

    def _similarity(self, row: FrozenSet[str], tw: List[str]) -> float:
        """Recall of the row's words in the text and precision within the stretch of text
        between the first and the last word they share (a prefix or suffix added around the
        message costs nothing); 0 below the thresholds."""
        text_words = set(tw)
        missing = [w for w in row if w not in text_words]
        unused = [w for w in text_words if w not in row]
        hits = set(row) & text_words
        weight_all = sum(self.weight(w) for w in row)
        weight_got = weight_all - sum(self.weight(w) for w in missing)
        for w in missing:  # a word spelled differently (a typo fixed) still counts
            near = _respelled(w, unused)
            if near is not None:
                unused.remove(near)
                hits.add(near)
                weight_got += self.weight(w)
        matched = len(hits)
        positions = [n for n, w in enumerate(tw) if w in hits]
        if not positions or not any(len(self.rows_of.get(w, ())) <= DISTINCT for w in hits if w in row):
            return 0.0  # nothing but words many templates share: any framework's message reads so
        window = len(set(tw[positions[0] : positions[-1] + 1]))
        recall = weight_got / weight_all if weight_all else 0.0
        precision = matched / max(1, window)
        if recall < WEIGHTED_RECALL or matched < RECALL * len(row) or precision < PRECISION:
            return 0.0
        return recall * (0.5 + 0.5 * precision)


def _compact(text: str) -> str:
    """``text`` without anything but letters and digits (``ReduceNode`` = ``Reduce node``)."""
    return "".join(ch for ch in text if ch.isalnum())


def _resembles(lead: str, head: str) -> bool:
    """Whether a row's opening and the line's head of about its length are alike enough to
    read the row's record (``RESEMBLANCE``, a little looser: the head may end mid-word)."""
    from difflib import SequenceMatcher

    matcher = SequenceMatcher(None, lead, head)
    return matcher.quick_ratio() >= RESEMBLANCE - 0.08 and matcher.ratio() >= RESEMBLANCE - 0.08


def _loose(text: str) -> str:
    """``text`` lowercased, its whitespace runs made one space."""
    return " ".join(text.lower().split())


_NEXT_SENTENCE = re.compile(r"[.!]\s+(?=[A-Z])")


def _line_similarity(template: str, line: str) -> float:
    """How well ``line`` reads as ``template`` (see ``Table.nearest_line``), or as its first
    sentence when the template has more (a release that dropped ``Please provide ...``); 0
    when it does not."""
    sim = _line_similarity_whole(template, line)
    cut = _NEXT_SENTENCE.search(template)
    if sim == 0 and cut is not None:
        sim = 0.95 * _line_similarity_whole(template[: cut.start()], line.rstrip(".!"))
    return sim


def _line_similarity_whole(template: str, line: str) -> float:
    pieces = literal_runs(template)
    literal = "".join(pieces).strip()
    if sum(not ch.isspace() for ch in literal) < MIN_LITERAL or len(literal) < len(line) / 2:
        return 0.0  # mostly placeholder: a short opening and a long payload could be anyone's
    loose = r"(?:.*?)".join(r"\s*".join(re.escape(word) for word in piece.split()) for piece in pieces)
    if re.fullmatch(loose + r"\s*", line, re.IGNORECASE | re.DOTALL):
        return 0.9
    if len(pieces) == 1:
        from difflib import SequenceMatcher

        ratio = SequenceMatcher(None, literal.lower(), line.lower()).ratio()
        if ratio >= RESEMBLANCE:
            return 0.9 * ratio
    return 0.0


def _respelled(word: str, candidates: List[str]) -> Optional[str]:
    if len(word) < 5:
        return None
    from difflib import SequenceMatcher

    for other in candidates:
        if len(other) < 5 or abs(len(other) - len(word)) > 2:
            continue
        if other.endswith(word) or word.endswith(other):
            return other  # a prefix added or dropped (quantize, dequantize)
        if other[0] == word[0] and SequenceMatcher(None, word, other).ratio() >= SPELLING:
            return other
    return None


def table(ix: object, literals_of: "object") -> Table:
    """The table of index ``ix`` (built once: ``literals_of(i)`` gives row i's literals)."""
    found = _tables.get(ix)
    if found is None:
        with _lock:
            found = _tables.get(ix)
            if found is None:
                count = len(ix)  # type: ignore[arg-type]
                literals = [literals_of(i) for i in range(count)]  # type: ignore[operator]
                found = Table([frozenset(row_words(runs)) for runs in literals], [runs[0] if runs else "" for runs in literals],
                              [len(runs) == 1 for runs in literals])
                _tables[ix] = found
    return found
