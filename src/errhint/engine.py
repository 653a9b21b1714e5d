"""``lookup()`` / ``explain()``: extract → normalize → index → match → rank.

Never raises into the caller unless ``ERRHINT_DEBUG`` is set.
"""

from __future__ import annotations

import functools
import time

from typing import Any, Callable, List, Optional, Sequence

from errhint import advice, bindings, config, extract, floor, rank
from errhint.dataset import Dataset, dataset, load, reset, use  # noqa: F401 - the engine's dataset controls
from errhint.match import Match
from errhint.matching import approximate, match_items
from errhint.merging import merge
from errhint.regexrun import RegexBudget


LOOKUP_DEADLINE = 0.2
"""Seconds after which ``lookup`` takes no new text of the exception graph: a group of 64
huge Debug messages must not hold an exception hook for seconds (the texts already matched
still give their hints)."""


def _run(
    extraction: extract.Extraction, limit: Optional[int], min_score: Optional[float],
    repos: Optional[Sequence[str]], deadline: Optional[float],
    keep: Callable[[List[Match]], List[Match]] = list,
    admit: Callable[[Match], bool] = lambda m: advice.admitted(m, lambda: None),
) -> List[Match]:
    """The matches of ``extraction``'s texts: the structured pass, and when ``keep`` (the
    filter of matches unrelated to the error) leaves none of its matches, the floor.
    ``admit`` decides on records that are ``onlyVia`` a binding call (by default: never; a text
    has no call), in both passes."""
    opts = config.merged(limit=limit, min_score=min_score, repos=repos)
    ds = dataset()
    if not ds.indexes or not extraction.items:
        return []
    evidence = rank.Evidence(modules=extraction.modules, loaded=bindings.loaded(), labels=ds.labels())
    until = None if deadline is None else time.perf_counter() + deadline
    with RegexBudget():  # hostile user patterns cannot add up over many texts
        seen: set = set()
        found = match_items(ds, extraction.items, evidence, until, seen_texts=seen)
        matches = [m for m in keep(merge(ds, found, limit=opts.limit, min_score=opts.min_score, repos=opts.repos))
                   if admit(m)]
        if matches:
            return matches
        # the floor (``floor``): what a plain search of the patterns finds, whatever its score;
        # then the nearest template by its words (``similar``), marked approximate
        items = [item for item in extraction.items if floor.eligible(item.exc_type)]
        found = [f for f in found if f.kind != "variant" and floor.eligible(f.exc_type)]
        found += match_items(ds, items, evidence, until, raw=True, seen_texts=seen)
        if not found:
            found = approximate(ds, items, evidence)
    return [m for m in merge(ds, found, limit=opts.limit, min_score=floor.threshold(opts.min_score), repos=opts.repos)
            if admit(m)]


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
    Raises ``errhint.DatasetError`` only when the dataset cannot be loaded at all (a bad
    line or path of a user dataset is not that: ``errhint.userdata`` warns on stderr and
    skips it); every other failure gives [].
    """
    dataset()

    def run() -> List[Match]:
        # the failing statement of the user's code: read once, and only when something matched
        site = functools.lru_cache(maxsize=None)(lambda: advice.call_site(exc))
        matches = _run(extract.from_exception(exc), limit, min_score, repos, LOOKUP_DEADLINE,
                       keep=lambda found: advice.relevant(found, exc, site() if found else None),
                       admit=lambda m: advice.admitted(m, site))
        return advice.apply(matches, exc=exc, site=site() if matches else None)  # advice, fix code, chosen site

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
        extraction = extract.from_text(str(text), exc_type)
        matches = _run(extraction, limit, min_score, repos, None)
        # a Python traceback (or binding frames) means a Python caller; else the text is Rust's
        python = bool(extraction.modules) or "Traceback (most recent call last)" in str(text)
        return advice.apply(matches, language="python" if python else "rust")

    return _guarded(run)
