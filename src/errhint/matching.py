"""Matching: every candidate text of an exception against the index rows it selects."""


import re
import time

from typing import Any, Callable, Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from errhint import bindings, extract, floor, normalize, pasted, rank, rustdebug
from errhint.dataset import Dataset
from errhint.displays import Templates
from errhint.keys import text_tokens
from errhint.indexfile import LITERALS
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
    exc_type: str = ""
    """The Python exception type of the item the candidate came from."""
    literal: int = 0
    """The literal text the match covered (``_literal_covered``)."""

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
        item.depth, cand.weight, meta.generic, cand.release_hint,
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
    raw: bool = False, seen_texts: Optional[set] = None,
) -> List[Found]:
    """Hits for every candidate of every item; ``until`` (a ``perf_counter`` time) stops
    taking new items once passed (the first item is always taken). ``raw``: the floor's
    search (``floor``) of the raw texts, without variant-name hits. ``seen_texts``: the
    (text, variant, exception type) keys searched already, filled in (the floor skips what
    the structured pass searched)."""
    found: List[Found] = []
    seen_texts = set() if seen_texts is None else seen_texts
    items_seen = set()
    excluded = _excluded_repos(evidence)
    templates = _templates_for(ds, excluded)
    for n_item, item in enumerate(items):
        if until is not None and n_item and time.perf_counter() > until:
            break
        if (item.text, item.exc_type) in items_seen:
            continue  # its candidates were all seen (a group of 30,000 equal members)
        items_seen.add((item.text, item.exc_type))
        taken: Dict[str, float] = {}  # Debug text -> weight of its reading a pattern fully took
        for cand in (floor.candidates(item) if raw else candidates(item, templates)):
            key = (cand.text.strip(), cand.variant, item.exc_type)
            if key in seen_texts or not cand.text:
                continue
            seen_texts.add(key)
            if cand.alt is not None and taken.get(cand.alt, 0.0) > cand.weight:
                continue  # a weaker rival reading of a Debug value already explained (metal's enum)
            hits = _match_candidate(ds, cand, item, evidence, excluded)
            if cand.alt is not None and any(h.kind == "full" for h in hits):
                taken[cand.alt] = max(taken.get(cand.alt, 0.0), cand.weight)
            if not hits and cand.variant and not raw:
                hits = _variant_hits(ds, cand, item, evidence, excluded, templates)
            found.extend(hits)
    return found


def candidates(item: extract.Item, templates: Templates) -> List[normalize.Candidate]:
    """The item's own candidates, then those of the layers inside its wrapping (``pasted``)
    and inside the messages rebuilt from its Debug values, each weighted by its layer (the
    innermost known error leads). An error code is shown as the Debug form it came in."""
    out: List[normalize.Candidate] = []
    texts = [(item.text, 1.0)] + pasted.layers(item.text)
    for text, w in texts:
        for cand in _read(text, item.exc_type, templates):
            out.append(cand if w == 1.0 else cand._replace(weight=cand.weight * w))
    for cand in list(out):
        if cand.form in ("debug", "msg"):  # a rebuilt message may wrap another (``{cuda} when loading ..``)
            texts.append((cand.text, cand.weight))
            for text, w in pasted.layers(cand.text):
                texts.append((text, w))
                for inner in _read(text, item.exc_type, templates):
                    out.append(inner._replace(weight=inner.weight * w * cand.weight))
    forms = {code: text.strip() for code, text in ((pasted.error_code(t.strip()), t) for t, _ in texts) if code}
    return [c._replace(message=forms[c.text]) if c.text in forms else c for c in out]


def _read(text: str, exc_type: str, templates: Templates) -> List[normalize.Candidate]:
    out = normalize.candidates(text, exc_type=exc_type, templates=templates)
    word = text.strip()
    if out and word.isidentifier() and all(c.variant for c in out):
        # a lone name is a unit variant's Debug form, or a one-word message (``Unsupported``)
        out.append(normalize.Candidate(word, word, out[0].error_type, weight=floor.FLOOR_WEIGHT))
    return out


def _match_candidate(
    ds: Dataset, cand: normalize.Candidate, item: extract.Item, evidence: rank.Evidence, excluded: FrozenSet[str],
) -> List[Found]:
    """The records whose pattern matches ``cand.text`` (each pattern text searched once),
    leaving out records of the ``excluded`` repositories. A candidate is trimmed, so is the
    pattern (``floor.trimmed``: its edge whitespace optional)."""
    tokens = text_tokens(cand.text)
    searched: Dict[str, Tuple[Any, Tuple[Tuple[str, str], ...], bool]] = {}
    out: List[Found] = []
    for ix in ds.indexes:
        for i in ix.prefiltered(cand.text, tokens, loose=True):
            meta = ix.meta(i)
            if meta.repo in excluded:
                continue  # another binding's record: not this error's, at any score
            pattern = floor.trimmed(meta.pattern)
            result = searched.get(pattern)
            if result is None:
                result = searched[pattern] = search_groups(pattern, cand.text)
            m, groups, unbalanced = result
            if m is not None and not _tail_of_another_sentence(cand, m, meta, item.exc_type):
                out.append(_pattern_hit(ix, i, meta, cand, item, evidence, m, groups, unbalanced))
    return out


_ONE_WORD_BEFORE = re.compile(r"(?:[\w.]+: )?[a-z]+ ")
"""One lower-case word and a space, after an exception type's ``Name: `` if there is one."""


def _tail_of_another_sentence(cand: normalize.Candidate, m: Any, meta: RowMeta, exc_type: str) -> bool:
    """Whether match ``m`` reads only the end of a different message, so it is no hint:
    the line is one lower-case word, a space, then the match, itself starting in lower case
    (CPython's ``[ValueError: ]slice step cannot be zero`` is not candle's ``step cannot be zero``); or a
    generic record's one-word match inside the longer message of an exception type that no
    binding raises (the template ``hidden_size`` on a line of a pydantic ``ValidationError``). A message embedded
    in a wrapper (``layer 3 failed: ..``, ``.. because ..``) is not affected."""
    start = m.start()
    line_start = cand.text.rfind("\n", 0, start) + 1
    before = cand.text[line_start:start]
    if _ONE_WORD_BEFORE.fullmatch(before) and cand.text[start:start + 1].islower():
        return True
    word = m.group(0).strip()
    foreign = bool(exc_type) and exc_type.rpartition(".")[2] not in rank.RUST_EXCEPTION_TYPES
    return foreign and bool(meta.generic) and not any(ch.isspace() for ch in word) and word != cand.text.strip()


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
    return Found(rank.raw_score(hit, evidence), ix, i, cand, groups, kind, m.span(), item.exc_type, literal)


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


MAX_APPROXIMATE_ITEMS = 4
"""Texts of one exception graph compared by similarity at most (the first ones: the raised
exception and its nearest causes)."""


def approximate(ds: Dataset, items: Sequence[extract.Item], evidence: rank.Evidence) -> List[Found]:
    """Approximate hits (``similar``) for texts no pattern matched: the nearest templates of
    the repositories the error can come from (none when that is unknown: the exception and
    its frames name no binding, and not exactly one binding is imported; nor for a bare text
    of no exception type when only an import names the binding), scored as ``approximate``
    (below any match)."""
    likely = evidence.likely_repos()
    if not likely:
        return []  # no candidate repository: words alone do not say whose error it is
    excluded = _excluded_repos(evidence)
    templates = _templates_for(ds, excluded)
    strong = bool(evidence.repos())
    found: List[Found] = []
    for item in list(items)[:MAX_APPROXIMATE_ITEMS]:
        for cand in candidates(item, templates):
            if not (strong or item.exc_type or cand.repo_hint):
                continue  # a bare text and an imported binding: too little to call it that binding's
            for text in (cand.text,) + _wrapped_strings(cand.text):
                for ix in ds.indexes:
                    for i, sim in _nearest_rows(ix, text, lambda meta: _may_raise(meta, excluded, likely)):
                        hit = _hit(ix, i, cand, item, "approximate", sim, 0, ix.meta(i))
                        found.append(Found(rank.raw_score(hit, evidence) * sim, ix, i, cand, (), "approximate", (0, 0),
                                           item.exc_type))
    return found


def _wrapped_strings(text: str) -> Tuple[str, ...]:
    """The string fields of ``text`` when it is the Debug form of a variant no template knows
    (a newer release's wrapper around an older message); empty otherwise."""
    if not text[:1].isupper() or ("{" not in text and "(" not in text) or len(text) > 4096:
        return ()
    value = rustdebug.parse(text)
    return rustdebug.strings_in(value) if value is not None and value.kind == "variant" else ()


def _may_raise(meta: RowMeta, excluded: FrozenSet[str], likely: FrozenSet[str]) -> bool:
    """Whether the row's repository, or a release that pulls it in, is one the error can come from."""
    owners = {meta.repo} | {p.split("@", 1)[0] for p in meta.pulled_in_by}
    return meta.repo not in excluded and bool(owners & likely)


def _nearest_rows(ix: LoadedIndex, text: str, wanted: Callable[[RowMeta], bool]) -> List[Tuple[int, float]]:
    """The rows of ``ix`` nearest to ``text`` (``similar``: as a whole line first, else by its
    words) among those ``wanted`` accepts; only their records are read."""
    from errhint import similar

    def template(i: int) -> str:
        return (ix.record(i).get("errorMessage") or "") if wanted(ix.meta(i)) else ""

    table = similar.table(ix, lambda i: ix.row(i)[LITERALS])
    near = table.nearest_line(text, template) or table.nearest(text, lambda i: similar.template_words(template(i)))
    return [(i, sim) for i, sim in near if wanted(ix.meta(i))]
