"""Which of a record's sites the call reached (item: the right site).

A record is located at one site and lists the others of the same message in ``raisedAt``
(``{file, line, fn}``, optional ``condition``).  Where the values tell the sites apart, the
one the call reaches is chosen:

* candle ``Tensor::matmul`` raises ``ShapeMismatchBinaryOp`` twice: first when the ranks
  differ or are below 2, then when the inner (or batch) dimensions differ;
* ``NarrowInvalidArgs``: ``Tensor::narrow`` (tensor.rs) checks first, so a call from Python
  reaches it, not the repeated check in ``Layout::narrow``;
* candle's ``no unary function for {dtype}`` ``todo!`` is in both arms of ``unary_op!``: the
  failing method (``x.exp()``) says which arm declared the op.
"""

from __future__ import annotations

from collections.abc import Mapping

from typing import Any, Dict, List, Optional


def _plain(entry: Any) -> Optional[Dict[str, Any]]:
    """A ``raisedAt`` entry as a dict (a record view gives read-only nested views)."""
    if isinstance(entry, Mapping):
        return dict(entry)
    to_dict = getattr(entry, "to_dict", None)
    try:
        return to_dict() if to_dict is not None else None
    except Exception:
        return None


def _sites(record: Any) -> List[Dict[str, Any]]:
    out = []
    if record.get("filePath") and record.get("lineNumber"):
        out.append({"file": record.get("filePath"), "line": record.get("lineNumber"), "fn": None})
    for entry in record.get("raisedAt") or ():
        s = _plain(entry)
        if s is not None and isinstance(s.get("file"), str) and isinstance(s.get("line"), int):
            out.append(s)
    return out


def sites(record: Any) -> List[Dict[str, Any]]:
    """The record's location and its ``raisedAt`` entries, as dicts."""
    return _sites(record)


def variant_name(record: Any) -> Optional[str]:
    variant = record.get("variant")
    if variant is None:
        return None
    try:
        name = variant["name"]
    except Exception:
        return None
    return name if isinstance(name, str) else None


def url(record: Any, site: Mapping[str, Any]) -> Optional[str]:
    sha = record.get("analyzedSha")
    if not sha or not record.get("repo"):
        return None
    return f"https://github.com/{record.get('repo')}/blob/{sha}/{site['file']}#L{site['line']}"


UNARY_VECTORISED = frozenset({"exp", "log", "sin", "cos", "tanh", "sqr", "sqrt"})
UNARY_PLAIN = frozenset({"neg", "recip"})
"""candle's ``unary_op!`` macro has two arms, each with its own ``todo!("no unary function
for u8")``: ops declared with vectorised f32/f64 kernels (the second arm) and the others."""


def _unary(record: Any, method: Optional[str]) -> Optional[Dict[str, Any]]:
    message = record.get("errorMessage") or ""
    if not message.startswith("no unary function for") or method not in UNARY_VECTORISED | UNARY_PLAIN:
        return None
    found = sorted((s for s in _sites(record) if s["file"] == record.get("filePath")), key=lambda s: s["line"])
    if len(found) != 2:
        return None
    return found[1] if method in UNARY_VECTORISED else found[0]


def _via(record: Any, method: str) -> Optional[Dict[str, Any]]:
    """For a record ``onlyVia`` binding methods: its site in the function that ``method`` reaches
    (the site's function name ends with the method's: ``bool_all_dim`` for ``all_dim``)."""
    found = [s for s in _sites(record) if str(s.get("fn") or "").rsplit("::", 1)[-1].endswith(method)]
    return found[0] if len(found) == 1 else None


def choose(record: Any, values: Mapping[str, Any], name: Optional[str] = None,
           method: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """The site the call reached (``file``, ``line``, ``fn``, ``url``) when the values tell
    the record's sites apart; None when they do not (the record's own location stands).
    ``record``: a ``RecordView`` or a camelCase dict; ``name``: its variant name if known."""
    name = name or variant_name(record)
    if name is None and method is not None:
        chosen = _via(record, method) if record.get("onlyVia") else _unary(record, method)
        return None if chosen is None else {
            "file": chosen["file"], "line": chosen["line"], "fn": chosen.get("fn"), "url": url(record, chosen)}
    if name not in ("ShapeMismatchBinaryOp", "NarrowInvalidArgs"):
        return None
    sites = _sites(record)
    if len(sites) < 2:
        return None
    chosen = None
    if name == "ShapeMismatchBinaryOp" and values.get("op") == "matmul":
        lhs, rhs = values.get("lhs"), values.get("rhs")
        main = record.get("filePath")
        same = sorted((s for s in sites if s["file"] == main and (s.get("fn") in (None, "matmul"))),
                      key=lambda s: s["line"])
        if isinstance(lhs, list) and isinstance(rhs, list) and len(same) >= 2:
            rank_check = len(lhs) < 2 or len(lhs) != len(rhs)
            chosen = same[0] if rank_check else same[-1]
    elif name == "NarrowInvalidArgs":
        found = [s for s in sites if s.get("fn") == "narrow" and s["file"].endswith("tensor.rs")]
        chosen = found[0] if found else None
    if chosen is None:
        return None
    return {"file": chosen["file"], "line": chosen["line"], "fn": chosen.get("fn"), "url": url(record, chosen)}
