"""``Match`` → text: the brief/full hint, optional colour, and the PEP 678 notes.

Record and family text may name captured values as ``{name}``; they are filled in here so a
hint reads "cast the I64 tensor to F32 before matmul" rather than "cast the dtype".  Only
names that are groups of the record's pattern or capture keys are placeholders (family
prose may use any lower-case name, since families are written for many patterns); one
with no value becomes a neutral phrase.  Code fields are filled only from real captures.
"""

from __future__ import annotations

import re

from typing import Any, Dict, Iterable, List, Mapping, Sequence, Tuple

from errhint._lazyre import LazyPattern
from errhint.constants import NAMED_GROUP, NOTE_MARKER, VERBOSITIES

from errhint.match import Match

"""First text of every note errhint attaches; extract.py skips notes that start with it."""

MAX_VALUE = 80
MAX_LINE = 220

_GROUP = re.compile(NAMED_GROUP)
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PROSE_NAME = LazyPattern(r"^[a-z][a-z0-9_]*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)\s+(?=[A-Z(`'\"])")
"""A sentence ends at . ! or ? before a capital, quote or code span, but not after e.g./i.e."""

NEUTRAL = {
    "dtype": "dtype",
    "op": "operation",
    "shape": "tensor's shape",
    "lhs": "left-hand operand",
    "rhs": "right-hand operand",
    "dim": "dimension",
    "dims": "dimensions",
    "device": "device",
    "expected": "expected value",
    "got": "value received",
    "index": "index",
    "size": "size",
    "path": "file",
    "name": "name",
    "rank": "tensor rank",
}
"""Neutral phrases (without article) for placeholders that have no captured value."""

_DETERMINERS = frozenset("the a an this that its your their each every any its".split())

_ANSI = {"bold": "\033[1m", "dim": "\033[2m", "cyan": "\033[36m", "yellow": "\033[33m", "reset": "\033[0m"}


def pattern_groups(pattern: str) -> List[str]:
    return _GROUP.findall(pattern or "")


def neutral(name: str, previous_word: str = "") -> str:
    """A phrase standing in for a missing value; "the" is added unless a determiner precedes."""
    base = re.sub(r"_\d+$", "", name)
    if name in NEUTRAL:
        phrase = NEUTRAL[name]
    elif re.fullmatch(r"(?:f|arg)\d+", base):
        phrase = "value in the message"
    else:
        phrase = base.replace("_", " ")
    return phrase if previous_word.lower() in _DETERMINERS else "the " + phrase


def _value(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= MAX_VALUE else value[: MAX_VALUE - 1] + "…"


def fill(text: str, captures: Mapping[str, str], groups: Iterable[str], *, prose: bool = True) -> str:
    """Replace ``{name}`` placeholders with captured values (or a neutral phrase)."""
    if not text or "{" not in text:
        return text or ""
    known = set(groups) | set(captures)

    def repl(m: "re.Match[str]") -> str:
        name = m.group(1)
        value = captures.get(name)
        if value is not None and str(value).strip():
            return _value(str(value))
        if name in known or (prose and _PROSE_NAME.match(name)):
            if not prose:
                return m.group(0)
            before = re.search(r"(\w+)\W*$", text[: m.start()])
            return neutral(name, before.group(1) if before else "")
        return m.group(0)

    return _PLACEHOLDER.sub(repl, text)


def _one_line(text: str, limit: int = MAX_LINE) -> str:
    """``text`` on one line of at most ``limit`` characters (see :func:`clip`)."""
    return clip(" ".join((text or "").split()), limit)


_REASON_END = (". ", "; ", "! ", "? ")


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, never inside a word.

    The cut falls after a sentence or reason (``. ``, ``; ``) when one ends in the last 40% of the
    room, else at the last space; what is left out is counted: ``… (+212 characters)``.  A text
    without any space in reach (a long path) is cut after its last ``/ , : _ -`` in reach, and
    only a single unbroken token is cut where the room ends.
    """
    if len(text) <= limit:
        return text
    room = max(1, limit - len(f"… (+{len(text)} characters)"))
    head = text[: room + 1]  # one more: a space right after the room is a word end too
    reason = max(head.rfind(sep) for sep in _REASON_END)
    if reason >= room * 0.6:
        cut = reason + 1
    elif head.rfind(" ") > 0:
        cut = head.rfind(" ")
    else:
        cut = max(head.rfind(c, 0, room) + 1 for c in "/,:_-") or room
    kept = text[:cut].rstrip()
    return f"{kept}… (+{len(text) - len(kept)} characters)"


def first_sentence(text: str) -> str:
    text = " ".join((text or "").split())
    return _SENTENCE_END.split(text, 1)[0] if text else ""


def _text(match: "Match", camel: str) -> str:
    value = match.record.get(camel)
    return value if isinstance(value, str) else ""


def _list(value: Any) -> List[str]:
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, str) and v.strip()]
    return []


def written(match: "Match") -> bool:
    """Whether the record's text was written for its template (issue 15).

    The builder marks records nobody has written for with ``curated: false``: their text is
    only what the source states (where, the condition that failed), so no "likely cause"/"fix"
    is shown and no family text stands in for it.  Seeds and user records lack the field.
    """
    return match.record.get("curated") is not False


def hint_parts(match: "Match") -> Dict[str, Any]:
    """The filled pieces of a hint: headline, cause, fix, pointer and the full-text extras.

    Only the record's own text is a cause or a fix; the family adds background and
    prevention tips to written records only (``written``)."""
    rec = match.record
    own = written(match)
    fam: Mapping[str, Any] = (match.family or {}) if own else {}
    caps = dict(match.captures)
    groups = pattern_groups(rec.get("messagePattern") or "")

    def f(text: str, prose: bool = True) -> str:
        return fill(text, caps, groups, prose=prose)

    cause_src = (_text(match, "triggerScenarios") or _text(match, "documentation")) if own else ""
    solutions = [f(s) for s in _python_fixes(match, _list(rec.get("solutions")))] if own else []
    documentation = f(_text(match, "documentation"))
    fam_doc = f(str(fam.get("documentation") or ""))
    tips = [f(t) for t in _list(rec.get("preventionTips"))]
    for t in _list(fam.get("preventionTips")):
        filled = f(t)
        if filled not in tips:
            tips.append(filled)
    example = _text(match, "exampleFix") if own else ""
    url = _url(match)
    return {
        "headline": match.message,
        "repo": rec.repo,
        "written": own,
        "condition": "" if own else f(_text(match, "triggerScenarios")),
        "cause": _advice(match, "advice_cause") or f(first_sentence(cause_src)),
        "fix": _advice(match, "advice_fix") or (solutions[0] if solutions else ""),
        "fixCode": _advice(match, "fix_code"),
        "pointer": f"errhint show {rec.id}" + (f" · {url}" if url else ""),
        "documentation": documentation,
        "familyDocumentation": fam_doc if fam_doc and fam_doc != documentation else "",
        "triggerScenarios": f(cause_src),
        "commonSituations": f(_text(match, "commonSituations") or str(fam.get("commonSituations") or "")) if own else "",
        "solutions": solutions,
        "exampleFix": fill(example, caps, groups, prose=False),
        "preventionTips": tips,
        "familyTitle": str(fam.get("title") or ""),
    }


def _brief_parts(match: "Match") -> Tuple[str, str, str]:
    """Cause, fix and pointer exactly as ``hint_parts`` fills them for a written record, without
    filling the full-text extras a brief note never shows (the per-exception cost of ``guard()``)."""
    rec = match.record
    caps = dict(match.captures)
    groups = pattern_groups(rec.get("messagePattern") or "")
    own = written(match)
    cause_src = (_text(match, "triggerScenarios") or _text(match, "documentation")) if own else ""
    fixes = _python_fixes(match, _list(rec.get("solutions"))) if own else []
    url = _url(match)
    return (
        _advice(match, "advice_cause") or (fill(first_sentence(cause_src), caps, groups) if cause_src else ""),
        fill(fixes[0], caps, groups) if fixes else "",
        f"errhint show {rec.id}" + (f" · {url}" if url else ""),
    )


# --- computed advice (errhint.advice): shown before the record's static text ---------------
def _advice(match: "Match", name: str) -> str:
    value = getattr(match, name, None)
    return value if isinstance(value, str) else ""


_RUST_MARKS = ("::", "?)", ")?", "?;", "(&", "&[", "vec![", "let ")


def _rust_code(text: str) -> bool:
    """A code span of ``text`` is Rust (``t.unsqueeze::<2>()``, ``a.matmul(&b)?``): not shown
    to a Python caller next to a computed Python fix."""
    return any(mark in span for span in re.findall(r"`([^`]+)`", text) for mark in _RUST_MARKS)


def _python_fixes(match: "Match", fixes: List[str]) -> List[str]:
    """``fixes`` as a Python caller sees them: without those written in Rust, which a caller
    of ``candle``/``pyburn`` cannot run (``Match.fix_language`` is ``python`` for them)."""
    if match.fix_language != "python":
        return fixes
    return [fix for fix in fixes if not _rust_code(fix)]


def _url(match: "Match") -> str:
    """The chosen site's link (``Match.github_url``), else the record's."""
    url = getattr(match, "github_url", None) or match.record.get("githubUrl")
    return url or ""


def _code_lines(match: "Match", label: str) -> List[str]:
    code = _advice(match, "fix_code")
    if not code:
        return []
    lines = code.rstrip().splitlines()
    if len(lines) == 1:
        return [f"  {label} {lines[0]}"]
    return [f"  {label}"] + ["    " + ln for ln in lines]
# --- end computed advice ------------------------------------------------------------------


def _paint(text: str, style: str, color: bool) -> str:
    return f"{_ANSI[style]}{text}{_ANSI['reset']}" if color else text


def render_match(match: "Match", verbosity: str = "brief", color: bool = False) -> str:
    """Brief: headline, likely cause, first fix, pointer; with computed advice (``Match.advice_*``)
    the cause and fix are the computed ones, then the fix code (one line, or a label and its
    indented lines) and the record's first fix as ``or:``. Full: everything, the advice first."""
    if verbosity not in VERBOSITIES:
        raise ValueError(f"verbosity must be one of {VERBOSITIES}, not {verbosity!r}")
    head = _one_line(match.message, 160)
    approximate = " · approximate match" if match.kind == "approximate" else ""
    lines = [_paint(f"{head} ({match.record.repo}){approximate}", "bold", color)]
    label = lambda name: _paint(name, "cyan", color)  # noqa: E731
    if verbosity == "brief":
        cause, fix, pointer = _brief_parts(match)
        if not written(match):  # facts only: the condition that failed, no guessed cause or fix
            groups = pattern_groups(match.record.get("messagePattern") or "")
            condition = fill(first_sentence(_text(match, "triggerScenarios")), dict(match.captures), groups)
            if condition:
                lines.append(f"  {label('condition:')} {_one_line(condition)}")
        if cause:
            lines.append(f"  {label('likely cause:')} {_one_line(cause)}")
        computed = _advice(match, "advice_fix")
        if computed:  # the fix computed from the user's values first, the record's after it
            lines.append(f"  {label('fix:')} {_one_line(computed)}")
            lines.extend(_code_lines(match, label("code:")))
            if fix and fix != computed and match.record_fix:  # Rust fixes are already left out for Python
                lines.append(f"  {label('or:')} {_one_line(fix)}")
        elif fix:
            lines.append(f"  {label('fix:')} {_one_line(fix)}")
        lines.append("  " + _paint(pointer, "dim", color))
        return "\n".join(lines)

    p = hint_parts(match)
    if _advice(match, "advice_cause"):  # computed from the user's values: first
        lines.append(f"  {label('from your values:')} {match.advice_cause}")
        if _advice(match, "advice_fix"):
            lines.append(f"  {label('fix:')} {match.advice_fix}")
        lines.extend(_code_lines(match, label("code:")))
    if p["familyTitle"]:
        lines.append(f"  {label('family:')} {p['familyTitle']}")
    for name, key in (("what happened:", "documentation"), ("background:", "familyDocumentation"),
                      ("condition:", "condition"),
                      ("likely cause:", "triggerScenarios" if p["written"] else ""), ("common situations:", "commonSituations")):
        if key and p[key]:
            lines.append(f"  {label(name)} {' '.join(p[key].split())}")
    if p["solutions"]:
        lines.append(f"  {label('solutions:')}")
        lines.extend(f"    {i}. {' '.join(s.split())}" for i, s in enumerate(p["solutions"], 1))
    if p["exampleFix"]:
        lines.append(f"  {label('example fix:')}")
        lines.extend("    " + ln for ln in p["exampleFix"].rstrip().splitlines())
    if p["preventionTips"]:
        lines.append(f"  {label('prevention:')}")
        lines.extend(f"    - {' '.join(t.split())}" for t in p["preventionTips"])
    if match.also:
        lines.append(f"  {label('also raised at:')} " + ", ".join(f"errhint show {i}" for i in match.also))
    lines.append("  " + _paint(p["pointer"], "dim", color))
    return "\n".join(lines)


def render_notes(matches: Sequence["Match"], verbosity: str = "brief") -> List[str]:
    """One PEP 678 note per match; each starts with ``NOTE_MARKER`` on its first line."""
    return [f"{NOTE_MARKER} {render_match(m, verbosity, color=False)}" for m in matches]
