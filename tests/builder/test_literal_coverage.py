"""The coverage count made apart from the miner (``builder.literal_coverage``)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from builder import literal_coverage as lc
from builder.literals import Literal


def _record(rid, repo, message, pattern):
    return {"id": rid, "repo": repo, "errorMessage": message, "messagePattern": pattern}


@pytest.mark.parametrize("message, literal", [
    ("Invalid class ID", "Invalid class ID"),
    ("Parsing error: `Invalid class ID`", "Invalid class ID"),
    ('TypeMismatch {{ expected: "Tensor (weight)", actual: "{:?}" }}', "Tensor (weight)"),
    ('InvalidAttribute {{ name: "keepdims", reason: "{}" }}', "keepdims"),
    ("I/O error: Offset overflow: {}", "Offset overflow: {}"),
    ("An error caused the compilation to fail\nCaused by:\n  Unable to load the module. STATUS: {status}\nBacktrace", "Unable to load the module. STATUS: {}"),
    ('config is invalid: "Tile shape {k:?} should be divisible by {lhs:?}"', "Tile shape {m:?} should be divisible by {rhs:?}"),
    ("npy/npz error magic string mismatch", "magic string mismatch"),
    ("shape mismatch for {name}, got: {got:?}, expected {expected:?}", "shape mismatch for {path}"),
])
def test_a_template_carries_a_literal_where_it_prints_it(message, literal):
    assert lc.carried(message, literal)


@pytest.mark.parametrize("message, literal", [
    ("Parsing error: `Invalid class IDs`", "Invalid class ID"),
    ("Invalid class IDs found", "Invalid class ID"),
    ("theInvalid class ID", "Invalid class ID"),
    ("Tile shape {k:?} should be divisible", "Tile shape {m:?} should be divisible by {rhs:?}"),
])
def test_a_template_that_only_shares_words_does_not_carry_it(message, literal):
    assert not lc.carried(message, literal)


def _lit(text, kind="error_value", path="core/src/a.rs", variant="", macro=""):
    return Literal(path, 1, kind, text, variant, macro)


def test_a_release_row_counts_distinct_texts_and_sets_short_ones_apart():
    check = lc.RepoCheck([_record("r1", "o/r", "shape mismatch in {op}", r"shape mismatch in (?P<op>\w+)")])
    found = [_lit("shape mismatch in {op}"), _lit("shape mismatch in {op}"), _lit("bad"), _lit("no record says this")]
    row = lc.measure_release("o/r", "v1", found, check)
    assert (row.texts, row.short, row.matched) == (2, 1, 1)
    assert [m.text for m in row.missed] == ["no record says this"]
    assert row.share == 0.5
    assert lc.low_rows([row]) == ["o/r v1: 50.0%"]


def test_a_named_variants_payload_is_matched_in_its_debug_form():
    check = lc.RepoCheck([_record("r1", "o/r", 'Cuda({0})', r'Cuda\("no cuda implementation for (?P<op>[^"]+)"\)')])
    assert check.matches(_lit("no cuda implementation for {op}", variant="Cuda"))
    assert not check.matches(_lit("no cuda implementation for {op}"))


def test_a_carried_text_counts_only_for_a_record_of_its_own_file():
    rec = {"id": "n1", "repo": "o/r", "errorMessage": "npy/npz error magic string mismatch",
           "messagePattern": "npy/npz error magic string mismatch", "filePath": "core/src/npy.rs",
           "raisedAt": [{"file": "core/src/npz.rs", "line": 3}]}
    check = lc.RepoCheck([rec])
    assert check.matches(_lit("magic string mismatch", path="core/src/npy.rs"))
    assert check.matches(_lit("magic string mismatch", path="core/src/npz.rs"))
    assert not check.matches(_lit("magic string mismatch", path="core/src/other.rs"))


def test_dependency_rules_and_shared_homes_apply_as_in_the_miner():
    records = [_record("w1", "gfx-rs/wgpu", "Buffer is still mapped", "Buffer is still mapped"),
               _record("b1", "tracel-ai/burn", "EyeLike operation requires 2D tensor input", "EyeLike operation requires 2D tensor input")]
    wgpu = SimpleNamespace(source=SimpleNamespace(repo="gfx-rs/wgpu", label="v1"), literals=[
        _lit("Buffer is still mapped", path="wgpu-core/src/a.rs"),
        _lit("internal invariant broken here", kind="macro", path="wgpu-core/src/b.rs", macro="unreachable"),
        _lit("a web backend text nobody sees", path="wgpu/src/backend/webgpu.rs"),
    ])
    onnx = SimpleNamespace(source=SimpleNamespace(repo="tracel-ai/burn-onnx", label="v1"),
                           literals=[_lit("EyeLike operation requires 2D tensor input")])
    deps = SimpleNamespace(select={("gfx-rs/wgpu", "v1"): "wgpu-user-facing"}, same_text_as={"tracel-ai/burn-onnx": "tracel-ai/burn"})
    rows = lc.measure([wgpu, onnx], records, deps)
    assert [(r.texts, r.matched) for r in rows] == [(1, 1), (1, 1)]
    plain = lc.measure([wgpu, onnx], records, None)
    assert [(r.texts, r.matched) for r in plain] == [(3, 1), (1, 0)]
