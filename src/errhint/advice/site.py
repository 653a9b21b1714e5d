"""Which of a record's sites the call reached (item: the right site).

A record is located at one site and lists the others of the same message in ``raisedAt``
(``{file, line, fn}``, optional ``condition``).  Where the values tell the sites apart, the
one the call reaches is chosen:

* candle ``Tensor::matmul`` raises ``ShapeMismatchBinaryOp`` twice: first when the ranks
  differ or are below 2, then when the inner (or batch) dimensions differ;
* ``NarrowInvalidArgs``: ``Tensor::narrow`` (tensor.rs) checks first, so a call from Python
  reaches it, not the repeated check in ``Layout::narrow``.
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Optional


def _sites(record: Mapping[str, Any]) -> List[Dict[str, Any]]:
    out = []
    if record.get("filePath") and record.get("lineNumber"):
        out.append({"file": record.get("filePath"), "line": record.get("lineNumber"), "fn": None})
    for s in record.get("raisedAt") or ():
        if isinstance(s, Mapping) and isinstance(s.get("file"), str) and isinstance(s.get("line"), int):
            out.append(dict(s))
    return out


def url(record: Mapping[str, Any], site: Mapping[str, Any]) -> Optional[str]:
    sha = record.get("analyzedSha")
    if not sha or not record.get("repo"):
        return None
    return f"https://github.com/{record.get('repo')}/blob/{sha}/{site['file']}#L{site['line']}"


def choose(record: Mapping[str, Any], values: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
    """The site the call reached (``file``, ``line``, ``fn``, ``url``) when the values tell
    the record's sites apart; None when they do not (the record's own location stands)."""
    variant = record.get("variant") or {}
    name = variant.get("name") if isinstance(variant, Mapping) else None
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
