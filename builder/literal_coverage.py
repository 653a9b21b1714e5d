"""Coverage counted apart from the miner: the share of each release's literal error texts
(``literals.py``) that a shipped record recognises, and the build's 95% gate on it.

A text is instantiated with the builder's example values (``template.synthesize``). It is
*matched* when

* a shipped pattern of its repository matches the example anywhere in it (``PlainSearch``:
  the longest pattern first, each after a cheap test of the literal text it requires), or
  matches the Debug form ``Variant("example")`` of a literal that is a named variant's payload;
* or a record made from a site in the literal's own file (its ``filePath`` or one of its
  ``raisedAt`` places) carries the literal whole: at the start or after a space, quote,
  backtick or parenthesis, and at the end or before one of those or punctuation. That is how
  a wrapping Display prints its payload (burn's ``Parsing error: `{0}``` around ``Invalid class
  ID``, candle's ``npy/npz error {0}``), and how a struct variant's Debug form prints a string
  field (``TypeMismatch { expected: "Tensor (weight)", .. }``).

Texts with fewer than ``MIN_LITERAL_CHARS`` literal characters are counted apart (the build
ships no pattern that short) and are not in the share's denominator.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import regex

from errhint import literals as required

from builder import deps as deps_mod
from builder.literals import Literal
from builder.merge import MIN_LITERAL_CHARS
from builder.template import parse_format, synthesize

MIN_SHARE = 0.95
"""The build fails when a release's share is below this."""


@dataclass
class LiteralRow:
    repo: str
    label: str
    texts: int = 0
    """Distinct literal texts with at least ``MIN_LITERAL_CHARS`` literal characters."""
    short: int = 0
    matched: int = 0
    missed: List[Literal] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.matched / self.texts if self.texts else 1.0


class PlainSearch:
    """The longest shipped pattern that matches anywhere in a text (what a plain search of
    the dataset finds)."""

    def __init__(self, records: Iterable[dict]) -> None:
        self.rows = []
        for rec in records:
            pattern = rec["messagePattern"]
            try:
                compiled = regex.compile(pattern, regex.DOTALL)
            except regex.error:
                continue
            self.rows.append((len(pattern), rec["id"], compiled, required.required_literals(pattern)))
        self.rows.sort(key=lambda row: (-row[0], row[1]))

    def top(self, text: str) -> Optional[str]:
        """The id of the longest pattern that matches ``text``, or None."""
        for _, rid, compiled, needed in self.rows:
            if all(part in text for part in needed) and compiled.search(text, timeout=0.05) is not None:
                return rid
        return None


_HOLE = regex.compile(r"\{\w*(?::[^{}]*)?\}")
"""A format placeholder (``{}``, ``{m}``, ``{0:?}``, ``{lhs:?}``), not a Debug struct's braces."""


def carried(message: str, literal: str) -> bool:
    """Whether template ``message`` prints ``literal`` as a wrapper or a Debug field does
    (placeholders compared as holes: ``{m:?}`` and ``{k:?}`` are the same text)."""
    message, literal = _HOLE.sub("{}", message), _HOLE.sub("{}", literal)
    if literal not in message:
        return False
    bounded = regex.compile(r"(?:^|[\s\"`(])" + regex.escape(literal) + r"(?:$|[\s\"`),:;.])")
    return bounded.search(message) is not None


class RepoCheck:
    """Everything shipped for one repository, asked text by text."""

    def __init__(self, records: Sequence[dict]) -> None:
        self.search = PlainSearch(records)
        self.messages_by_file: Dict[str, List[str]] = defaultdict(list)
        for rec in records:
            files = {rec.get("filePath")} | {str(r.get("file")) for r in rec.get("raisedAt") or ()}
            for path in files - {None}:
                self.messages_by_file[str(path)].append(str(rec.get("errorMessage") or ""))

    def matches(self, item: Literal) -> bool:
        """Whether a pattern of the repository matches the text, or a record made from a site
        in the text's own file prints it (``carried``)."""
        example = synthesize(parse_format(item.text))
        if self.search.top(example) is not None:
            return True
        if item.variant and self.search.top(f'{item.variant}("{example}")') is not None:
            return True
        return any(carried(message, item.text) for message in self.messages_by_file.get(item.path, ()))


def measure_release(repo: str, label: str, found: Sequence[Literal], check: RepoCheck) -> LiteralRow:
    """The row of one release: its distinct texts, and which of them ``check`` recognises."""
    row = LiteralRow(repo, label)
    seen = set()
    for item in found:
        if item.text in seen:
            continue
        seen.add(item.text)
        if parse_format(item.text).literal_chars() < MIN_LITERAL_CHARS:
            row.short += 1
            continue
        row.texts += 1
        if check.matches(item):
            row.matched += 1
        else:
            row.missed.append(item)
    return row


def checks_by_repo(records: Iterable[dict], same_text_as: Optional[Dict[str, str]] = None) -> Dict[str, RepoCheck]:
    """One ``RepoCheck`` per repository of ``records`` (shipped records and seeds alike).
    ``same_text_as``: repository → the repository whose records carry the texts it took over
    (burn-onnx's onnx-ir texts ship once, under burn); its check asks both."""
    by_repo: Dict[str, List[dict]] = defaultdict(list)
    for rec in records:
        by_repo[rec["repo"]].append(rec)
    for repo, home in (same_text_as or {}).items():
        by_repo[repo] = by_repo[repo] + by_repo[home]
    return {repo: RepoCheck(recs) for repo, recs in by_repo.items()}


def measure(results: Sequence[Any], records: Iterable[dict], deps: Optional[Any] = None) -> List[LiteralRow]:
    """One row per scanned release (``SnapshotResult``s, in order) for ``records`` (shipped
    records and seeds). ``deps`` (``builder.deps.DependencyList``): a dependency release with a
    selection rule counts only the texts its rule keeps, as the miner does, and a repository
    that took code over from another is checked against both (``sameTextAs``)."""
    checks = checks_by_repo(records, deps.same_text_as if deps is not None else None)
    empty = RepoCheck([])
    rows = []
    for res in results:
        repo, label = res.source.repo, res.source.label
        found = res.literals
        rule = deps.select.get((repo, label)) if deps is not None else None
        if rule is not None:
            found = [item for item in found if deps_mod.LITERAL_SELECT_RULES[rule](item)]
        rows.append(measure_release(repo, label, found, checks.get(repo, empty)))
    return rows


def low_rows(rows: Sequence[LiteralRow]) -> List[str]:
    """``repo label: share`` of every release below ``MIN_SHARE``."""
    return [f"{r.repo} {r.label}: {r.share:.1%}" for r in rows if r.share < MIN_SHARE]


def render(rows: Sequence[LiteralRow]) -> str:
    """Markdown: the share per release, then every text no record recognises (once per repository)."""
    out = [
        "\n## Literal error texts, counted apart from the miner\n",
        "`builder/literals.py` lists, by plain pattern search, every string literal where error text "
        "is written (`#[error]`, `bail!`/`panic!`/`ensure!`/`assert!` messages, `.expect`, `format!` "
        "or `.into()` inside `Err(..)`/`Error::Variant(..)`). A text is *matched* when a shipped "
        "pattern of its repository matches it (instantiated with example values) or a record made "
        "from a site in the same file prints it whole (as a wrapper's payload or a Debug string "
        "field). Texts with fewer than "
        f"{MIN_LITERAL_CHARS} literal characters are counted apart. The build fails below "
        f"{MIN_SHARE:.0%} for any release.\n",
        "| repo | version | texts | short | matched | share |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(f"| {r.repo} | {r.label} | {r.texts} | {r.short} | {r.matched} | {r.share:.1%} |")
    missed: Dict[Tuple[str, str], List[str]] = defaultdict(list)
    where: Dict[Tuple[str, str], Literal] = {}
    for r in rows:
        for item in r.missed:
            missed[(r.repo, item.text)].append(r.label)
            where[(r.repo, item.text)] = item
    if missed:
        out.append("\n### Texts no record recognises\n")
        out.append("Each once, with the releases it is in and its place in the newest of them.\n")
        for (repo, text), labels in sorted(missed.items()):
            item = where[(repo, text)]
            shown = text if len(text) <= 100 else text[:99] + "…"
            span = labels[0] if len(labels) == 1 else f"{labels[0]} … {labels[-1]} ({len(labels)} releases)"
            out.append(f"- {repo} {span}: `{item.path}:{item.line}` ({item.kind}) {shown!r}")
    return "\n".join(out) + "\n"
