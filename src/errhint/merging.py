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
