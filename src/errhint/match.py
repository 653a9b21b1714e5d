"""``Match``: one record matched to an error, immutable and JSON-serialisable."""

from __future__ import annotations

import re
from functools import lru_cache
from types import MappingProxyType

from typing import Any, Dict, Mapping, Optional, Tuple

from errhint._lazyre import LazyPattern
from errhint.constants import NAMED_GROUP
from errhint.view import RecordView

_GROUP_AT = re.compile(NAMED_GROUP)
_LAST_WORD = LazyPattern(r"([A-Za-z][A-Za-z_]{1,15})[\s:='\"`(\[]*$")
_ESCAPE = LazyPattern(r"\\(.)")
_STOPWORDS = frozenset(
    "a an and are as at be by for from in into is not of on or than the to with".split()
)


def _literal_before(pattern: str, pos: int) -> str:
    """The literal pattern text just before ``pos`` (escapes undone, stops at a group)."""
    start = max(pattern.rfind(")", 0, pos), pattern.rfind("(", 0, pos))
    return _ESCAPE.sub(r"\1", pattern[start + 1 : pos])


def _positional(name: str) -> bool:
    """``f0``, ``arg1``: the builder's names for tuple fields and unnamed ``{}`` arguments."""
    digits = name[1:] if name.startswith("f") else name[3:] if name.startswith("arg") else ""
    return digits.isdecimal()  # "" is not


@lru_cache(maxsize=4096)
def _alias_names(pattern: str) -> Tuple[Tuple[str, str], ...]:
    """(positional group, readable name) pairs of a pattern, in pattern order."""
    out = []
    for m in _GROUP_AT.finditer(pattern):
        name = m.group(1)
        if not _positional(name):
            continue
        word = _LAST_WORD.search(_literal_before(pattern, m.start()))
        if word and word.group(1).lower() not in _STOPWORDS:
            out.append((name, word.group(1).lower()))
    return tuple(out)


def aliases(pattern: str, groups: Mapping[str, str]) -> Dict[str, str]:
    """Readable names for positional groups: ``dtype (?P<f0>..)`` gives ``dtype``.

    Tuple fields and unnamed ``{}`` arguments become groups ``f0``/``arg0``; the word in front
    of them in the message is what a reader (and a family hint) calls that value.
    """
    out: Dict[str, str] = {}
    for name, alias in _alias_names(pattern):
        if groups.get(name) is not None and alias not in groups and alias not in out:
            out[alias] = groups[name]
    return out


class Match:
    """A record judged to explain an error; immutable.

    ``record`` is a read-only ``RecordView`` (snake_case schema attributes); ``score`` is in
    [0, 1]; ``captures`` maps names to the values taken from the message; ``message`` is the
    clean human-readable message (for a Debug form, the Display text rebuilt from the
    variant); ``family`` is the ``families.json`` entry of the record's backgroundTag;
    ``kind`` is ``full``, ``partial``, ``variant`` (matched by the Rust variant name only) or
    ``approximate`` (no pattern matched; the template nearest by its words: ``approximate``);
    ``also`` holds the ids of other records with the same clean message (the same error
    raised at other sites), which are not separate matches.

    Computed from the user's own values (``errhint.advice``; None when nothing applies):
    ``values`` is the typed reading of ``captures`` (shapes as lists of ints, integers as
    ints, dtypes and ops as their names); ``advice_cause``/``advice_fix`` are shown before the
    record's static text; ``fix_code`` is a rewrite of the failing statement that runs with
    ``exec`` in the failing frame's globals/locals (Python, only for a live exception with a
    traceback), ``fix_language`` is ``python`` or ``rust``, the language of the fix;
    ``site`` is ``{file, line, fn, url}`` of the record's site the call reached, when the
    values tell several sites of one message apart (``github_url`` prefers it);
    ``record_fix`` is False when the advice found that the record's first fix is about
    another check that raises the same text (matmul's rank check beside its inner-dimension
    check): the brief hint then shows no ``or:`` line.

    A hand-written value class rather than a dataclass: ``@dataclass`` generates its methods
    with ``exec`` when the module is imported, which the first lookup of a process pays for.
    """

    __slots__ = ("record", "score", "captures", "message", "family", "kind", "also",
                 "values", "advice_cause", "advice_fix", "fix_code", "fix_language", "site",
                 "record_fix")

    record: RecordView
    score: float
    captures: Mapping[str, str]
    message: str
    family: Optional[Mapping[str, Any]]
    kind: str
    also: Tuple[str, ...]
    values: Mapping[str, Any]
    advice_cause: Optional[str]
    advice_fix: Optional[str]
    fix_code: Optional[str]
    fix_language: Optional[str]
    site: Optional[Mapping[str, Any]]
    record_fix: bool

    def __init__(
        self,
        record: RecordView,
        score: float,
        captures: Mapping[str, str],
        message: str,
        family: Optional[Mapping[str, Any]] = None,
        kind: str = "full",
        also: Tuple[str, ...] = (),
        values: Optional[Mapping[str, Any]] = None,
        advice_cause: Optional[str] = None,
        advice_fix: Optional[str] = None,
        fix_code: Optional[str] = None,
        fix_language: Optional[str] = None,
        site: Optional[Mapping[str, Any]] = None,
        record_fix: bool = True,
    ) -> None:
        setter = object.__setattr__
        setter(self, "record", record)
        setter(self, "score", float(score))
        setter(self, "captures", MappingProxyType(dict(captures)))
        setter(self, "message", message)
        # a read-only view, not a copy: family entries are shared, immutable catalogue data
        setter(self, "family", None if family is None else MappingProxyType(family) if isinstance(family, dict) else family)
        setter(self, "kind", kind)
        setter(self, "also", tuple(also))
        setter(self, "values", MappingProxyType(dict(values or {})))
        setter(self, "advice_cause", advice_cause)
        setter(self, "advice_fix", advice_fix)
        setter(self, "fix_code", fix_code)
        setter(self, "fix_language", fix_language)
        setter(self, "site", None if site is None else MappingProxyType(dict(site)))
        setter(self, "record_fix", bool(record_fix))

    def evolve(self, **changes: Any) -> "Match":
        """A copy with some fields replaced (``Match`` is immutable)."""
        fields = {name: getattr(self, name) for name in self.__slots__}
        fields.update(changes)
        return Match(**fields)

    @property
    def github_url(self) -> Optional[str]:
        """The link to the site that raised: the chosen ``site``'s, else the record's."""
        if self.site is not None and self.site.get("url"):
            return self.site["url"]
        return self.record.github_url

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Match is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Match is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return (self.record.id, self.score, dict(self.captures), self.message, self.kind) == (
            other.record.id, other.score, dict(other.captures), other.message, other.kind)

    def __hash__(self) -> int:
        return hash((self.record.id, self.score, self.message))

    def __repr__(self) -> str:
        return f"Match(id={self.record.id!r}, score={self.score:.3f}, message={self.message!r}, captures={dict(self.captures)!r})"

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def approximate(self) -> bool:
        """True when no pattern matched and the record's template is only the nearest by
        its words (``kind == "approximate"``, from ``similar``): likely a reworded release."""
        return self.kind == "approximate"

    def render(self, verbosity: str = "brief", color: bool = False) -> str:
        from errhint.render import render_match

        return render_match(self, verbosity, color)

    def to_dict(self) -> Dict[str, Any]:
        """JSON-able form: ids, score, message, captures, the filled hint and the record.

        Shape: ``{"id", "repo", "score", "kind", "message", "captures", "errorType",
        "siteKind", "backgroundTag", "githubUrl" (the chosen site's), "recordUrl", "site",
        "values", "fixCode", "fixLanguage", "alsoRaisedAt": [id, ...], "hint": {"cause", "fix",
        "advice": {"cause", "fix"} | null, "solutions", "documentation", "exampleFix",
        "preventionTips", "pointer", "condition", "written"}, "record": {...camelCase}, "family": {...} | null}``;
        ``hint.cause``/``hint.fix`` are the computed advice when there is one.
        """
        from errhint.render import hint_parts

        parts = hint_parts(self)
        rec = self.record
        return {
            "id": rec.id,
            "repo": rec.repo,
            "score": round(self.score, 4),
            "kind": self.kind,
            "message": self.message,
            "captures": dict(self.captures),
            "errorType": rec.error_type,
            "siteKind": rec.site_kind,
            "backgroundTag": rec.background_tag,
            "githubUrl": self.github_url,
            "recordUrl": rec.github_url,
            "site": dict(self.site) if self.site is not None else None,
            "values": dict(self.values),
            "fixCode": self.fix_code,
            "fixLanguage": self.fix_language,
            "alsoRaisedAt": list(self.also),
            "hint": {
                "cause": parts["cause"],
                "fix": parts["fix"],
                "advice": None if self.advice_cause is None else {"cause": self.advice_cause, "fix": self.advice_fix},
                "solutions": list(parts["solutions"]),
                "documentation": parts["documentation"],
                "exampleFix": parts["exampleFix"],
                "preventionTips": list(parts["preventionTips"]),
                "pointer": parts["pointer"],
                "condition": parts["condition"],
                "written": parts["written"],
            },
            "record": rec.to_dict(),
            "family": dict(self.family) if self.family is not None else None,
        }
