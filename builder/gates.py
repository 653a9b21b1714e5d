"""Quality gates every shipped pattern passes (run by the build, exercised by tests).

1. It compiles with ``regex`` (DOTALL).
2. It matches (``search``) the example message synthesised from its own template.
3. It matches none of the unrelated error messages in ``curation/negatives.txt``.
   (Separately, :func:`over_generic` finds patterns that match the examples of several
   more-specific records; the build marks them ``generic`` instead of dropping them.)
4. Every search of a 64 KB adversarial input finishes within 1 ms (regex's ``timeout``; a
   timed-out attempt is retried, because a busy machine can stall any single call).

Gates 1-3 are deterministic: a pattern failing them is not shipped (and counted).  Gate 4
depends on the machine, so a failure there aborts the build instead of silently changing the
output (the pattern generator must be fixed).

The adversarial inputs target what makes a search slow: long runs without the expected
literal after a group, many near-misses of the message in one text, bracket and whitespace
floods, and random text built from the dataset's own words.
"""

from __future__ import annotations

import bisect
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import regex

SIZE = 64 * 1024
BUDGET = 0.001
RETRIES = 4


def load_negatives(path: Path) -> List[str]:
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        out.append(line.replace("\\n", "\n").replace("\\t", "\t"))
    return out


def _fill(unit: str, size: int = SIZE) -> str:
    return (unit * (size // max(1, len(unit)) + 1))[:size]


def generic_inputs(vocabulary: Sequence[str], seed: int = 1234) -> Dict[str, str]:
    """Adversarial texts shared by all patterns (deterministic)."""
    rnd = random.Random(seed)
    printable = "".join(chr(c) for c in range(32, 127)) + "\n"
    words = sorted(set(vocabulary)) or ["error"]
    word_text = []
    size = 0
    while size < SIZE:
        w = rnd.choice(words)
        sep = "\n" if rnd.random() < 0.02 else " "
        word_text.append(w + sep)
        size += len(w) + 1
    return {
        "a-run": "a" * SIZE,
        "spaces": " " * SIZE,
        "newlines": "\n" * SIZE,
        "parens": "(" * (SIZE // 2) + ")" * (SIZE // 2),
        "brackets": _fill("[0, [1, "),
        "quotes": _fill('"\\"'),
        "commas": _fill("0, "),
        "random": "".join(rnd.choice(printable) for _ in range(SIZE)),
        "words": "".join(word_text)[:SIZE],
    }


def pattern_inputs(example: str) -> Dict[str, str]:
    """Adversarial texts derived from one pattern's own example message."""
    near = _near_miss(example)
    filler_line = _fill("x y, z: [1, 2] ", 1000)
    log = _fill(near + "\n" + filler_line + "\n")
    return {
        "example-then-filler": example + "\n" + _fill("x ", SIZE - len(example) - 1),
        "near-miss-then-run": near + _fill("x", SIZE - len(near)),
        "near-miss-log": log,
    }


def _near_miss(example: str) -> str:
    """The example with its last few characters changed, so the last literal never matches."""
    if len(example) < 2:
        return example + "#"
    cut = max(1, len(example) - 3)
    return example[:cut] + "\x01" + example[cut + 1 :]


def search_time(compiled: "regex.Pattern[str]", text: str) -> Optional[float]:
    """Seconds of the fastest of up to RETRIES searches within the budget, or None if all timed out."""
    for _ in range(RETRIES):
        t0 = time.perf_counter()
        try:
            compiled.search(text, timeout=BUDGET)
        except TimeoutError:
            continue
        return time.perf_counter() - t0
    return None


@dataclass
class GateResult:
    ok: bool
    reason: Optional[str] = None


class Gates:
    """Runs the four gates; build it once (negatives, generic inputs) and check many patterns."""

    def __init__(self, negatives: Sequence[str], vocabulary: Sequence[str] = ()) -> None:
        self.negatives = list(negatives)
        self.generic = generic_inputs(vocabulary)

    def check(self, pattern: str, examples: Sequence[str], timing: bool = True) -> GateResult:
        try:
            compiled = regex.compile(pattern, regex.DOTALL)
        except regex.error as exc:
            return GateResult(False, f"does not compile: {exc}")
        if not examples or not any(compiled.search(e, timeout=0.05) for e in examples):
            return GateResult(False, "does not match its own example")
        for neg in self.negatives:
            if compiled.search(neg, timeout=0.05):
                return GateResult(False, f"matches an unrelated message: {neg[:60]!r}")
        if timing:
            slow = self.slow_input(compiled, examples[0])
            if slow is not None:
                return GateResult(False, f"slower than {BUDGET * 1000:.0f} ms on adversarial input '{slow}'")
        return GateResult(True)

    def slow_input(self, compiled: "regex.Pattern[str]", example: str) -> Optional[str]:
        """Name of the first adversarial input the pattern cannot search within the budget."""
        inputs = dict(self.generic)
        inputs.update(pattern_inputs(example))
        for name, text in inputs.items():
            if search_time(compiled, text) is None:
                return name
        return None


# --------------------------------------------------------------------------- over-generic patterns

GENERIC_MIN_VICTIMS = 3
"""A pattern matching the examples of this many more-specific records is marked ``generic``."""


@dataclass(frozen=True)
class Probe:
    """What the over-generic check needs of one record."""

    id: str
    pattern: str
    literal_chars: int
    anchor: str
    """A literal every match must contain (the longest literal piece of the template)."""
    examples: Tuple[str, ...]


def over_generic(probes: Sequence[Probe], threshold: int = GENERIC_MIN_VICTIMS) -> Dict[str, List[str]]:
    """id → ids of the more-specific records (more literal text) whose synthesised examples the
    record's pattern matches, for records reaching ``threshold`` such records.

    ``{k} is not divisible by {qk}`` matches the conv-groups message, every ``vec_dot_*``
    message and the GGUF element-count one: when such a message is raised, the specific record
    must win, and ranking needs to know the pattern is a catch-all.  The examples are searched
    for each record's anchor literal first (one pass over all examples), so only a handful of
    regex searches run per record.
    """
    sep = "\n\x00\n"
    owners: List[int] = []
    starts: List[int] = []
    parts: List[str] = []
    pos = 0
    for k, p in enumerate(probes):
        for ex in p.examples:
            starts.append(pos)
            owners.append(k)
            parts.append(ex)
            pos += len(ex) + len(sep)
    blob = sep.join(parts)
    out: Dict[str, List[str]] = {}
    for k, p in enumerate(probes):
        if not p.anchor:
            continue
        hits = set()
        at = blob.find(p.anchor)
        while at >= 0:
            idx = bisect.bisect_right(starts, at) - 1
            other = owners[idx]
            if other != k and probes[other].literal_chars > p.literal_chars:
                hits.add(idx)
            at = blob.find(p.anchor, at + 1)
        if len({owners[i] for i in hits}) < threshold:
            continue
        compiled = regex.compile(p.pattern, regex.DOTALL)
        victims = sorted({probes[owners[i]].id for i in hits if compiled.search(parts[i], timeout=0.05)})
        if len(victims) >= threshold:
            out[p.id] = victims
    return out
