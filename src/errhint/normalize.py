"""Text → candidates: the clean messages a record's pattern is searched in.

What Python shows is the Rust message plus runtime dressing: a panic prefix
(``not implemented: ``), a Rust stderr header, a backtrace (Display or Debug form), candle's
derived-Debug wrappers (``WithBacktrace``/``Context``/``WithPath``/``Msg("..")``), a whole
error variant in Debug form, burn's multi-reason ``Tensor Operation Error`` report, or an
``unwrap()``/``expect()`` tail.  Records' patterns describe the bare message (the builder
records the wrapper kind in ``siteKind`` instead), so this module undoes the dressing and
says what it saw, for ranking.
"""


import re
from types import MappingProxyType
from typing import Dict, FrozenSet, List, Mapping, NamedTuple, Optional, Tuple

from errhint import rustdebug
from errhint._lazyre import LazyPattern
from errhint.bindings import BURN, release_of_location, repo_of_location
from errhint.displays import MAX_VARIANT_DEPTH, Templates, display_of, no_templates, renderings, with_std
from errhint.rustdebug import Value

MAX_INPUT = 64 * 1024
MAX_CANDIDATE = 16 * 1024

_EMPTY: Mapping[str, str] = MappingProxyType({})


class Candidate(NamedTuple):
    """One clean message to match, with what its dressing revealed."""

    text: str
    message: str
    error_type: Optional[str] = None
    """``panic``/``exception``: the errorType a matching record should have (None: unknown)."""
    site_kinds: FrozenSet[str] = frozenset()
    """siteKinds the runtime wrapper implies (``unimplemented`` for ``not implemented: ``)."""
    variant: Optional[str] = None
    """The error-enum variant name when the text was a Debug form."""
    captures: Mapping[str, str] = _EMPTY
    form: str = "display"
    repo_hint: Optional[str] = None
    release_hint: Optional[Tuple[str, Tuple[int, int]]] = None
    """The repository and (major, minor) release of the crate a Rust panic location names."""
    weight: float = 1.0
    alt: Optional[str] = None
    """For a Debug variant rebuilt with one of several templates: the Debug text, shared by
    every rebuilding of that value (they are rival readings of one error, not two errors)."""


# --------------------------------------------------------------------------- dressing

_RUST_PANIC_HEADER = LazyPattern(
    r"^thread '[^'\n]*' panicked at (?:'(?P<old>.*?)', (?P<oldloc>[^\n]*?:\d+:\d+)\s*$|(?P<loc>[^\n]*?:\d+:\d+):\n)",
    re.DOTALL | re.MULTILINE,
)
_BACKTRACE_START = LazyPattern(
    r"\n+(?:stack backtrace:[ \t]*(?:\n|$)|note: run with `RUST_BACKTRACE|note: some details are omitted"
    r"|\s*0: \S[^\n]*\n\s+(?:at |\d+: ))",
    re.IGNORECASE,
)
"""Where a backtrace starts: std's frame list, a panic's ``stack backtrace:``, anyhow's
``Stack backtrace:`` (its ``Caused by:`` lines before it are kept), or the panic notes."""
_PANIC_PREFIXES = (
    ("not yet implemented", "todo"),
    ("not implemented", "unimplemented"),
    ("internal error: entered unreachable code", "unreachable"),
    ("assertion failed", "assert"),
)
_UNWRAP_START = "called `Result::unwrap"
_UNWRAP = LazyPattern(r"^called `Result::unwrap(?:_err)?\(\)` on an `(?:Err|Ok)` value: ", re.DOTALL)
_ASSERT_NEW = LazyPattern(
    r"^assertion `left (?P<op>==|!=) right` failed(?:: (?P<msg>.*?))?\n  left: (?P<left>[^\n]*)\n right: (?P<right>[^\n]*)$",
    re.DOTALL,
)
_ASSERT_OLD = LazyPattern(
    r"^assertion failed: `\(left (?P<op>==|!=) right\)`\n  left: `(?P<left>[^\n]*)`,\n right: `(?P<right>[^\n]*?)`(?:: (?P<msg>.*))?$",
    re.DOTALL,
)
_TENSOR_CHECK = "=== Tensor Operation Error ==="
_TC_OPERATION = LazyPattern(r"\n\s*Operation: '(?P<op>[^'\n]*)'")
_TC_REASON = LazyPattern(r"\n\s{2,}\d+\. ")


def strip_backtrace(text: str) -> str:
    """Cut a Display-form backtrace (std Backtrace, panic ``stack backtrace:``, notes)."""
    if "\n" not in text:
        return text  # every form starts on a new line; a one-line Debug value scans 2 KB for nothing
    m = _BACKTRACE_START.search(text)
    return text[: m.start()] if m else text


def strip_panic_header(text: str) -> Tuple[str, Optional[str], bool]:
    """(message, crate-path location or None, whether a Rust panic header was found)."""
    if not text.startswith("thread '"):  # what the header starts with: most texts compile nothing
        return text, None, False
    m = _RUST_PANIC_HEADER.match(text)
    if not m:
        return text, None, False
    if m.group("old") is not None:
        return m.group("old") + text[m.end() :], m.group("oldloc"), True
    return text[m.end() :], m.group("loc"), True


# --------------------------------------------------------------------------- Debug forms

_WRAPPERS_WITH_INNER = ("WithBacktrace", "WithPath", "Context")

_DEBUG_START = re.compile(r'"|[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*(?:\s*[(\[{]|\s*$)')
"""How a Debug value of interest starts: a string, ``Name(``, ``Name {``, ``Name [`` or a lone name.
Ordinary sentences ("shape mismatch in ...") fail here without being tokenised."""


def parse_debug(text: str) -> Optional[Value]:
    """The Debug value ``text`` consists of, reading only ``inner`` of a ``WithBacktrace``."""
    stripped = text.strip()
    if not _DEBUG_START.match(stripped):
        return None
    if stripped.startswith("WithBacktrace"):
        fields = rustdebug.parse_struct_head(stripped, "WithBacktrace", stop_at=("backtrace",))
        if fields and "inner" in fields:
            return Value("variant", stripped, name="WithBacktrace", shape="struct", fields=tuple(fields.items()))
    return rustdebug.parse(stripped)


def debug_candidates(
    value: Value,
    templates: Templates,
    *,
    error_type: Optional[str],
    captures: Optional[Dict[str, str]] = None,
    depth: int = 0,
    weight: float = 1.0,
    nested: bool = False,
    want: Optional[str] = None,
) -> List[Candidate]:
    """Candidates for a Debug value: peel wrappers, unquote strings, rebuild variants.

    ``nested``: the value is the payload of another error (not a wrapper's ``inner``);
    ``want``: the enum the enclosing field's type names (its templates are tried first)."""
    caps = dict(captures or {})
    if depth > MAX_VARIANT_DEPTH:
        return []
    if value.kind == "str":
        return [_candidate(value.text, error_type=error_type, form="msg", captures=caps, weight=weight)]
    if not value.is_variant:
        return []
    name = value.name if value.kind == "variant" else value.text
    out: List[Candidate] = []
    if value.kind == "variant" and value.shape == "struct" and name in _WRAPPERS_WITH_INNER:
        inner = value.field("inner")
        if inner is not None:
            path = value.field("path")
            if path is not None:
                caps["path"] = display_of(path, templates)
            context = value.field("context")
            out.extend(debug_candidates(inner, templates, error_type=error_type, captures=caps, depth=depth + 1, weight=weight))
            if context is not None and context.kind == "str":
                out.append(_candidate(context.text, error_type=error_type, form="context", captures=caps, weight=weight * 0.9))
            return out
    if name == "WrappedContext" and value.kind == "variant":
        wrapped, context = value.field("wrapped"), value.field("context")
        if wrapped is not None:
            out.extend(debug_candidates(wrapped, templates, error_type=error_type, captures=caps, depth=depth + 1, weight=weight))
        if context is not None and context.kind == "str":
            out.append(_candidate(context.text, error_type=error_type, form="context", captures=caps, weight=weight * 0.9))
        return out
    if name == "Msg" and value.kind == "variant" and len(value.items) == 1 and value.items[0].kind == "str":
        return [_candidate(value.items[0].text, error_type=error_type, form="msg", captures=caps, weight=weight)]

    fields = {("f" + k if k.isdigit() else k): display_of(v, templates) for k, v in value.named_values().items()}
    fields.update(caps)
    found = renderings(value, templates, nested=nested, want=want)
    for n, (text, info) in enumerate(found):
        # another enum's same-named variant is a weaker reading; another release of the same
        # enum is as likely (ranking decides by the installed binding's release)
        same_enum = n == 0 or (info.repo, info.enum) == (found[0][1].repo, found[0][1].enum)
        out.append(
            _candidate(
                text, error_type=error_type, form="debug", variant=name, captures=fields,
                weight=weight if same_enum else weight * 0.9, repo_hint=info.repo or None, alt=value.raw,
            )
        )
    if not found:
        out.append(_candidate(value.raw, message=value.raw, error_type=error_type, form="debug", variant=name, captures=fields, weight=weight))
    wrapper = value.kind == "variant" and value.shape == "tuple" and len(value.items) == 1
    for field, child in value.named_values().items():  # nested errors: SafeTensor(InvalidOffset("w"))
        # A bare name is a nested unit error only as the payload of a wrapper such as
        # SafeTensor(HeaderTooSmall), and only if the dataset knows it; elsewhere it is data
        # (``I64`` is a DType, ``kind: NotFound`` an io::ErrorKind).
        if child.kind == "variant" or (wrapper and child.is_variant and templates(child.text)):
            child_enum = found[0][1].field_enum(field) if found else None
            out.extend(debug_candidates(
                child, templates, error_type=error_type, depth=depth + 1, weight=weight * 0.95, nested=True, want=child_enum,
            ))
    return out


def _candidate(
    text: str,
    *,
    message: Optional[str] = None,
    error_type: Optional[str] = None,
    site_kinds: FrozenSet[str] = frozenset(),
    variant: Optional[str] = None,
    captures: Optional[Mapping[str, str]] = None,
    form: str = "display",
    repo_hint: Optional[str] = None,
    weight: float = 1.0,
    alt: Optional[str] = None,
) -> Candidate:
    text = text.strip()[:MAX_CANDIDATE]
    return Candidate(
        text=text,
        message=(message if message is not None else text).strip()[:MAX_CANDIDATE],
        error_type=error_type,
        site_kinds=site_kinds,
        variant=variant,
        captures=MappingProxyType(dict(captures)) if captures else _EMPTY,
        form=form,
        repo_hint=repo_hint,
        weight=weight,
        alt=alt,
    )


# --------------------------------------------------------------------------- panics


def tensor_check_candidates(text: str) -> List[Candidate]:
    """One candidate per numbered reason of a burn ``Tensor Operation Error`` report."""
    start = text.find(_TENSOR_CHECK)
    body = text[start:]
    m = _TC_OPERATION.search(body)
    op = m.group("op") if m else ""
    reason_at = body.find("Reason:")
    reasons_text = body[reason_at + len("Reason:") :] if reason_at >= 0 else ""
    parts = _TC_REASON.split(reasons_text)
    out = []
    for part in parts[1:]:
        reason = part.strip()
        if not reason:
            continue
        message = f"{op}: {reason}" if op else reason
        out.append(
            _candidate(
                reason,
                message=message,
                error_type="panic",
                site_kinds=frozenset({"tensor_check"}),
                captures={"op": op} if op else None,
                form="tensor_check",
                repo_hint=BURN,
            )
        )
    return out


def _expect_split(text: str, templates: Templates) -> List[Candidate]:
    """``Result::expect(msg)`` prints ``msg: <Debug of the error>``: find that split."""
    pos = 0
    for _ in range(8):
        pos = text.find(": ", pos)
        if pos < 0:
            return []
        tail = text[pos + 2 :]
        value = parse_debug(tail)
        if value is not None and (value.kind == "variant" or value.kind == "str" or value.is_variant):
            head = text[:pos]
            out = [_candidate(head, error_type="panic", site_kinds=frozenset({"expect"}), form="expect")]
            out.extend(debug_candidates(value, templates, error_type="exception", weight=0.95))
            return out
        pos += 2
    return []


def candidates(
    text: str,
    *,
    exc_type: str = "",
    templates: Templates = no_templates,
) -> List[Candidate]:
    """Every clean message hidden in ``text`` (one exception's message)."""
    text = text[:MAX_INPUT]
    templates = with_std(templates)
    is_panic = exc_type.endswith("PanicException")
    text, location, had_header = strip_panic_header(text.strip("\n"))
    if had_header:
        is_panic = True
    text = strip_backtrace(text).strip()
    if not text:
        return []
    error_type: Optional[str] = "panic" if is_panic else ("exception" if exc_type else None)
    hint = repo_of_location(location)
    release = release_of_location(location)

    if _TENSOR_CHECK in text[:200]:
        return tensor_check_candidates(text)

    m = _UNWRAP.match(text) if text.startswith(_UNWRAP_START) else None
    if m:
        value = parse_debug(text[m.end() :])
        if value is not None:
            found = debug_candidates(value, templates, error_type="exception")
            if found:
                return [_with_hint(c, hint, release) for c in found]

    if not is_panic:
        value = parse_debug(text)
        if value is not None and (value.is_variant or value.kind == "str"):
            found = debug_candidates(value, templates, error_type=error_type or "exception")
            if found:
                return found

    if is_panic or error_type is None:
        special = _panic_candidates(text, templates, error_type)
        if special:
            return [_with_hint(c, hint, release) for c in special]
    return [_with_hint(_candidate(text, error_type=error_type), hint, release)]


def _with_hint(c: Candidate, hint: Optional[str], release: Optional[Tuple[str, Tuple[int, int]]] = None) -> Candidate:
    if release is not None and c.release_hint is None:
        c = c._replace(release_hint=release)
    if hint is None or c.repo_hint is not None:
        return c
    return c._replace(repo_hint=hint)


def _panic_candidates(text: str, templates: Templates, error_type: Optional[str]) -> List[Candidate]:
    for rx in (_ASSERT_NEW, _ASSERT_OLD):
        m = rx.match(text)
        if m:
            caps = {"left": m.group("left"), "right": m.group("right")}
            msg = (m.group("msg") or "").strip()
            return [
                _candidate(
                    msg or text,
                    message=msg or text,
                    error_type="panic",
                    site_kinds=frozenset({"assert_eq"}),
                    captures=caps,
                    form="assert_eq",
                )
            ]
    for prefix, kind in _PANIC_PREFIXES:
        if text.startswith(prefix):
            rest = text[len(prefix) :]
            if rest.startswith(": ") and rest[2:].strip():
                return [_candidate(rest[2:], error_type="panic", site_kinds=frozenset({kind}), form="panic")]
            if not rest.strip():
                return [_candidate(text, error_type="panic", site_kinds=frozenset({kind}), form="panic")]
    if text == "explicit panic":
        return [_candidate(text, error_type="panic", site_kinds=frozenset({"panic"}), form="panic")]
    if error_type == "panic" or error_type is None:
        split = _expect_split(text, templates)
        if split:
            return [_candidate(text, error_type=error_type)] + split
    return []
