"""Merging hits into the matches a lookup returns: one per record, one per template, one
per headline, ordered and cut by ``min_score`` and ``limit``."""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~2.5 ms
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from errhint import rank
from errhint.dataset import Dataset
from errhint.match import Match, aliases
from errhint.matching import Found
from errhint.view import RecordView


def _captures(ds: Dataset, f: Found) -> Dict[str, str]:
    """The candidate's known values, overridden by the pattern's groups, plus readable aliases."""
    groups = dict(f.groups)
    captures: Dict[str, str] = {k: v for k, v in f.candidate.captures.items() if k not in groups}
    captures.update(groups)
    for alias, value in aliases(ds.indexes[f.ix].pattern(f.row), groups).items():
        captures.setdefault(alias, value)
    return captures


def _to_match(ds: Dataset, f: Found, dupes: Sequence[Found] = ()) -> Match:
    """``dupes``: hits of other records with the same message; their values fill gaps
    (a specialised record has ``matmul`` as literal text, the enum's template captures it)."""
    ix = ds.indexes[f.ix]
    meta = ix.meta(f.row)
    captures = _captures(ds, f)
    for other in dupes:
        for name, value in _captures(ds, other).items():
            captures.setdefault(name, value)
    family = ds.family(meta.background_tag) if meta.background_tag else None
    return Match(
        record=RecordView.from_dict(ix.record(f.row)),
        score=round(rank.clamp(f.score), 4),
        captures=captures,
        message=f.candidate.message,
        family=family if isinstance(family, Mapping) else None,
        kind=f.kind,
        also=tuple(ds.indexes[d.ix].meta(d.row).id for d in dupes),
    )


def merge(ds: Dataset, found: List[Found], *, limit: int, min_score: float, repos: Optional[Sequence[str]]) -> List[Match]:
    best: Dict[str, Found] = {}
    for f in found:
        meta = ds.indexes[f.ix].meta(f.row)
        if repos is not None:
            owners = {meta.repo} | {p.split("@", 1)[0] for p in meta.pulled_in_by}
            if not owners & set(repos):
                continue
        rid = meta.id
        if rid not in best or f.score > best[rid].score:
            best[rid] = f
    # One hit per template: the same template at another site adds nothing, and a template a
    # user dataset also carries is shown with the user's record (at the group's best score).
    by_pattern: Dict[str, Found] = {}
    for f in best.values():
        pattern = ds.indexes[f.ix].pattern(f.row)
        kept = by_pattern.get(pattern)
        if kept is None:
            by_pattern[pattern] = f
            continue
        score = max(kept.score, f.score)
        if ds.user[f.ix] > ds.user[kept.ix] or (ds.user[f.ix] == ds.user[kept.ix] and f.score > kept.score):
            kept = f
        by_pattern[pattern] = kept._replace(score=score)
    ordered = sorted(by_pattern.values(), key=lambda f: (-f.score, ds.indexes[f.ix].meta(f.row).id))
    # One hint per headline: the same text fully matched at several sites (a CPU kernel, the
    # error enum, a CUDA backend), or rival rebuildings of one Debug value, are one error to
    # the user; the others are "also raised at". A partial match, or one of another line,
    # explains another layer (cudarc's code inside candle's "when loading"): a hint of its own.
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
        elif ds.user[f.ix] and not ds.user[kept[n].ix]:
            # the user's own record of this error is the one shown (at the group's best score)
            dupes.setdefault(n, []).append(kept[n])
            kept[n] = f._replace(score=kept[n].score)
        else:
            dupes.setdefault(n, []).append(f)
    return [
        _to_match(ds, f, dupes.get(n, ()))
        for n, f in enumerate(kept)
        if n < limit and rank.clamp(f.score) >= min_score
    ]


def _headline_key(f: Found) -> Any:
    """What makes two full matches the same hint (None: never merged)."""
    if f.kind != "full":
        return None
    if f.candidate.alt is not None:
        return ("debug", f.candidate.alt)
    return (f.candidate.message, f.span)
