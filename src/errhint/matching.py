"""Matching: every candidate text of an exception against the index rows it selects."""


import time

from typing import Any, Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Tuple

from errhint import bindings, extract, normalize, rank
from errhint.dataset import Dataset
from errhint.displays import Templates
from errhint.keys import text_tokens
from errhint.loaded_index import LoadedIndex, RowMeta, VariantInfo
from errhint.regexrun import search_groups


class Found(NamedTuple):
    """One record that matched one candidate text, before merging."""

    score: float
    """Unclamped (``rank.raw_score``), so that hits clamped to 1.0 keep their order."""
    index: LoadedIndex
    row: int
    candidate: normalize.Candidate
    groups: Tuple[Tuple[str, str], ...]
    kind: str
    span: Tuple[int, int] = (0, 0)

    def meta(self) -> RowMeta:
        """What the index knows about the matched record."""
        return self.index.meta(self.row)


def _literal_covered(m: Any) -> int:
    """The text a match covered outside every capturing group (named or not: an unnamed
    ``(\\w+\\s?)*`` explains nothing); overlapping group spans are counted once."""
    start, end = m.span()
    covered, reach = 0, start
    for a, b in sorted(m.regs[1:]):
        if a < 0 or b <= reach:
            continue
        a = max(a, reach)
        covered += b - a
        reach = b
    return (end - start) - covered


def _coverage(text: str, m: Any, literal: int, site_kind: Optional[str]) -> Tuple[str, float]:
    """``full`` when the match spans its lines; else ``partial`` and the share of those lines
    the pattern's literal text explains (a group can swallow anything, so it does not count)."""
    start, end = m.span()
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:start], text[end:line_end]
    if site_kind == "expect" and after.startswith(": "):
        after = ""
    if not any(ch.isalnum() or ch == "_" for ch in before + after):
        return "full", 1.0
    region = len(text[line_start:line_end].strip()) or 1
    return "partial", min(1.0, literal / region)


def _hit(
    ix: LoadedIndex, i: int, cand: normalize.Candidate, item: extract.Item, kind: str, coverage: float,
    literal: Optional[int] = None, meta: Optional[RowMeta] = None,
) -> rank.Hit:
    """``literal``: the literal text the match covered (None for a variant-name-only hit);
    ``meta``: row ``i``'s, when the caller holds it already."""
    if meta is None:
        meta = ix.meta(i)
    if literal is None:
        literal = ix.literal_chars(i)
    # positional: keyword construction of this 18-field tuple costs twice as much, once per hit
    return rank.Hit(
        kind, coverage, literal, meta.repo, meta.error_type, meta.site_kind, meta.error_class,
        meta.versions, meta.pulled_in_by, item.exc_type, cand.error_type, cand.site_kinds,
        cand.repo_hint, bool(cand.variant) and meta.variant == cand.variant, bool(cand.variant),
        item.depth, cand.weight, meta.generic,
    )


def _excluded_repos(evidence: rank.Evidence) -> FrozenSet[str]:
    """Binding repositories this error cannot come from (another binding's, when one is known)."""
    likely = evidence.likely_repos()
    return bindings.REPOS - likely if likely else frozenset()


def _templates_for(ds: Dataset, excluded: FrozenSet[str]) -> Templates:
    """Variant templates usable for this error: another binding's enums are left out.

    burn and candle both have variants called ``Io`` or ``InvalidHeader``; rebuilding a candle
    Debug form with burn's template would invent a burn message.
    """
    if not excluded:
        return ds.templates

    def templates(name: str) -> List[VariantInfo]:
        return [info for info in ds.templates(name) if info.repo not in excluded]

    return templates

def _fields_agree(ix: LoadedIndex, i: int, cand: normalize.Candidate) -> bool:
    """A specialised construction (op fixed to ``scatter-add``) is not the error of a Debug
    value whose field says otherwise (``op: "matmul"``)."""
    if not cand.captures:
        return True
    fixed = ix.construction(i)
    if not fixed:
        return True
    for name, value in fixed.items():
        seen = cand.captures.get(name)
        if seen is not None and seen != value:
            return False
    return True


def match_items(
    ds: Dataset, items: Iterable[extract.Item], evidence: rank.Evidence, until: Optional[float] = None,
) -> List[Found]:
    """Hits for every candidate of every item; ``until`` (a ``perf_counter`` time) stops
    taking new items once passed (the first item is always taken)."""
    found: List[Found] = []
    seen_texts = set()
    excluded = _excluded_repos(evidence)
    templates = _templates_for(ds, excluded)
    for n_item, item in enumerate(items):
        if until is not None and n_item and time.perf_counter() > until:
            break
        taken: Dict[str, float] = {}  # Debug text -> weight of its reading a pattern fully took
        for cand in normalize.candidates(item.text, exc_type=item.exc_type, templates=templates):
            key = (cand.text, cand.variant, item.exc_type)
            if key in seen_texts or not cand.text:
                continue
            seen_texts.add(key)
            if cand.alt is not None and taken.get(cand.alt, 0.0) > cand.weight:
                continue  # a weaker rival reading of a Debug value already explained (metal's enum)
            hits = _match_candidate(ds, cand, item, evidence, excluded)
            if cand.alt is not None and any(h.kind == "full" for h in hits):
                taken[cand.alt] = max(taken.get(cand.alt, 0.0), cand.weight)
            if not hits and cand.variant:
                hits = _variant_hits(ds, cand, item, evidence, excluded, templates)
            found.extend(hits)
    return found


def _match_candidate(
    ds: Dataset, cand: normalize.Candidate, item: extract.Item, evidence: rank.Evidence, excluded: FrozenSet[str],
) -> List[Found]:
    """The records whose pattern matches ``cand.text`` (each pattern text searched once),
    leaving out records of the ``excluded`` repositories."""
    tokens = text_tokens(cand.text)
    searched: Dict[str, Tuple[Any, Tuple[Tuple[str, str], ...], bool]] = {}
    out: List[Found] = []
    for ix in ds.indexes:
        for i in ix.prefiltered(cand.text, tokens):
            meta = ix.meta(i)
            if meta.repo in excluded:
                continue  # another binding's record: not this error's, at any score
            result = searched.get(meta.pattern)
            if result is None:
                result = searched[meta.pattern] = search_groups(meta.pattern, cand.text)
            m, groups, unbalanced = result
            if m is not None:
                out.append(_pattern_hit(ix, i, meta, cand, item, evidence, m, groups, unbalanced))
    return out


def _pattern_hit(
    ix: LoadedIndex, i: int, meta: RowMeta, cand: normalize.Candidate, item: extract.Item,
    evidence: rank.Evidence, m: Any, groups: Tuple[Tuple[str, str], ...], unbalanced: bool,
) -> Found:
    """The hit of row ``i`` whose pattern gave match ``m`` on ``cand.text``."""
    literal = _literal_covered(m)
    kind, coverage = _coverage(cand.text, m, literal, meta.site_kind)
    if kind == "full" and unbalanced:
        # only matches by cutting a value inside its brackets: the pattern explains its
        # literal text, not the message
        kind, coverage = "partial", min(1.0, literal / (len(cand.text.strip()) or 1))
    hit = _hit(ix, i, cand, item, kind, coverage, literal, meta)
    return Found(rank.raw_score(hit, evidence), ix, i, cand, groups, kind, m.span())


def _variant_hits(
    ds: Dataset, cand: normalize.Candidate, item: extract.Item, evidence: rank.Evidence,
    excluded: FrozenSet[str], templates: Templates,
) -> List[Found]:
    """When no pattern took the (rebuilt) message of a Debug value: the records of the same
    variant. Weak when a template was known (the message is another site's), else the
    variant name is all there is."""
    assert cand.variant is not None
    kind = "variant-mismatch" if templates(cand.variant) else "variant"
    out: List[Found] = []
    for ix in ds.indexes:
        for i in ix.variant_rows(cand.variant):
            if ix.meta(i).repo not in excluded and _fields_agree(ix, i, cand):
                hit = _hit(ix, i, cand, item, kind, 0.0)
                out.append(Found(rank.raw_score(hit, evidence), ix, i, cand, (), "variant"))
    return out
