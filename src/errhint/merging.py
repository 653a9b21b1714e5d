"""Merging hits into the matches a lookup returns: one per record, one per template, one
per headline, ordered and cut by ``min_score`` and ``limit``."""

from __future__ import annotations

from collections.abc import Mapping

from typing import Any, Dict, List, Optional, Sequence, Tuple

from errhint import rank
from errhint.dataset import Dataset
from errhint.match import Match, aliases
from errhint.matching import Found
from errhint.view import RecordView


def merge(ds: Dataset, found: List[Found], *, limit: int, min_score: float, repos: Optional[Sequence[str]]) -> List[Match]:
    """The matches ``found`` adds up to, best first: one per record, one per template, one
    per headline (see the helpers), at most ``limit``, none scored below ``min_score``;
    ``repos`` (when not None) keeps only records of those repositories or pulled in by them."""
    found = _innermost_first(_specific_first(found))
    best = _best_per_record(found, repos)
    ordered = sorted(_one_per_template(best), key=lambda f: (-f.score, f.meta().id))
    kept, dupes = _one_per_headline(ordered)
    return [
        _to_match(ds, f, dupes.get(n, ()))
        for n, f in enumerate(kept)
        if n < limit and rank.clamp(f.score) >= min_score
    ]


def _best_per_record(found: List[Found], repos: Optional[Sequence[str]]) -> List[Found]:
    """The best-scored hit of each record (of ``repos`` only, when given)."""
    best: Dict[str, Found] = {}
    for f in found:
        meta = f.meta()
        if repos is not None:
            owners = {meta.repo} | {p.split("@", 1)[0] for p in meta.pulled_in_by}
            if not owners & set(repos):
                continue
        rid = meta.id
        if rid not in best or f.score > best[rid].score:
            best[rid] = f
    return list(best.values())


def _one_per_template(best: List[Found]) -> List[Found]:
    """One hit per pattern: the same template at another site adds nothing, and a template a
    user dataset also carries is shown with the user's record (at the group's best score)."""
    by_pattern: Dict[str, Found] = {}
    for f in best:
        pattern = f.meta().pattern
        kept = by_pattern.get(pattern)
        if kept is None:
            by_pattern[pattern] = f
            continue
        score = max(kept.score, f.score)
        user, kept_user = f.index.user, kept.index.user
        if user > kept_user or (user == kept_user and f.score > kept.score):
            kept = f
        by_pattern[pattern] = kept._replace(score=score)
    return list(by_pattern.values())


def _one_per_headline(ordered: List[Found]) -> Tuple[List[Found], Dict[int, List[Found]]]:
    """The hits kept, and per kept position the hits merged into it.

    The same text fully matched at several sites (a CPU kernel, the error enum, a CUDA
    backend), or rival rebuildings of one Debug value, are one error to the user; the others
    are "also raised at". A partial match, or one of another line, explains another layer
    (cudarc's code inside candle's "when loading"): a hint of its own.
    """
    kept: List[Found] = []
    dupes: Dict[int, List[Found]] = {}
    first: Dict[Any, int] = {}
    for f in ordered:
        key = _headline_key(f)
        n = first.get(key) if key is not None else None
        if n is None:
            if key is not None:
                first[key] = len(kept)
            kept.append(f)
        elif f.index.user and not kept[n].index.user:
            # the user's own record of this error is the one shown (at the group's best score)
            dupes.setdefault(n, []).append(kept[n])
            kept[n] = f._replace(score=kept[n].score)
        else:
            dupes.setdefault(n, []).append(f)
    return kept, dupes


def _captures(f: Found) -> Dict[str, str]:
    """The candidate's known values, overridden by the pattern's groups, plus readable aliases."""
    groups = dict(f.groups)
    captures: Dict[str, str] = {k: v for k, v in f.candidate.captures.items() if k not in groups}
    captures.update(groups)
    for alias, value in aliases(f.meta().pattern, groups).items():
        captures.setdefault(alias, value)
    return captures


def _to_match(ds: Dataset, f: Found, dupes: Sequence[Found] = ()) -> Match:
    """``dupes``: hits of other records with the same message; their values fill gaps
    (a specialised record has ``matmul`` as literal text, the enum's template captures it)."""
    meta = f.meta()
    captures = _captures(f)
    for other in dupes:
        for name, value in _captures(other).items():
            captures.setdefault(name, value)
    family = ds.family(meta.background_tag) if meta.background_tag else None
    return Match(
        record=RecordView.from_dict(f.index.record(f.row)),
        score=round(rank.clamp(f.score), 4),
        captures=captures,
        message=f.candidate.message,
        family=family if isinstance(family, Mapping) else None,
        kind=f.kind,
        also=tuple(d.meta().id for d in dupes),
    )


def _headline_key(f: Found) -> Any:
    """What makes two full matches the same hint (None: never merged)."""
    if f.kind != "full":
        return None
    if f.candidate.alt is not None:
        return ("debug", f.candidate.alt)
    return (f.candidate.message, f.span)


INNER_MARGIN = 0.01
"""How far a wrapper's hit is put below the hit of the error it wraps."""
MAX_COMPARED = 200
"""Hits compared pairwise by ``_specific_first`` at most (beyond, the order is left as scored)."""


def _specific_first(found: List[Found]) -> List[Found]:
    """A match that contains another's (in the same text, or in a text the other's candidate
    is part of: ``cat: unsupported dtype F16`` and its tail ``unsupported dtype F16``) and
    explains more literal text is the more specific reading: the other is put just below it.
    Not when the other's match lies inside one of its groups (a wrapper: ``_innermost_first``)."""
    hits = [f for f in found if f.kind in ("full", "partial")]
    if len(hits) < 2 or len(hits) > MAX_COMPARED:
        return found
    cap: Dict[int, float] = {}
    for a in hits:
        for n, b in enumerate(hits):
            if a.literal <= b.literal or a.score <= cap.get(n, a.score - 1.0):
                continue
            at = a.candidate.text.find(b.candidate.text)
            if at < 0:
                continue
            start, end = at + b.span[0], at + b.span[1]
            if not (a.span[0] <= start and end <= a.span[1]):
                continue
            matched = b.candidate.text[b.span[0] : b.span[1]]
            if any(matched in value for _, value in a.groups):
                continue
            cap[n] = a.score
    if not cap:
        return found
    lowered = {id(hits[n]): score - INNER_MARGIN for n, score in cap.items()}
    return [f._replace(score=lowered[id(f)]) if id(f) in lowered and f.score > lowered[id(f)] else f for f in found]


def _innermost_first(found: List[Found]) -> List[Found]:
    """A full match whose text holds another candidate's full match outside its own literal
    text (in a group, or before or after the span: ``{cuda} when loading {module_name}``,
    ``Should run when selected by autotune.: <inner>``) is a wrapper around that error: it
    is kept, ranked just below the inner one, so the innermost known error leads. So is the
    message of an ``expect`` whose unwrapped error (a Debug value) matched, fully or in part."""
    inner: Dict[str, float] = {}
    unwrapped = 0.0  # best match of an error an ``expect`` unwrapped (its Debug value)
    for f in found:
        if f.kind == "full":
            text = f.candidate.text
            inner[text] = max(inner.get(text, f.score), f.score)
        if f.kind in ("full", "partial") and f.candidate.form == "debug":
            unwrapped = max(unwrapped, f.score)
    if len(inner) < 2 and not unwrapped:
        return found
    out = []
    for f in found:
        expect = f.candidate.form == "expect" or (f.kind == "full" and f.candidate.text[f.span[1] :].startswith(": "))
        if expect and unwrapped and f.score >= unwrapped - INNER_MARGIN:
            # ``expect("msg")`` prints msg, ``: `` and the error it unwrapped: that error leads
            f = f._replace(score=unwrapped - INNER_MARGIN)
        elif f.kind == "full":
            text = f.candidate.text
            start, end = f.span
            outside = [value for _, value in f.groups] + [text[:start], text[end:]]
            best = max((score for t, score in inner.items() if t != text and any(t in part for part in outside)), default=None)
            if best is not None and f.score >= best - INNER_MARGIN:
                f = f._replace(score=best - INNER_MARGIN)
        out.append(f)
    return out
