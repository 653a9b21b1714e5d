"""The assertions every real-binding case goes through, in one place.

A case passes when the trigger raised the exception type it claims, the RUST_BACKTRACE value
showed (or did not show) candle's ``WithBacktrace`` wrapper as the site dictates, and
``errhint.lookup`` put the right record first: same repository, the site's template (either
as the record's own message or, for an error-enum variant, as the Display template of that
variant), the expected values captured, and a clean message without backtrace noise.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List

from _site import Site

_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
NOISE = ("WithBacktrace", "Backtrace [", "backtrace:", "stack backtrace", "note: run with `RUST_BACKTRACE")


def describe(result: Dict[str, Any]) -> str:
    """A short account of what lookup returned, for failure messages."""
    lines = [f"raised {result.get('exc_type')}: {result.get('text', '')[:300]!r}"]
    if "lookup_error" in result:
        lines.append(f"lookup error: {result['lookup_error']}")
    for i, m in enumerate(result.get("matches", [])):
        rec = m["record"]
        lines.append(
            f"  #{i + 1} score={m['score']:.2f} repo={rec['repo']} id={rec['id']} "
            f"template={rec['error_message']!r} file={rec['file_path']} captures={m['captures']} "
            f"message={m['message'][:160]!r}"
        )
    return "\n".join(lines)


def normalized(template: str) -> str:
    """A template with every placeholder written ``{}``: names are the builder's convention
    (``{}`` may become ``{py_indexer}``, a Python ``{type(self)}`` becomes ``{self_type}``),
    the literal text is the fact about the site."""
    return _PLACEHOLDER.sub("{}", template)


def template_matches(case: Site, record: Dict[str, Any]) -> bool:
    """The record is the case's site: same template, or the same error-enum variant.

    For a variant the record may carry the Display template the case names, or be the
    record of a revision where that variant had no Display of its own (safetensors 0.4.x
    prints Debug as Display, so its message is the variant name).
    """
    if normalized(record.get("error_message") or "") == normalized(case.template):
        return True
    variant = record.get("variant") or {}
    if not case.variant or variant.get("name") != case.variant:
        return False
    display = variant.get("display")
    return display is None or normalized(display) == normalized(case.template)


def missing_captures(case: Site, match: Dict[str, Any]) -> List[str]:
    """Expected values neither captured (under any name) nor fixed as literal text in the record."""
    captured = set((match.get("captures") or {}).values())
    literal = _PLACEHOLDER.sub("\0", match["record"].get("error_message") or "")
    return [
        f"{name}={value!r}"
        for name, value in case.captures.items()
        if value not in captured and not re.search(rf"(?<!\w){re.escape(value)}(?!\w)", literal)
    ]


def check_raised(case: Site, result: Dict[str, Any], backtrace: str) -> None:
    assert result.get("raised"), f"{case.id}: the trigger did not raise"
    assert result["exc_type"] == case.exc_type, f"{case.id}: {describe(result)}"
    text = result["text"]
    if backtrace == "0":
        assert "WithBacktrace" not in text, f"{case.id}: RUST_BACKTRACE=0 still wrapped: {text[:200]!r}"
    elif case.wrapped is not None:
        assert text.startswith("WithBacktrace {") == case.wrapped, (
            f"{case.id}: RUST_BACKTRACE=1, expected wrapped={case.wrapped}: {text[:200]!r}"
        )


def check_top_match(case: Site, result: Dict[str, Any]) -> None:
    assert "lookup_error" not in result, f"{case.id}: {result['lookup_error']}"
    matches = result.get("matches") or []
    assert matches, f"{case.id}: lookup returned no match\n{describe(result)}"
    top = matches[0]
    record = top["record"]
    assert record["repo"] == case.repo, f"{case.id}: wrong repository\n{describe(result)}"
    assert template_matches(case, record), f"{case.id}: expected {case.template!r}\n{describe(result)}"
    missing = missing_captures(case, top)
    assert not missing, f"{case.id}: captures missing {missing}\n{describe(result)}"
    message = top["message"]
    noise = [n for n in NOISE if n in message]
    assert not noise, f"{case.id}: message is not clean ({noise}): {message[:300]!r}"
    if case.display is not None:
        assert message == case.display, f"{case.id}: message {message!r} != {case.display!r}"


def check_case(case: Site, result: Dict[str, Any], backtrace: str) -> None:
    check_raised(case, result, backtrace)
    check_top_match(case, result)
