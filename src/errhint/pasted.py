"""The layers of a wrapped error text: the inner messages a pattern should see on their own.

Users rarely see a bare Rust message. A ``fn main() -> Result<..>`` prints ``Error: `` and
the Debug form; anyhow and eyre print an outer context, then ``Caused by:`` and the inner
errors (numbered when there are several); wgpu's default handler prints ``Validation Error``,
``Caused by:`` and an indented tree (one level deeper per source error); candle's CUDA
wrapper appends `` when loading <module>``; messages are prefixed with a context and ``: ``
(``Backend error: Inference error: ...``, ``layer 3 failed: ...``), or quoted inside another
exception's repr (``RuntimeError('... UnsupportedDTypeForOp(I64, "matmul")')``).

``layers(text)`` lists the texts found inside ``text`` (not ``text`` itself), each with a
weight in (0, 1]; deeper layers weigh more, so the innermost error the dataset knows leads
and the outer context still matches, below it. The peeling is string work only (nothing is
compiled), bounded in depth and count, and never raises on any input.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

MAX_LAYERS = 16
"""Layers returned for one text at most (a chain longer than that is cut at the outer end)."""
MAX_DEPTH = 4
"""Peeling steps applied one inside another (``Error: `` then ``Caused by:`` then ``: ``...)."""
MAX_COLON_SPLITS = 6
"""``context: message`` splits tried per text, left to right."""
MAX_TEXT = 16 * 1024
"""Longer texts are peeled from their first MAX_TEXT characters only."""

RUST_MAIN_PREFIX = "Error: "
"""What a ``fn main() -> Result<(), E>`` prints before the error's Debug form."""
CAUSED_BY = "Caused by:"
"""anyhow, eyre and wgpu's header of the chain of source errors."""
CHAIN_ENDS = ("\nStack backtrace:", "\nBacktrace omitted", "\nLocation:", "\nnote: run with `RUST_BACKTRACE")
"""What follows an anyhow/eyre chain and belongs to none of its layers."""
SUFFIX_WRAPPERS = (" when loading ",)
"""candle's CUDA wrapper (``{cuda} when loading {module_name}``): the inner error comes first."""
PREFIX_WRAPPERS = ("Metal error ",)
"""Wrappers that put a fixed text without ``: `` before the inner error."""

SHORTFALL = 0.05
"""A layer one step of context inside the text weighs 1 - SHORTFALL / 2 (the whole text 1.0)."""


def layers(text: str) -> List[Tuple[str, float]]:
    """The texts inside ``text``'s wrapping, with weights, innermost last; [] when none.

    ``text`` itself is not listed, and neither is a layer equal to it or to another layer.
    """
    try:
        return _layers(str(text)[:MAX_TEXT])
    except Exception:  # a helper that only adds candidates must never cost the caller its hint
        return []


def _layers(text: str) -> List[Tuple[str, float]]:
    found: Dict[str, int] = {}  # layer -> layers of context dropped (the most any way found)
    order: List[str] = []
    todo: List[Tuple[str, int, int]] = [(text, 0, 0)]  # (text, peeling rounds, context dropped)
    whole = text.strip()
    while todo and len(order) < MAX_LAYERS:
        current, rounds, dropped = todo.pop(0)
        if rounds >= MAX_DEPTH:
            continue
        for inner, step in _peel(current):
            inner = inner.strip()
            if not inner or inner == whole:
                continue
            at = dropped + step
            if inner in found:  # reached again: unwrapped whole beats dropped context, else the deepest
                old = found[inner]
                found[inner] = 0 if 0 in (old, at) else max(old, at)
                continue
            found[inner] = at
            order.append(inner)
            todo.append((inner, rounds + 1, at))
    return [(layer, weight(found[layer])) for layer in order[:MAX_LAYERS]]


def weight(dropped: int) -> float:
    """A layer's weight: 1.0 when nothing was dropped (``Error: `` peeled off, a quoted string
    unquoted), else ``1 - SHORTFALL / (1 + dropped)``: below the whole text, and higher
    the more context around it was dropped, so the innermost error leads."""
    if dropped <= 0:
        return 1.0
    return 1.0 - SHORTFALL / (1 + dropped)


def _peel(text: str) -> List[Tuple[str, int]]:
    """One step of unwrapping: (inner text, how many layers of context it drops). Each form
    is looked for only when its marker occurs (most texts have none)."""
    out: List[Tuple[str, int]] = []
    stripped = text.strip()
    if stripped.startswith(RUST_MAIN_PREFIX):
        out.append((stripped[len(RUST_MAIN_PREFIX):], 0))
    if CAUSED_BY in stripped:
        out.extend(caused_by(stripped))
    if " when loading " in stripped or stripped.startswith(PREFIX_WRAPPERS):
        out.extend(_wrapped(stripped))
    if stripped.endswith(")"):
        for inner in (quoted_payload(stripped), error_code(stripped)):
            if inner is not None:
                out.append((inner, 0))
    if ": " in stripped:
        out.extend(_colon_tails(stripped))
    return out


# --------------------------------------------------------------------------- chains


def caused_by(text: str) -> List[Tuple[str, int]]:
    """The head and each layer of an anyhow/eyre/wgpu ``Caused by:`` chain (innermost last).

    anyhow and eyre number the causes (``    0: msg``) when there are several and indent a
    single one; wgpu indents each source error two spaces deeper than its parent. A line
    indented deeper than the layer it follows, without a number of its own, continues it.
    """
    at = text.find(CAUSED_BY)
    if at < 0 or (at and text[at - 1] != "\n"):
        return []
    head = text[:at].strip()
    body = text[at + len(CAUSED_BY):]
    for end in CHAIN_ENDS:
        cut = body.find(end)
        if cut >= 0:
            body = body[:cut]
    entries = _chain_entries(body)
    out: List[Tuple[str, int]] = []
    if head:
        out.append((head, 1))
    for n, entry in enumerate(entries):
        out.append((entry, n + 2))
    return out


def _chain_entries(body: str) -> List[str]:
    """anyhow and eyre indent every further line of a cause to the column its first line's
    text starts at (``    0: `` is 7 columns); that much is removed, the message's own
    indentation stays. Unnumbered lines are each one entry (wgpu's tree, a single cause)."""
    entries: List[str] = []
    numbered = False
    column = 0  # where the text of the current numbered cause starts
    for line in body.split("\n"):
        if not line.strip():
            if numbered and entries:
                entries[-1] += "\n"
            continue
        indent = len(line) - len(line.lstrip(" "))
        text = line[indent:]
        number, rest = _numbered(text)
        if number:
            numbered = True
            entries.append(rest)
            column = indent + len(text) - len(rest)
        elif numbered and entries and indent >= column:
            entries[-1] += "\n" + line[column:]  # a further line of a multi-line cause
        else:
            entries.append(line.strip())
    lines = [line for line in body.split("\n") if line.strip()]
    if not numbered and len(lines) > 1:
        # anyhow's single cause over several lines: the body less its first line's indent
        cut = len(lines[0]) - len(lines[0].lstrip(" "))
        entries.insert(0, "\n".join(line[cut:] if line[:cut].isspace() else line.strip() for line in lines))
    return [entry.rstrip("\n") for entry in entries]


def _numbered(line: str) -> Tuple[bool, str]:
    """(True, message) for ``N: message``, else (False, line)."""
    digits = 0
    while digits < len(line) and line[digits].isdigit():
        digits += 1
    if 0 < digits <= 3 and line[digits : digits + 2] == ": ":
        return True, line[digits + 2 :]
    return False, line


# --------------------------------------------------------------------------- wrappers


def _wrapped(text: str) -> List[Tuple[str, int]]:
    out: List[Tuple[str, int]] = []
    end = text.find("\n")
    end = len(text) if end < 0 else end
    for marker in SUFFIX_WRAPPERS:
        cut = text.rfind(marker, 0, end)
        if cut > 0:
            out.append((text[:cut], 1))
    for marker in PREFIX_WRAPPERS:
        if text.startswith(marker):
            out.append((text[len(marker):], 1))
    return out


def _colon_tails(text: str) -> List[Tuple[str, int]]:
    """What follows each ``: `` of the first line that ends a context (``context: message``),
    left to right. A ``: `` inside brackets or quotes is a Debug field (``inner: ..``) and
    a tail that does not start like a message (a value such as ``[2, 3]``) is none."""
    out: List[Tuple[str, int]] = []
    end = text.find("\n")
    end = len(text) if end < 0 else end
    pos = 0
    for _ in range(MAX_COLON_SPLITS):
        pos = text.find(": ", pos, end)
        if pos < 0:
            break
        tail = text[pos + 2 :]
        if tail[:1].isalpha() or tail[:1] in "=\"'":
            if _balanced(text[:pos]):
                out.append((tail, 1))
        pos += 2
    return out


def _balanced(head: str) -> bool:
    """Whether ``head`` closes every bracket it opens and every ``"`` (escaped ones aside)."""
    opened = head.count("(") + head.count("[") + head.count("{")
    closed = head.count(")") + head.count("]") + head.count("}")
    return opened == closed and (head.count('"') - head.count('\\"')) % 2 == 0


def error_code(text: str) -> Optional[str]:
    """The code of a Debug error-code form: ``CUDA_ERROR_OUT_OF_MEMORY`` out of cudarc's
    ``DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")`` or ``CublasError(CUBLAS_STATUS_..)``."""
    open_at = text.find("(")
    if open_at <= 0 or not text.endswith(")") or "\n" in text:
        return None
    if not text[:open_at].isidentifier():
        return None
    code = text[open_at + 1 : -1].split(",", 1)[0].strip()
    if len(code) < 6 or "_" not in code or not all(ch.isupper() or ch.isdigit() or ch == "_" for ch in code):
        return None
    return code


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0"}


def quoted_payload(text: str) -> Optional[str]:
    """The string inside ``Name("...")`` or ``Name('...')`` (a Python repr or a Rust Debug
    tuple of one string), unescaped; None for any other text."""
    if not text.endswith(")"):
        return None
    open_at = text.find("(")
    if open_at <= 0 or open_at + 3 > len(text) - 1:
        return None
    name = text[:open_at]
    if not all(ch.isalnum() or ch in "_.:" for ch in name) or not name[0].isalpha():
        return None
    quote = text[open_at + 1]
    if quote not in "'\"" or text[-2] != quote:
        return None
    body = text[open_at + 2 : -2]
    return _unescape(body, quote)


def _unescape(body: str, quote: str) -> Optional[str]:
    out: List[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
            continue
        if ch == quote:
            return None  # an unescaped quote: not one string literal
        out.append(ch)
        i += 1
    return "".join(out)
