"""Captured strings -> typed values, and the readable names of captures.

``Match.captures`` stays ``{name: str}`` (a public contract); ``typed(captures)`` is its typed
sibling (``Match.values``): a shape (``[2, 3]``) becomes a list of ints, an integer an int, a
dtype (``I64``) the upper-case name, a string field (``"matmul"``) its text without quotes.
Anything else stays the string it was.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

DTYPES = ("U8", "U32", "I64", "BF16", "F16", "F32", "F64")
"""candle's DType names as its Debug form prints them."""

FLOAT_DTYPES = ("BF16", "F16", "F32", "F64")


def shape(text: Any) -> Optional[List[int]]:
    """``[2, 3]`` / ``(2, 3)`` / ``[]`` -> ``[2, 3]``; None when it is not a list of ints."""
    if isinstance(text, list) and all(isinstance(v, int) for v in text):
        return list(text)
    if not isinstance(text, str):
        return None
    s = text.strip()
    if len(s) < 2 or (s[0], s[-1]) not in (("[", "]"), ("(", ")")):
        return None
    body = s[1:-1].strip().rstrip(",")
    if not body:
        return []
    out = []
    for part in body.split(","):
        part = part.strip()
        if not part.isdecimal():
            return None
        out.append(int(part))
    return out


def integer(text: Any) -> Optional[int]:
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    if not isinstance(text, str):
        return None
    s = text.strip()
    body = s[1:] if s[:1] == "-" else s
    return int(s) if body.isdecimal() and len(body) < 20 else None


def dtype(text: Any) -> Optional[str]:
    if not isinstance(text, str):
        return None
    s = text.strip()
    return s if s in DTYPES else None


def unquote(text: str) -> str:
    s = text.strip()
    if len(s) >= 2 and s[0] == s[-1] == '"':
        return s[1:-1]
    return s


def typed(captures: Mapping[str, str]) -> Dict[str, Any]:
    """The typed reading of every capture (see the module docstring)."""
    out: Dict[str, Any] = {}
    for name, raw in captures.items():
        if not isinstance(raw, str):
            out[name] = raw
            continue
        value: Any = shape(raw)
        if value is None:
            value = integer(raw)
        if value is None:
            value = dtype(raw)
        if value is None:
            value = unquote(raw)
        out[name] = value
    return out


def clean_captures(captures: Mapping[str, str]) -> Dict[str, str]:
    """Captures named for what they hold: an alias that swallowed the literal word in front
    of its value (``op='op matmul'`` from ``for op matmul``) keeps the value alone
    (``op='matmul'``) when another capture confirms it; one that holds
    another capture plus text (``other='U32 for op matmul'``); a quoted Debug string loses its
    quotes (``op='"matmul"'`` -> ``matmul``)."""
    out = {k: unquote(v) if isinstance(v, str) else v for k, v in captures.items()}
    for name in list(out):
        value = out[name]
        if not isinstance(value, str):
            continue
        words = value.split()
        if len(words) > 1 and words[0] == name:
            rest = " ".join(words[1:])
            if any(v == rest for k, v in out.items() if k != name):
                out[name] = rest
                continue
        if " " in value and any(
            k != name and isinstance(v, str) and v and v != value and value.startswith(v + " ")
            and not value.startswith("[") for k, v in out.items()
        ):
            del out[name]
    return out


def elements(dims: List[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def fmt(dims: List[int]) -> str:
    """A shape as the error prints it: ``[2, 3]``."""
    return "[" + ", ".join(str(d) for d in dims) + "]"


def py_shape(dims: List[int]) -> str:
    """A shape as Python code: ``(2, 3)``, ``(4,)``."""
    if len(dims) == 1:
        return f"({dims[0]},)"
    return "(" + ", ".join(str(d) for d in dims) + ")"
