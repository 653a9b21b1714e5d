"""Which numbers a hint may show, and which of the user's values it shows.

Pure functions over strings, shared by the harness (``_apply.py``) and its unit tests.

A number in a hint's cause, fix or fix code is *allowed* when it is one of the user's own
values or is computed from them:

* an integer written in the error message or in the script (shapes, dims, indices, sizes);
* 0, 1 and -1 (first/last index, "make this axis 1", a ``-1`` reshape hole);
* n - 1, n + 1 and -n for each of those (last valid index, the nearest even size, the
  negative form of an index);
* for every shape (a bracketed or parenthesised list of integers) in either: its rank, rank - 1
  and -rank, the products of its contiguous runs (element counts, flattened sizes);
* elementwise sums of equal-rank shapes (the result of a ``cat``), absolute differences,
  greatest common divisors and exact quotients of any two of those values or products
  (0, 1 and -1 left out of these pairs, or every neighbour of a value would be allowed).

Anything else is a canned number: a value the user never had. Dtype names (``f32``, ``U8``:
``(?<![\\w.])`` keeps them out) and bit widths (``8-bit``) are not numbers here; ``N-D``
counts as ``N``, which must then be a rank or a value.
"""

from __future__ import annotations

import io
import math
import re
import tokenize
from itertools import combinations
from typing import Iterable, List, Set

_INT = re.compile(r"(?<![\w.])-?\d+(?![\w.]|\.\d|-bits?\b)")
_SHAPE = re.compile(r"[\[(]\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*,?\s*[\])]")
_DTYPE = re.compile(r"\b(?:f16|bf16|f32|f64|u8|u32|i64|float32|float64|int64|uint8|uint32)\b", re.IGNORECASE)
BACKTRACE_CUT = (", backtrace: Backtrace [", "\nstack backtrace:", "\nnote: run with `RUST_BACKTRACE")


def clean_error(text: str) -> str:
    """The error text without a Rust backtrace (whose line numbers and addresses are not the user's)."""
    for marker in BACKTRACE_CUT:
        cut = text.find(marker)
        if cut >= 0:
            text = text[:cut]
    return text


def code_only(source: str) -> str:
    """Python source without comments and docstring-like strings: the values a user wrote as code."""
    out: List[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.COMMENT, tokenize.STRING):
                continue
            out.append(tok.string)
    except (tokenize.TokenError, IndentationError):
        return source
    return " ".join(out)


def ints(text: str) -> List[int]:
    """Every integer written in ``text`` (not the digits inside identifiers such as ``f32``)."""
    return [int(m.group()) for m in _INT.finditer(text)]


def shapes(text: str) -> List[List[int]]:
    """Bracketed or parenthesised lists of integers: ``[5, 7]``, ``(6, 9, 5)``, ``(7,)``."""
    return [[int(v) for v in m.group(1).split(",")] for m in _SHAPE.finditer(text)]


def dtypes(text: str) -> Set[str]:
    """Dtype names written in ``text``, lower-cased (``F32`` and ``f32`` are one value)."""
    return {m.group().lower() for m in _DTYPE.finditer(text)}


def _runs_products(shape: List[int]) -> Set[int]:
    found = set()
    for start in range(len(shape)):
        product = 1
        for value in shape[start:]:
            product *= value
            found.add(product)
    return found


def allowed_numbers(error_text: str, script_code: str) -> Set[int]:
    """The integers a hint for this error of this script may contain (see the module docstring)."""
    texts = (clean_error(error_text), script_code)
    base: Set[int] = {0, 1, -1}
    all_shapes: List[List[int]] = []
    for text in texts:
        base.update(ints(text))
        all_shapes.extend(shapes(text))
    derived: Set[int] = set()
    products: Set[int] = set()
    for n in base:
        derived.update({n - 1, n + 1, -n})
    for shape in all_shapes:
        rank = len(shape)
        derived.update({rank, rank - 1, -rank})
        products |= _runs_products(shape)
    for a, b in combinations(all_shapes, 2):
        if len(a) == len(b):
            derived.update(x + y for x, y in zip(a, b))
    pool = sorted((base | products) - {0, 1, -1})
    for a, b in combinations(pool, 2):
        derived.add(abs(a - b))
        derived.add(math.gcd(a, b))
        for num, den in ((a, b), (b, a)):
            if num % den == 0:
                derived.add(num // den)
    return base | derived | products


def foreign_numbers(hint_texts: Iterable[str], allowed: Set[int]) -> List[int]:
    """Integers of the hint texts that are not allowed: canned values."""
    seen: List[int] = []
    for text in hint_texts:
        for value in ints(text or ""):
            if value not in allowed and value not in seen:
                seen.append(value)
    return seen


def distinctive_values(script_code: str) -> Set[str]:
    """The user's own values a hint can show: integers other than 0, 1, -1 and dtype names."""
    values = {str(v) for v in ints(script_code) if v not in (0, 1, -1)}
    return values | dtypes(script_code)


def values_shown(text: str, distinctive: Set[str]) -> List[str]:
    """Which of ``distinctive`` occur in ``text`` (integers as whole numbers, dtypes in any case)."""
    shown = {str(v) for v in ints(text)} | dtypes(text)
    return sorted(v for v in distinctive if v in shown)
