"""A second, deliberately simple count of the error texts in a source revision.

The miner (``sites``, ``enums``, ``sinks``) understands Rust; this module does not. It lists
the string literals that sit where error text is written, by plain pattern search:

* ``#[error("...")]`` attributes;
* the format string of ``bail!``, ``panic!``, ``unimplemented!``, ``todo!``,
  ``unreachable!`` and ``format_err!``/``anyhow!`` (the first literal of the call), and the
  message of ``ensure!``/``assert!``/``assert_eq!``/``assert_ne!`` (the first literal after
  the condition);
* the argument of ``.expect("...")``;
* ``format!("...")`` and ``"...".into()``/``.to_string()``/``.to_owned()`` inside an
  ``Err(...)`` or an ``Error::Variant(...)`` construction (``Err(Error::Cuda(format!(..).into()))``).

It cannot tell a message from a log line that looks like one, nor follow a literal through
a helper; it is a cross-check of the miner's count, not a replacement. ``coverage`` reports,
per scanned release, the share of these texts that a shipped record's pattern matches
(a text is instantiated with the builder's example values first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Sequence

_STRING = r'"((?:[^"\\]|\\.)*)"'
_RAW = r'r(#*)"(.*?)"\2'

_ATTR = re.compile(r"#\[error\(\s*" + _STRING)
_MACRO_FIRST = re.compile(r"\b(bail|panic|unimplemented|todo|unreachable|format_err|anyhow|eyre)!\s*[(\[{]\s*" + _STRING)
_MACRO_AFTER_COND = re.compile(r"\b(?:ensure|assert|assert_eq|assert_ne)!\s*\(")
_EXPECT = re.compile(r"\.expect\(\s*" + _STRING)
_ERR_OPEN = re.compile(r"\bErr\(|\b(?:[A-Z]\w*)?Error::(?P<variant>[A-Z]\w*)\(")
_IN_ERROR = re.compile(r'format!\(\s*' + _STRING + r'|' + _STRING + r'\s*\.(?:into|to_string|to_owned)\(\)')
_PATTERN_ARM = re.compile(r"\s*\w*\s*\)[\s)]*(?:=>|\||,\s*(?:Ok|Err|Some|None|_)\b)")
"""What follows ``Err(`` in a pattern (``Err(_) =>``, ``(Err(e), Ok(b)) =>``)."""
_NEAR = 240
"""Characters after ``Err(`` / ``Error::X(`` searched for the literal that builds it."""

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


@dataclass(frozen=True)
class Literal:
    path: str
    line: int
    kind: str
    text: str
    """The literal as the program holds it (escapes undone; ``{}`` placeholders kept)."""
    variant: str = ""
    """For ``error_value``: the variant the literal is the payload of (``Cuda``), if named."""
    macro: str = ""
    """For ``macro``: the macro's name (``panic``, ``unreachable``, ``bail``...)."""


def unescape(body: str) -> str:
    """A Rust string literal's body with its escapes undone (``\\u{..}`` and line
    continuations included)."""
    out: List[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "\n":  # a line continuation: the newline and the next line's indentation go
            i += 2
            while i < len(body) and body[i] in " \t":
                i += 1
            continue
        if nxt == "u" and body[i + 2 : i + 3] == "{":
            end = body.find("}", i)
            try:
                out.append(chr(int(body[i + 3 : end], 16)))
            except ValueError:
                out.append(body[i : end + 1])
            i = end + 1
            continue
        out.append(_ESCAPES.get(nxt, "\\" + nxt))
        i += 2
    return "".join(out)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _blank_comments(text: str) -> str:
    """``text`` with ``//`` line comments and test modules blanked (same length:
    positions keep their line)."""
    text = re.sub(r"(?m)^\s*//[^\n]*", lambda m: " " * len(m.group()), text)
    out = text
    for m in _TEST_MOD.finditer(text):
        end = _closing_brace(text, m.end() - 1)
        out = out[: m.start()] + re.sub(r"[^\n]", " ", out[m.start() : end]) + out[end:]
    return out


_TEST_MOD = re.compile(
    r"#\[cfg\((?:test|all\(\s*test\b[^\]]*)\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{"
)
"""A test module: ``#[cfg(test)]`` or ``#[cfg(all(test, ..))]`` before ``mod name {``."""


def _closing_brace(text: str, at: int) -> int:
    """The position after the brace that closes the one at ``at`` (string literals skipped)."""
    depth = 0
    i = at
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def literals_of_file(path: str, text: str) -> Iterator[Literal]:
    """Every literal error text of one Rust file, in file order per kind."""
    code = _blank_comments(text)
    for m in _ATTR.finditer(code):
        yield Literal(path, _line_of(code, m.start()), "error_attr", unescape(m.group(1)))
    for m in _MACRO_FIRST.finditer(code):
        yield Literal(path, _line_of(code, m.start()), "macro", unescape(m.group(2)), macro=m.group(1))
    for m in _MACRO_AFTER_COND.finditer(code):
        found = _after_condition(code, m.end())
        if found is not None:
            yield Literal(path, _line_of(code, m.start()), "assert", unescape(found))
    for m in _EXPECT.finditer(code):
        yield Literal(path, _line_of(code, m.start()), "expect", unescape(m.group(1)))
    for m in _ERR_OPEN.finditer(code):
        if _PATTERN_ARM.match(code, m.end()):
            continue  # `Err(_) => ..` / `Err(e) =>`: a match arm's pattern, not an error built
        window = code[m.end() : m.end() + _NEAR]
        inner = _IN_ERROR.search(window)
        if inner is not None and "\n\n" not in window[: inner.start()]:
            body = inner.group(1) if inner.group(1) is not None else inner.group(2)
            yield Literal(path, _line_of(code, m.start()), "error_value", unescape(body), m.group("variant") or "")


def _after_condition(code: str, start: int) -> "str | None":
    """The first string literal after the first top-level comma of a macro call (its message)."""
    depth = 0
    i = start
    end = min(len(code), start + 2000)
    while i < end:
        ch = code[i]
        if ch == '"':
            j = i + 1
            while j < end and code[j] != '"':
                j += 2 if code[j] == "\\" else 1
            i = j + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return None
            depth -= 1
        elif ch == "," and depth == 0:
            m = re.compile(r"\s*" + _STRING).match(code, i + 1)
            if m is not None:
                return m.group(1)
            if code.startswith(",", i):
                # assert_eq!(a, b, "msg"): the message follows the second comma
                rest = _after_condition(code, i + 1)
                return rest
        i += 1
    return None


def is_test_path(path: str) -> bool:
    """Tests, benches and examples: not what users run (the miner skips them too)."""
    parts = path.split("/")
    return any(p in ("tests", "benches", "examples", "test", "bench") for p in parts[:-1]) or parts[-1] in ("tests.rs", "test.rs")


def literals(files: Iterable[Sequence[str]]) -> List[Literal]:
    """The literals of ``(path, text)`` pairs, test code left out."""
    out: List[Literal] = []
    for path, text in files:
        if is_test_path(path):
            continue
        out.extend(literals_of_file(path, text))
    return out
