"""``lookup()`` / ``explain()``: extract → normalize → index → match → rank.

Owns the dataset singleton, loaded once per process on first use (thread-safe): the
shipped index (no record parsed, no pydantic) plus any user dataset (validated by
``data.py`` and indexed in memory, replacing shipped records with the same id).
Never raises into the caller unless ``ERRHINT_DEBUG`` is set.
"""

from __future__ import annotations

import _thread  # its locks without importing threading (~0.7 ms)
import time
from collections.abc import Mapping

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~2.5 ms
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from errhint._fieldtuple import FieldTuple
from errhint import config, extract, index, normalize, rank
from errhint.index import LoadedIndex
from errhint.match import Match, aliases
from errhint.view import RecordView

_lock = _thread.allocate_lock()
_dataset: Optional["Dataset"] = None

class Dataset:
    """The loaded indexes plus lazily loaded families and installed-binding labels."""

    def __init__(
        self,
        indexes: Sequence[LoadedIndex],
        families: Optional[Mapping[str, Any]] = None,
        user: Sequence[bool] = (),
    ) -> None:
        self.indexes = list(indexes)
        self.user = list(user) or [False] * len(self.indexes)
        """Per index: True for datasets the user added (ERRHINT_DATA, paths, entry points)."""
        self._families = families
        self._family: Dict[str, Optional[Mapping[str, Any]]] = {}
        self._labels: Optional[Dict[str, str]] = None
        self._lock = _thread.allocate_lock()

    def templates(self, name: str) -> List[index.VariantInfo]:
        out: List[index.VariantInfo] = []
        for ix in self.indexes:
            out.extend(ix.variants(name))
        return out

    def family(self, tag: str) -> Optional[Mapping[str, Any]]:
        """The family of ``tag``: from the catalogue when one was given or loaded, else the
        shipped catalogue's entry alone (a hint needs one; cached)."""
        if self._families is not None:
            found = self._families.get(tag)
            return found if isinstance(found, Mapping) else None
        if tag not in self._family:
            try:
                from errhint import data

                self._family[tag] = data.shipped_family(tag)
            except Exception:
                self._family[tag] = None
        return self._family[tag]

    def families(self) -> Mapping[str, Any]:
        if self._families is None:
            with self._lock:
                if self._families is None:
                    try:
                        from errhint import data

                        self._families = data.shipped_families()
                    except Exception:
                        self._families = {}
        return self._families

    def labels(self) -> Dict[str, str]:
        if self._labels is None:
            from errhint import distinfo

            def labels_of(repo: str) -> List[str]:
                found = set()
                for ix in self.indexes:
                    found.update(ix.labels(repo))
                return sorted(found)

            self._labels = rank.installed_labels(labels_of, distinfo.version)
        return self._labels


def load(paths: Sequence[str] = ()) -> Dataset:
    """Build the dataset from the shipped index and extra sources (``data.py``)."""
    from errhint import data

    extra = data.extra_records(paths)
    indexes: List[LoadedIndex] = []
    user: List[bool] = []
    replaced: FrozenSet[str] = frozenset()
    if extra:
        by_id: Dict[str, Mapping[str, Any]] = {}
        for rec in extra:
            by_id[str(rec.get("id"))] = rec  # a later source replaces an earlier one
        indexes.append(LoadedIndex(index.build_index(list(by_id.values()))))
        user.append(True)
        replaced = frozenset(by_id)
    shipped = data.shipped_index()
    if shipped is not None:
        indexes.append(LoadedIndex(shipped, reader=data.read_shipped_line, exclude_ids=replaced))
        user.append(False)
    return Dataset(indexes, user=user)


def dataset() -> Dataset:
    """The loaded dataset (loaded on first use).

    Raises ``errhint.DatasetError`` when a source cannot be loaded (a malformed user file
    names its file, line and field). A failed load is not remembered: once the file is
    fixed, the next call loads it.
    """
    global _dataset
    ds = _dataset
    if ds is None:
        with _lock:
            if _dataset is None:
                _dataset = _load_or_raise(config.current().paths)
            ds = _dataset
    return ds


def _load_or_raise(paths: Sequence[str]) -> Dataset:
    from errhint.data import DatasetError

    try:
        return load(paths)
    except DatasetError:
        raise
    except Exception as exc:
        raise DatasetError(f"cannot load the dataset: {type(exc).__name__}: {exc}") from exc


def use(ds: Optional[Dataset]) -> None:
    """Install a prepared dataset (tests, benchmarks); None forgets it like ``reset``."""
    global _dataset
    with _lock:
        _dataset = ds


def reset() -> None:
    """Forget the loaded dataset; the next lookup loads it again."""
    use(None)


# --------------------------------------------------------------------------- matching


class _Found(FieldTuple):
    __slots__ = ()

    def __new__(
        cls,
        score: float,
        ix: int,
        row: int,
        candidate: normalize.Candidate,
        groups: Tuple[Tuple[str, str], ...],
        kind: str,
        span: Tuple[int, int] = (0, 0),
    ) -> "_Found":
        return tuple.__new__(cls, (score, ix, row, candidate, groups, kind, span))

    score: float
    """Unclamped (``rank.raw_score``), so that hits clamped to 1.0 keep their order."""
    ix: int
    row: int
    candidate: normalize.Candidate
    groups: Tuple[Tuple[str, str], ...]
    kind: str
    span: Tuple[int, int]  # default (0, 0)


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
    literal: Optional[int] = None, meta: Optional[index.RowMeta] = None,
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
    return rank.BINDING_REPOS - likely if likely else frozenset()


def _templates_for(ds: Dataset, excluded: FrozenSet[str]) -> normalize.Templates:
    """Variant templates usable for this error: another binding's enums are left out.

    burn and candle both have variants called ``Io`` or ``InvalidHeader``; rebuilding a candle
    Debug form with burn's template would invent a burn message.
    """
    if not excluded:
        return ds.templates

    def templates(name: str) -> List[index.VariantInfo]:
        return [info for info in ds.templates(name) if info.repo not in excluded]

    return templates


def _groups(m: Any) -> Tuple[Tuple[Tuple[str, str], ...], bool]:
    """The match's named groups that took a value, and whether one cut a value's brackets."""
    groups = tuple(item for item in m.groupdict().items() if item[1] is not None)
    balanced = index.balanced_value
    for _, value in groups:
        if not balanced(value):
            return groups, True
    return groups, False


def _search(pattern: str, text: str) -> Tuple[Any, Tuple[Tuple[str, str], ...], bool]:
    """``pattern`` searched in ``text`` (match, its groups, unbalanced?); retried with
    bracket-aware groups when a lazy group cut a Debug value such as ``[2, 3]`` at its inner
    separator. Groups are read once here (the caller needs them too)."""
    m = index.search(pattern, text)
    if m is None:
        return None, (), False
    groups, unbalanced = _groups(m)
    if unbalanced:
        better = index.search(index.bracket_aware(pattern), text)
        if better is not None:
            return (better,) + _groups(better)
    return m, groups, unbalanced


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


def _match_items(
    ds: Dataset, items: Iterable[extract.Item], evidence: rank.Evidence, until: Optional[float] = None,
) -> List[_Found]:
    """Hits for every candidate of every item; ``until`` (a ``perf_counter`` time) stops
    taking new items once passed (the first item is always taken)."""
    found: List[_Found] = []
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
            tokens = index.text_tokens(cand.text)
            matched = False
            searched: Dict[str, Tuple[Any, Tuple[Tuple[str, str], ...], bool]] = {}  # one search per pattern text
            for n, ix in enumerate(ds.indexes):
                for i in ix.prefiltered(cand.text, tokens):
                    meta = ix.meta(i)
                    if meta.repo in excluded:
                        continue  # another binding's record: not this error's, at any score
                    pattern = meta.pattern
                    result = searched.get(pattern)
                    if result is None:
                        result = searched[pattern] = _search(pattern, cand.text)
                    m, groups, unbalanced = result
                    if m is None:
                        continue
                    matched = True
                    literal = _literal_covered(m)
                    kind, coverage = _coverage(cand.text, m, literal, meta.site_kind)
                    if kind == "full" and unbalanced:
                        # only matches by cutting a value inside its brackets: the pattern
                        # explains its literal text, not the message
                        kind, coverage = "partial", min(1.0, literal / (len(cand.text.strip()) or 1))
                    if kind == "full" and cand.alt is not None:
                        taken[cand.alt] = max(taken.get(cand.alt, 0.0), cand.weight)
                    hit = _hit(ix, i, cand, item, kind, coverage, literal, meta)
                    found.append(_Found(rank.raw_score(hit, evidence), n, i, cand, groups, kind, m.span()))
            if cand.variant and not matched:
                # No pattern took the (rebuilt) message: records of the same variant are what is
                # left; weak when a template was known (the message is another site's), else the
                # variant name is all there is.
                kind = "variant-mismatch" if templates(cand.variant) else "variant"
                for n, ix in enumerate(ds.indexes):
                    for i in ix.variant_rows(cand.variant):
                        if ix.meta(i).repo not in excluded and _fields_agree(ix, i, cand):
                            hit = _hit(ix, i, cand, item, kind, 0.0)
                            found.append(_Found(rank.raw_score(hit, evidence), n, i, cand, (), "variant"))
    return found


def _captures(ds: Dataset, f: _Found) -> Dict[str, str]:
    """The candidate's known values, overridden by the pattern's groups, plus readable aliases."""
    groups = dict(f.groups)
    captures: Dict[str, str] = {k: v for k, v in f.candidate.captures.items() if k not in groups}
    captures.update(groups)
    for alias, value in aliases(ds.indexes[f.ix].pattern(f.row), groups).items():
        captures.setdefault(alias, value)
    return captures


def _to_match(ds: Dataset, f: _Found, dupes: Sequence[_Found] = ()) -> Match:
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


def _rank(ds: Dataset, found: List[_Found], *, limit: int, min_score: float, repos: Optional[Sequence[str]]) -> List[Match]:
    best: Dict[str, _Found] = {}
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
    by_pattern: Dict[str, _Found] = {}
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
    kept: List[_Found] = []
    dupes: Dict[int, List[_Found]] = {}
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


def _headline_key(f: _Found) -> Any:
    """What makes two full matches the same hint (None: never merged)."""
    if f.kind != "full":
        return None
    if f.candidate.alt is not None:
        return ("debug", f.candidate.alt)
    return (f.candidate.message, f.span)


LOOKUP_DEADLINE = 0.2
"""Seconds after which ``lookup`` takes no new text of the exception graph: a group of 64
huge Debug messages must not hold an exception hook for seconds (the texts already matched
still give their hints)."""


def _run(
    extraction: extract.Extraction, limit: Optional[int], min_score: Optional[float],
    repos: Optional[Sequence[str]], deadline: Optional[float],
) -> List[Match]:
    opts = config.merged(limit=limit, min_score=min_score, repos=repos)
    ds = dataset()
    if not ds.indexes or not extraction.items:
        return []
    evidence = rank.Evidence(modules=extraction.modules, loaded=rank.loaded_bindings(), labels=ds.labels())
    until = None if deadline is None else time.perf_counter() + deadline
    with index.RegexBudget():  # hostile user patterns cannot add up over many texts
        found = _match_items(ds, extraction.items, evidence, until)
    return _rank(ds, found, limit=opts.limit, min_score=opts.min_score, repos=opts.repos)


def _guarded(fn: Any, *args: Any) -> List[Match]:
    try:
        return fn(*args)
    except Exception:
        if config.debug():
            raise
        return []


def lookup(
    exc: BaseException,
    *,
    limit: Optional[int] = None,
    min_score: Optional[float] = None,
    repos: Optional[Sequence[str]] = None,
) -> List[Match]:
    """Records that explain ``exc`` (its whole cause/context/group graph), best first.

    Empty when nothing is a credible match. Defaults come from ``errhint.config``.
    Raises ``errhint.DatasetError`` only when the dataset cannot be loaded (a malformed
    user dataset must not be silently ignored); every other failure gives [].
    """
    dataset()

    def run() -> List[Match]:
        return _run(extract.from_exception(exc), limit, min_score, repos, LOOKUP_DEADLINE)

    return _guarded(run)


def explain(
    text: str,
    *,
    exc_type: Optional[str] = None,
    limit: Optional[int] = None,
    min_score: Optional[float] = None,
    repos: Optional[Sequence[str]] = None,
) -> List[Match]:
    """Like ``lookup`` for raw text: one message or a whole pasted traceback (no time bound
    over its texts: a user who pastes a big log waits for every hint)."""
    dataset()

    def run() -> List[Match]:
        return _run(extract.from_text(str(text), exc_type), limit, min_score, repos, None)

    return _guarded(run)
