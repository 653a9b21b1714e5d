"""The floor: never do worse than a plain search of the shipped patterns.

The structured path (``normalize`` → index → match → rank) reads a text through its
dressing and may find nothing to show: the dressing was not one it knows, the message
itself was rewritten (a Debug value rebuilt), its score fell below ``min_score``, or the
template begins or ends in whitespace that the text lost when it was trimmed
(``Manual seed not supported by Candle. ``). When that path shows nothing, the engine searches
the prefiltered patterns anywhere in the raw texts instead: the texts as they came (and the
layers ``pasted`` finds inside them), with each pattern's leading and trailing whitespace
made optional. A hit there is shown whatever its score: it is what a plain search would
have found, ranked as usual (a match of part of a line scores lower than one of the whole).

Never for an exception of a plain Python class (``KeyError``, ``ZeroDivisionError``...):
those are not Rust errors in disguise, whatever text they carry.
"""

from __future__ import annotations

from typing import Dict, List

import builtins

from errhint import pasted
from errhint.extract import Item
from errhint.normalize import MAX_CANDIDATE, Candidate
from errhint.rank import RUST_EXCEPTION_TYPES

FLOOR_WEIGHT = 0.95
"""Candidate weight of a raw text: the structured reading of the same words ranks first."""

_WS_ESCAPES = ("\\n", "\\t", "\\r", "\\ ", " ", "\\s", "\\s+", "\\s*")
_PRUNE = "(*PRUNE)"


DEFAULT_MIN_SCORE = 0.5
"""``config.Options.min_score``'s default: at or below it the floor shows any pattern match."""


def threshold(min_score: float) -> float:
    """The score a floor hit needs: none at the default ``min_score`` (or a lower one), the
    caller's own when it asked for more (a stricter ``min_score`` is a choice, not a gap)."""
    return 0.0 if min_score <= DEFAULT_MIN_SCORE else min_score


def eligible(name: str) -> bool:
    """Whether a text raised as exception type ``name`` may get a floor hit: not one of a
    plain Python class (a builtin one other than those the bindings raise). A type name
    Python does not have (``BoundsError: ..`` pasted from a Rust log) is part of the
    message, not a class."""
    if not name or "." in name or name in RUST_EXCEPTION_TYPES:
        return True
    found = getattr(builtins, name, None)
    return not (isinstance(found, type) and issubclass(found, BaseException))


def candidates(item: Item) -> List[Candidate]:
    """The raw text of ``item`` and of the layers inside it, as searchable candidates."""
    error_type = "panic" if item.exc_type.endswith("PanicException") else ("exception" if item.exc_type else None)
    texts = [(item.text, 1.0)]
    if item.origin == "text" and item.exc_type:
        texts.append((f"{item.exc_type}: {item.text}", 1.0))  # ``BoundsError: ..`` is a Rust message too
    texts += pasted.layers(item.text)
    out: List[Candidate] = []
    seen = set()
    for text, weight in texts:
        text = text[:MAX_CANDIDATE]
        if not text.strip() or text in seen:
            continue
        seen.add(text)
        message = text.strip()
        out.append(Candidate(text=text, message=message, error_type=error_type, form="raw", weight=weight * FLOOR_WEIGHT))
    return out


_TRIMMED: Dict[str, str] = {}
_MAX_TRIMMED = 4096


def trimmed(pattern: str) -> str:
    """``pattern`` without the literal whitespace (and ``(*PRUNE)`` verbs) at its ends, so a
    template written with a trailing space or a leading newline matches a trimmed text."""
    found = _TRIMMED.get(pattern)
    if found is not None:
        return found
    out = pattern
    changed = True
    while changed:
        changed = False
        if out.endswith(_PRUNE):
            out, changed = out[: -len(_PRUNE)], True
        for ws in _WS_ESCAPES:
            if out.endswith(ws) and _escaped_end(out, len(out) - len(ws)) and out != ws:
                out, changed = out[: -len(ws)], True
                break
    changed = True
    while changed:
        changed = False
        for ws in _WS_ESCAPES:
            if out.startswith(ws) and len(out) > len(ws) and out[len(ws)] not in "*+?{":
                out, changed = out[len(ws) :], True
                break
    if len(_TRIMMED) < _MAX_TRIMMED:
        _TRIMMED[pattern] = out
    return out


def _escaped_end(pattern: str, at: int) -> bool:
    """Whether the text before ``at`` ends outside an escape (an even number of backslashes:
    ``\\\\n`` is a backslash and an ``n``, not a line break)."""
    n = 0
    while at - n - 1 >= 0 and pattern[at - n - 1] == "\\":
        n += 1
    return n % 2 == 0
