"""What text a pattern requires (``literals``) and the keys the index files records under (``keys``)."""

from __future__ import annotations

import re
from typing import List

import pytest

from engine_support import fixture_records, record
from errhint.keys import choose_keys, edge_keys, key_words, text_tokens
from errhint.literals import literal_runs, required_literals


@pytest.mark.parametrize(
    "pattern, expected",
    [
        (r"metal col2im1d (.+?) not implemented", [" not implemented", "metal col2im1d "]),
        (r"shape mismatch in (?P<op>.+?), lhs: (?P<lhs>.+?), rhs: (?P<rhs>[^\n]+)", ["shape mismatch in ", ", lhs: ", ", rhs: "]),
        (r"a\.b\(c\)\n", ["a.b(c)\n"]),
        (r"colou?r value", ["r value", "colo"]),  # the optional u splits the run
        (r"ab*c", ["a", "c"]),
        (r"ab+c", ["ab", "c"]),
        (r"x{0,2}yz{2}w", ["yz", "w"]),
        (r"one [abc] two", [" two", "one "]),
        (r"left|right", []),
        (r"(?i)case blind", []),
        (r"(?x) verbose", []),
        (r"(?s)dotall keeps literals", ["dotall keeps literals"]),
        (r"Can't aggregate \((?P<D>.+?)\)", ["Can't aggregate (", ")"]),
        (r"\d+ items", [" items"]),
        (r"(?:opt tail)? fixed", [" fixed"]),
    ],
)
def test_required_literals(pattern: str, expected: List[str]) -> None:
    assert required_literals(pattern) == sorted(expected, key=lambda r: (-len(r), r))


def test_required_literals_are_in_every_match() -> None:
    for rec in fixture_records():
        pattern = rec["messagePattern"]
        lits = required_literals(pattern)
        example = re.sub(r"\{[^{}]*\}", "VALUE", rec["errorMessage"])
        m = re.search(pattern, example, re.DOTALL)
        if m:
            assert all(lit in example for lit in lits), (pattern, lits)


def test_literal_runs_know_what_bounds_each_run() -> None:
    assert literal_runs(r"metal col2im1d (.+?) not implemented") == (
        ["metal col2im1d ", " not implemented"], [True, False], [False, True])
    assert literal_runs(r"(?P<x>.+?) for op matmul") == ([" for op matmul"], [False], [True])
    assert literal_runs(r"a?bc def") == (["bc def"], [False], [True])  # 'a' may precede 'bc'
    assert literal_runs(r"abc+") == (["abc"], [True], [False])
    assert literal_runs(r"shape (?P<a>.+?)\.(?: tail)?") == (["shape ", "."], [True, False], [False, False])
    # explicit word boundaries bound a run as the pattern's own edges do
    assert literal_runs(r"\bCUDA_ERROR_OUT_OF_MEMORY\b") == (["CUDA_ERROR_OUT_OF_MEMORY"], [True], [True])
    assert literal_runs(r"(?<![A-Za-z0-9_])HeaderTooSmall(?![A-Za-z0-9_])") == (["HeaderTooSmall"], [True], [True])
    assert literal_runs(r"(?m)^(?P<a>[^\n]+?) x(?P<b>.+)$") == ([" x"], [False], [False])
    assert literal_runs(r"(?m)^head (?P<a>.+)") == (["head "], [True], [False])


def test_key_words_and_edge_keys() -> None:
    # the pattern's own start and end bound a word; a group next to a run does not
    assert key_words(literal_runs(r"metal col2im1d (.+?) not implemented")) == [
        "metal", "col2im1d", "metal col2im1d", "not", "implemented", "not implemented"]
    # 'op' is shorter than a token, so 'for matmul' is a pair, as in the text's token list
    assert key_words(literal_runs(r"(?P<op>.+?) for op matmul")) == ["for", "matmul", "for matmul"]
    assert key_words(literal_runs(r"(?P<a>.+?)shape mismatch in (?P<op>.+)")) == ["mismatch"]
    assert edge_keys(literal_runs(r"(?P<a>.+?)Overflow detected(?P<b>.+)")) == ["*Overflow", "detected*"]
    assert edge_keys(literal_runs(r"(?P<a>.+?)Overflow(?P<b>.+)")) == []
    assert edge_keys(literal_runs(r"Overflow detected")) == []  # both words are keys already
    assert key_words(literal_runs(r"\bCUBLAS_STATUS_ALLOC_FAILED\b")) == ["CUBLAS_STATUS_ALLOC_FAILED"]
    assert key_words(literal_runs(r"(?P<a>.+?)\bOverflow\b(?P<b>.+)")) == ["Overflow"]


def test_keys_prefer_rare_words() -> None:
    pats = [r"shape mismatch in matmul (?P<a>.+)", r"shape mismatch in cat (?P<a>.+)", r"(?P<a>.+?)a shape mismatch in(?P<b>.+)"]
    keys = choose_keys([literal_runs(p) for p in pats])
    assert keys[0] == "mismatch matmul" and keys[1] == "mismatch cat"  # rarest; the pair beats the word on length
    assert keys[2] == "shape mismatch"  # 'mismatch' is in all three, the pair only here
    assert choose_keys([literal_runs(r"(?P<a>.+?)Overflow(?P<b>.+)")]) == [None]
    assert choose_keys([literal_runs(r"(?P<a>.+?)Overflow detected(?P<b>.+)")])[0] in ("*Overflow", "detected*")


def test_text_tokens_have_words_and_pairs() -> None:
    assert text_tokens("shape mismatch in matmul, lhs: [2]") == {
        "shape", "mismatch", "matmul", "lhs", "shape mismatch", "mismatch matmul", "matmul lhs"}
