"""Full-text search over records: messages, tags, family and documentation.

Every query word (a whitespace-separated token, taken literally: ``(a+)+$`` is six characters
to find, not a pattern) must occur somewhere in the record (substring, case-insensitive, so
``dtyp`` finds ``dtype``); with ``regex=True`` the query is one regular expression instead,
run with a timeout per record. Hits are then scored by where the words occur (a word in the
message counts more than one in the documentation, a whole word more than part of one).
Substring tests run in C over one lower-cased text per record, which keeps a query over
10k records without a persistent index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple


# (record field, weight); lists are joined, the variant contributes its enum and name
FIELDS: Tuple[Tuple[str, float], ...] = (
    ("errorMessage", 4.0),
    ("slug", 3.0),
    ("tags", 3.0),
    ("errorCode", 3.0),
    ("variant", 3.0),
    ("backgroundTag", 2.0),
    ("crate", 2.0),
    ("filePath", 2.0),
    ("repo", 1.5),
    ("documentation", 1.0),
    ("triggerScenarios", 1.0),
    ("commonSituations", 1.0),
    ("solutions", 1.0),
    ("preventionTips", 0.5),
    ("exampleFix", 0.5),
)


@dataclass(frozen=True)
class Hit:
    record: Dict[str, Any]
    score: float


_TRIM = "\"'`,;:.!?"
"""Trimmed from both ends of a word: quotes and separators pasted along with it."""

REGEX_TIMEOUT = 0.05
"""Seconds a ``--regex`` search may spend on one record; past it the record does not match."""


def terms(query: str) -> List[str]:
    """Lower-cased query words (whitespace-separated, quotes and separators at their ends
    trimmed), duplicates removed, order kept."""
    seen: List[str] = []
    for w in query.lower().split():
        w = w.strip(_TRIM)
        if w and w not in seen:
            seen.append(w)
    return seen


def compile_regex(query: str) -> Any:
    """``query`` as a case-insensitive ``regex`` pattern; ValueError says why it is not one."""
    import regex

    try:
        return regex.compile(query, regex.IGNORECASE | regex.VERSION1)
    except regex.error as exc:
        raise ValueError(f"not a regular expression: {exc}") from None


class SearchIndex:
    """One lower-cased text per record (all fields), plus per-field texts for scoring hits."""

    def __init__(self, records: Sequence[Dict[str, Any]], families: Optional[Dict[str, Any]] = None) -> None:
        self.records = list(records)
        self._families = families or {}
        self._fields: List[Tuple[str, ...]] = [self._field_texts(r) for r in self.records]
        self._all: List[str] = ["\n".join(f) for f in self._fields]

    def _field_texts(self, r: Dict[str, Any]) -> Tuple[str, ...]:
        out = []
        for name, _ in FIELDS:
            value = r.get(name)
            if name == "variant" and isinstance(value, dict):
                value = f"{value.get('enum', '')} {value.get('name', '')}"
            elif name == "backgroundTag" and isinstance(value, str):
                title = (self._families.get(value) or {}).get("title", "") if isinstance(self._families.get(value), dict) else ""
                value = f"{value} {title}"
            if isinstance(value, (list, tuple)):
                value = "\n".join(str(v) for v in value)
            out.append(str(value).lower() if value else "")
        return tuple(out)

    def search(
        self,
        query: str,
        *,
        repos: Optional[Sequence[str]] = None,
        error_type: Optional[str] = None,
        family: Optional[str] = None,
        pattern: Any = None,
    ) -> List[Hit]:
        """Every record containing all query words (or, with ``pattern``, a match of that
        compiled regex) and passing the filters, best first."""
        if pattern is not None:
            return self._regex_search(pattern, repos, error_type, family)
        words = terms(query)
        if not words:
            return []
        phrase = " ".join(query.lower().split())
        whole = [re.compile(r"(?<![a-z0-9_])" + re.escape(w) + r"(?![a-z0-9_])") for w in words]
        hits: List[Hit] = []
        for i, text in enumerate(self._all):
            if not all(w in text for w in words):
                continue
            r = self.records[i]
            if repos and r.get("repo") not in repos:
                continue
            if error_type and r.get("errorType") != error_type:
                continue
            if family and r.get("backgroundTag") != family:
                continue
            hits.append(Hit(r, self._score(self._fields[i], words, whole, phrase)))
        hits.sort(key=_order)
        return hits

    def _regex_search(self, pattern: Any, repos: Any, error_type: Any, family: Any) -> List[Hit]:
        """Records where ``pattern`` matches, scored by the weights of the fields it matches in."""
        hits: List[Hit] = []
        for i, r in enumerate(self.records):
            if repos and r.get("repo") not in repos or error_type and r.get("errorType") != error_type:
                continue
            if family and r.get("backgroundTag") != family:
                continue
            score = 0.0
            for (_, weight), text in zip(FIELDS, self._fields[i]):
                try:
                    found = text and pattern.search(text, timeout=REGEX_TIMEOUT)
                except TimeoutError:
                    found = None
                if found:
                    score += weight
            if score:
                hits.append(Hit(r, round(score, 2)))
        hits.sort(key=_order)
        return hits

    @staticmethod
    def _score(fields: Tuple[str, ...], words: List[str], whole: List[Any], phrase: str) -> float:
        score = 0.0
        for w, rx in zip(words, whole):
            best = 0.0
            for (_, weight), text in zip(FIELDS, fields):
                if w in text:
                    best = max(best, weight * (2.0 if rx.search(text) else 1.0))
            score += best
        if len(words) > 1 and phrase in fields[0]:
            score += 8.0  # the query as typed appears in the message
        return round(score, 2)


def _order(hit: Hit) -> Tuple[Any, ...]:
    """Best score first; among equals, the record found in more releases, then the shorter message."""
    r = hit.record
    versions = r.get("versions") if isinstance(r.get("versions"), list) else []
    return (-hit.score, -len(versions), len(str(r.get("errorMessage", ""))), str(r.get("repo")), str(r.get("id")))
