from __future__ import annotations

from pathlib import Path
from typing import List, Sequence

import pytest

from engine_support import fixture_records
from errhint import normalize
from errhint.indexfile import build_index
from errhint.loaded_index import LoadedIndex, VariantInfo
from errhint.normalize import Candidate, candidates

TEXTS = Path(__file__).resolve().parents[1] / "fixtures" / "texts"


@pytest.fixture(scope="module")
def templates():  # type: ignore[no-untyped-def]
    ix = LoadedIndex(build_index(fixture_records()))
    return ix.variants


def texts(cands: Sequence[Candidate]) -> List[str]:
    return [c.text for c in cands]


# ---------------------------------------------------------------- candle Debug forms (<= 0.8.1)


def test_withbacktrace_real_text_rebuilds_display(templates) -> None:  # type: ignore[no-untyped-def]
    raw = (TEXTS / "candle_0.4.2_withbacktrace.txt").read_text()
    assert len(raw) > 2000
    cands = candidates(raw, exc_type="ValueError", templates=templates)
    assert cands[0].text == "unsupported dtype I64 for op matmul"
    assert cands[0].variant == "UnsupportedDTypeForOp"
    assert cands[0].captures["f0"] == "I64" and cands[0].captures["f1"] == "matmul"
    assert cands[0].error_type == "exception" and cands[0].form == "debug"


def test_withbacktrace_disabled_and_truncated(templates) -> None:  # type: ignore[no-untyped-def]
    text = 'WithBacktrace { inner: ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [4, 2], op: "matmul" }, backtrace: <disabled> }'
    assert texts(candidates(text, exc_type="ValueError", templates=templates)) == ["shape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]"]
    cut = text[:95] + ", backtrace: Backtrace [{ fn: \"x"  # cut mid-backtrace
    assert texts(candidates(cut, exc_type="ValueError", templates=templates))[0].startswith("shape mismatch in matmul")


def test_msg_with_escapes_is_unquoted(templates) -> None:  # type: ignore[no-untyped-def]
    text = r'WithBacktrace { inner: Msg("kernel-size (5, 5) is larger than the input size 2,2\nfor \"pool\""), backtrace: <disabled> }'
    c = candidates(text, exc_type="ValueError", templates=templates)
    assert c[0].text == 'kernel-size (5, 5) is larger than the input size 2,2\nfor "pool"'
    assert c[0].form == "msg"


def test_context_and_withpath_wrappers(templates) -> None:  # type: ignore[no-untyped-def]
    text = 'WithPath { inner: Context { inner: UnsupportedDTypeForOp(U8, "conv"), context: "loading weights" }, path: "/m/w.safetensors" }'
    c = candidates(text, exc_type="ValueError", templates=templates)
    assert c[0].text == "unsupported dtype U8 for op conv"
    assert c[0].captures["path"] == "/m/w.safetensors"
    assert "loading weights" in texts(c)


def test_struct_tuple_unit_and_nested_variants(templates) -> None:  # type: ignore[no-untyped-def]
    assert texts(candidates("NotCompiledWithCudaSupport", exc_type="ValueError", templates=templates)) == [
        "the candle crate has not been built with cuda support"
    ]
    nested = candidates('SafeTensor(InvalidOffset("w"))', exc_type="ValueError", templates=templates)
    assert "invalid offset for tensor `w`" in texts(nested)
    inner = [c for c in nested if c.variant == "InvalidOffset"][0]
    assert inner.captures["f0"] == "w"
    unit_inner = candidates("SafeTensor(HeaderTooSmall)", exc_type="ValueError", templates=templates)
    assert "header too small" in texts(unit_inner)


def test_unit_values_in_struct_fields_are_data_not_errors() -> None:
    adapter = VariantInfo("gfx-rs/wgpu", "RequestAdapterError", "NotFound", "unit", (), "No suitable adapter found", False)
    text = 'called `Result::unwrap()` on an `Err` value: Os { code: 2, kind: NotFound, message: "No such file or directory" }'
    got = texts(candidates(text, exc_type="pyo3_runtime.PanicException", templates=lambda n: [adapter] if n == "NotFound" else []))
    assert got == ["No such file or directory (os error 2)"]
    wrapped = candidates("Wgpu(NotFound)", exc_type="ValueError", templates=lambda n: [adapter] if n == "NotFound" else [])
    assert "No suitable adapter found" in texts(wrapped)


def test_unknown_variant_keeps_its_debug_text(templates) -> None:  # type: ignore[no-untyped-def]
    c = candidates("MysteryError { code: 3 }", exc_type="ValueError", templates=templates)
    assert c[0].text == "MysteryError { code: 3 }" and c[0].variant == "MysteryError"


def test_std_io_error_debug_gets_its_display() -> None:
    c = candidates('Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })', exc_type="ValueError")
    assert "No such file or directory (os error 2)" in texts(c)


def test_display_fields_unquote_strings_and_keep_debug_text() -> None:
    info = VariantInfo("r/r", "E", "V", "struct", (("a", False), ("b", True)), "{a} and {b:?} {{literal}}", False)
    c = candidates('V { a: "x y", b: "z" }', exc_type="ValueError", templates=lambda n: [info] if n == "V" else [])
    assert c[0].text == 'x y and "z" {literal}'


def test_main_error_enum_template_comes_first() -> None:
    helper = VariantInfo("huggingface/candle", "MetalKernelError", "UnsupportedDTypeForOp", "tuple",
                         (("0", False), ("1", False)), "Unsupported dtype {0} for operation {1}", False)
    main = VariantInfo("huggingface/candle", "Error", "UnsupportedDTypeForOp", "tuple",
                       (("0", True), ("1", False)), "unsupported dtype {0:?} for op {1}", False)
    c = candidates('UnsupportedDTypeForOp(I64, "matmul")', exc_type="ValueError",
                   templates=lambda n: [helper, main] if n == "UnsupportedDTypeForOp" else [])
    assert [x.text for x in c] == ["unsupported dtype I64 for op matmul", "Unsupported dtype I64 for operation matmul"]
    assert c[0].weight == 1.0 and c[1].weight < 1.0


def test_nested_errors_prefer_a_dependency_crates_template() -> None:
    burn = VariantInfo("tracel-ai/burn", "Error", "TensorNotFound", "tuple", (("0", False),), "Tensor not found: {0}", False)
    st = VariantInfo("huggingface/safetensors", "SafeTensorError", "TensorNotFound", "tuple", (("0", False),),
                     "tensor `{0}` not found", False)
    c = candidates('SafeTensor(TensorNotFound("w"))', exc_type="ValueError",
                   templates=lambda n: [burn, st] if n == "TensorNotFound" else [])
    nested = [x for x in c if x.variant == "TensorNotFound"]
    assert [x.text for x in nested] == ["tensor `w` not found", "Tensor not found: w"]
    assert nested[0].weight > nested[1].weight
    top = candidates('TensorNotFound("w")', exc_type="ValueError", templates=lambda n: [st, burn])
    assert top[0].text == "Tensor not found: w"  # at the top, a main Error enum first


def test_incompatible_template_is_not_used() -> None:
    info = VariantInfo("r/r", "E", "V", "tuple", (("0", False),), "one {0}", False)
    c = candidates("V(1, 2)", exc_type="ValueError", templates=lambda n: [info])
    assert c[0].text == "V(1, 2)"


# ---------------------------------------------------------------- candle Display forms (>= 0.8.2)


def test_display_form_with_backtrace_appended() -> None:
    text = (
        "unsupported dtype I64 for op matmul\n"
        "   0: candle_core::error::Error::bt\n             at ./candle-core/src/error.rs:262:25\n"
        "   1: candle_core::cpu_backend::MatMul::f\n             at ./candle-core/src/cpu_backend/mod.rs:1200:9\n"
    )
    assert texts(candidates(text, exc_type="ValueError")) == ["unsupported dtype I64 for op matmul"]


def test_anyhow_debug_keeps_causes_and_drops_its_backtrace() -> None:
    text = (
        "expected 2 dim tensor: Check input dimensions!\n\nCaused by:\n    bad rank\n\nStack backtrace:\n"
        "   0: anyhow::error::<impl core::convert::From<E> for anyhow::Error>::from\n             at /x/anyhow-1.0.98/src/backtrace.rs:27:14\n"
    )
    got = texts(candidates(text, exc_type="ValueError"))
    assert got == ["expected 2 dim tensor: Check input dimensions!\n\nCaused by:\n    bad rank"]
    assert texts(candidates("msg: inner\n\nStack backtrace:", exc_type="ValueError")) == ["msg: inner"]


def test_display_form_with_context_keeps_both_lines() -> None:
    text = "while loading model\nshape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]"
    assert texts(candidates(text, exc_type="ValueError")) == [text]


# ---------------------------------------------------------------- panics


@pytest.mark.parametrize(
    "text, expected, kind",
    [
        ("not implemented: Unsupported precision for fusion", "Unsupported precision for fusion", "unimplemented"),
        ("not yet implemented: no unary function for u8", "no unary function for u8", "todo"),
        ("internal error: entered unreachable code: bad state 3", "bad state 3", "unreachable"),
        ("assertion failed: dims.len() == 2", "dims.len() == 2", "assert"),
        ("not implemented", "not implemented", "unimplemented"),
    ],
)
def test_panic_prefixes(text: str, expected: str, kind: str) -> None:
    c = candidates(text, exc_type="pyo3_runtime.PanicException")
    assert c[0].text == expected and c[0].site_kinds == {kind} and c[0].error_type == "panic"


def test_panic_prefixes_are_kept_for_ordinary_exceptions() -> None:
    c = candidates("not implemented: x", exc_type="ValueError")
    assert texts(c) == ["not implemented: x"] and not c[0].site_kinds


def test_assert_eq_new_and_old_formats() -> None:
    new = "assertion `left == right` failed: Batch size mismatch between inputs\n  left: 2\n right: 3"
    c = candidates(new, exc_type="pyo3_runtime.PanicException")
    assert c[0].text == "Batch size mismatch between inputs"
    assert dict(c[0].captures) == {"left": "2", "right": "3"} and c[0].site_kinds == {"assert_eq"}
    bare = "assertion `left != right` failed\n  left: 1\n right: 1"
    assert candidates(bare, exc_type="pyo3_runtime.PanicException")[0].captures["left"] == "1"
    old = "assertion failed: `(left == right)`\n  left: `2`,\n right: `3`: Batch size mismatch between inputs"
    c = candidates(old, exc_type="pyo3_runtime.PanicException")
    assert c[0].text == "Batch size mismatch between inputs" and c[0].captures["right"] == "3"


def test_unwrap_tail_is_parsed_as_the_error_debug(templates) -> None:  # type: ignore[no-untyped-def]
    text = 'called `Result::unwrap()` on an `Err` value: WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: <disabled> }'
    c = candidates(text, exc_type="pyo3_runtime.PanicException", templates=templates)
    assert c[0].text == "unsupported dtype I64 for op matmul" and c[0].error_type == "exception"
    s = candidates('called `Result::unwrap()` on an `Err` value: "plain string error"', exc_type="pyo3_runtime.PanicException")
    assert texts(s) == ["plain string error"]


def test_expect_splits_message_and_error_debug(templates) -> None:  # type: ignore[no-untyped-def]
    text = 'Should be able to load the record file: FileNotFound("/tmp/model.mpk")'
    c = candidates(text, exc_type="pyo3_runtime.PanicException", templates=templates)
    assert texts(c)[:2] == [text, "Should be able to load the record file"]
    assert c[1].site_kinds == {"expect"}
    debug = [x for x in c if x.variant == "FileNotFound"]
    assert debug and debug[0].error_type == "exception"


def test_rust_stderr_panic_header_and_backtrace_are_stripped() -> None:
    text = (TEXTS / "burn_0.18_add_traceback.txt").read_text().split("Traceback (most recent call last)")[0]
    c = candidates(text)
    assert len(c) == 2 and all(x.form == "tensor_check" for x in c)
    old = "thread 'main' panicked at 'no unary function for u8', candle-core-0.4.2/src/op.rs:450:9\nnote: run with `RUST_BACKTRACE=1`"
    c = candidates(old)
    assert c[0].text == "no unary function for u8" and c[0].repo_hint == "huggingface/candle"
    assert c[0].error_type == "panic"


# ---------------------------------------------------------------- burn TensorCheck report


def test_tensor_check_reasons_are_separate_candidates() -> None:
    text = (
        "=== Tensor Operation Error ===\n  Operation: 'Add'\n  Reason:\n"
        "    1. The provided tensors have incompatible shapes. Incompatible size at dimension '0' => '2 != 3', which can't be broadcasted. Lhs tensor shape [2, 3], Rhs tensor shape [3, 2]. \n"
        "    2. Can't aggregate a tensor with (2) dimensions on axis (5) \n"
    )
    c = candidates(text, exc_type="pyo3_runtime.PanicException")
    assert len(c) == 2
    assert c[0].text.startswith("The provided tensors") and c[0].text.endswith("[3, 2].")
    assert c[1].text == "Can't aggregate a tensor with (2) dimensions on axis (5)"
    assert all(x.captures["op"] == "Add" and x.repo_hint == "tracel-ai/burn" for x in c)
    assert c[1].message == "Add: Can't aggregate a tensor with (2) dimensions on axis (5)"


# ---------------------------------------------------------------- bounds


def test_texts_are_cut_to_bounded_length() -> None:
    huge = "x " * 200_000
    c = candidates(huge, exc_type="ValueError")
    assert len(c[0].text) <= normalize.MAX_CANDIDATE


def test_empty_and_whitespace_give_nothing() -> None:
    assert candidates("   \n ", exc_type="ValueError") == []


def test_a_wrapper_fields_rust_type_chooses_the_nested_enum() -> None:
    """``Wrap(#[from] other::OtherError)``: a nested ``Invalid`` is read with OtherError's
    template even when a binding's main ``Error`` enum has a variant of that name too."""
    main = VariantInfo("tracel-ai/burn", "Error", "Invalid", "unit", (), "burn: invalid", False)
    dep = VariantInfo("o/other", "OtherError", "Invalid", "unit", (), "other: invalid", False)
    wrap = VariantInfo("huggingface/candle", "Error", "Wrap", "tuple", (("0", False),), None, True,
                       ("other::OtherError",))
    shown = VariantInfo("huggingface/candle", "Error", "Shown", "tuple", (("0", False),), "shown: {0}", False,
                        ("other::OtherError",))
    table = {"Invalid": [main, dep], "Wrap": [wrap], "Shown": [shown]}
    templates = lambda n: table.get(n, [])  # noqa: E731
    assert candidates("Wrap(Invalid)", exc_type="ValueError", templates=templates)[0].text == "other: invalid"
    assert candidates("Shown(Invalid)", exc_type="ValueError", templates=templates)[0].text == "shown: other: invalid"
    nested = [c for c in candidates("Shown(Invalid)", exc_type="ValueError", templates=templates) if c.variant == "Invalid"]
    assert nested[0].text == "other: invalid" and nested[0].repo_hint == "o/other"
    # without a type, a bare name inside a transparent wrapper prints as itself (it may be data)
    untyped = {**table, "Wrap": [wrap._replace(types=())]}
    assert candidates("Wrap(Invalid)", exc_type="ValueError", templates=lambda n: untyped.get(n, []))[0].text == "Invalid"
