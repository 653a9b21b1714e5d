"""Key words: the one word of a record's required text the index files it under, and the
tokens of a text that are looked up against those keys."""

from __future__ import annotations

import re
from collections import Counter

from typing import List, Optional, Sequence, Tuple

from errhint._lazyre import LazyPattern
from errhint.literals import Runs

MIN_KEY_LEN = 3
_WORD = LazyPattern(r"[A-Za-z0-9_]+")
_TOKENS = re.compile(r"[A-Za-z0-9_]{%d,}" % MIN_KEY_LEN)

def key_words(runs: Runs) -> List[str]:
    """Keys that occur among the tokens of every text the pattern matches on word boundaries.

    A word (at least ``MIN_KEY_LEN`` characters) qualifies when a non-word character of the
    pattern's own literal text, or a boundary (the pattern's start/end, ``^``, ``$``, ``\\b``,
    a ``(?<![A-Za-z0-9_])`` assertion) is on each side of it; a word at the edge of a run next
    to a group may be glued to captured text, so it does not. Two
    qualifying words that follow each other in a run also give the pair key ``"w1 w2"``
    (shorter words between them are skipped, as the text's tokens skip them): pairs are far
    rarer than single words, so they keep the candidate lists short in large datasets.
    (A match that starts or ends inside a word, e.g. ``for op matmul`` within
    ``for op matmul_v2``, is not a match of that message anyway; the prefilter may skip it.)
    """
    out: List[str] = []
    for r, literal in enumerate(runs.runs):
        previous: Optional[str] = None
        for m in _WORD.finditer(literal):
            word = m.group()
            if len(word) < MIN_KEY_LEN:
                continue
            left = m.start() > 0 or runs.left[r]
            right = m.end() < len(literal) or runs.right[r]
            if left and right:
                out.append(word)
                if previous is not None:
                    out.append(f"{previous} {word}")
                previous = word
            else:
                previous = None
    return out


def edge_keys(runs: Runs) -> List[str]:
    """Keys for words at a run's edge next to a group: ``*word`` (a token of the text ends
    with it) and ``word*`` (a token starts with it). A run that is one bare word gives none."""
    out = []
    for r, literal in enumerate(runs.runs):
        words = list(_WORD.finditer(literal))
        if not words:
            continue
        first, final = words[0], words[-1]
        if first.start() == 0 and not runs.left[r] and first.end() < len(literal):
            if len(first.group()) >= MIN_KEY_LEN:
                out.append("*" + first.group())
        if final.end() == len(literal) and not runs.right[r] and final.start() > 0:
            if len(final.group()) >= MIN_KEY_LEN:
                out.append(final.group() + "*")
    return out


def key_bucket(key: str) -> Tuple[str, str]:
    """(map, bucket) a key lives in: exact words by themselves, edge keys by 3-char affix."""
    if key.startswith("*"):
        return "suffix", key[-MIN_KEY_LEN:]
    if key.endswith("*"):
        return "prefix", key[:MIN_KEY_LEN]
    return "exact", key


def text_tokens(text: str) -> set:
    """Every maximal word of at least ``MIN_KEY_LEN`` characters in ``text``, and every pair
    of consecutive such words (``"w1 w2"``), to look keys up with."""
    words = _TOKENS.findall(text)
    out = set(words)
    out.update(f"{a} {b}" for a, b in zip(words, words[1:]))
    return out


def choose_keys(run_lists: Sequence[Runs]) -> List[Optional[str]]:
    """For each record, its rarest key word over the dataset (ties: longer, then a-z).

    Records without one get the edge key whose bucket is least used, else None (scan list).
    """
    words_per_record = [sorted(set(key_words(runs))) for runs in run_lists]
    freq: Counter = Counter(w for words in words_per_record for w in words)
    edges_per_record = [
        sorted(set(edge_keys(runs))) if not words else [] for runs, words in zip(run_lists, words_per_record)
    ]
    bucket_freq: Counter = Counter(key_bucket(k) for keys in edges_per_record for k in keys)
    keys: List[Optional[str]] = []
    for words, edges in zip(words_per_record, edges_per_record):
        if words:
            keys.append(min(words, key=lambda w: (freq[w], -len(w), w)))
        elif edges:
            keys.append(min(edges, key=lambda k: (bucket_freq[key_bucket(k)], -len(k), k)))
        else:
            keys.append(None)
    return keys
