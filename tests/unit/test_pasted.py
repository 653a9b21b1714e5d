"""Issue 17 item 1: the forms users see, on the shipped dataset.

``Error: `` + Debug (a Rust ``fn main() -> Result``), anyhow/eyre ``Caused by:`` chains,
wgpu's validation tree, candle's ``... when loading ..``, ``context: message`` prefixes, a
message quoted inside another exception's repr, a ``_RemoteTraceback`` of a burn panic in a
``ProcessPoolExecutor`` worker (raised for real through pyburn 0.1.7), and templates that
begin or end in whitespace. The texts are the issue's real ones where it gives them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import errhint
from errhint import bindings, engine, pasted

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def shipped_dataset(monkeypatch: pytest.MonkeyPatch):
    """The shipped data only, a fresh singleton, no binding counted as imported (which one
    the test process imported depends on the tests run before)."""
    monkeypatch.delenv("ERRHINT_DATA", raising=False)
    monkeypatch.setattr(bindings, "loaded", lambda: frozenset())
    engine.reset()
    yield
    engine.reset()


@pytest.fixture(scope="module")
def shipped() -> List[Dict]:
    out = []
    for path in sorted((ROOT / "errhint_data" / "records").glob("*.jsonl")):
        out.extend(json.loads(line)["record"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return out


def _patterns(match: errhint.Match, by_id: Dict[str, Dict]) -> List[str]:
    return [by_id[i]["messagePattern"] for i in (match.id,) + tuple(match.also) if i in by_id]


# ---------------------------------------------------------------- layers, as strings


def test_rust_main_prefix_is_peeled_without_losing_weight() -> None:
    assert ('DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")', 1.0) in pasted.layers(
        'Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")'
    )


def test_anyhow_chain_gives_every_cause_innermost_heaviest() -> None:
    text = "Error: Failed to run\n\nCaused by:\n    0: while loading weights\n    1: shape mismatch\n       second line\n\nStack backtrace:\n   0: foo"
    got = dict(pasted.layers(text))
    assert got["shape mismatch\nsecond line"] > got["while loading weights"] > got["Error: Failed to run"]
    causes = [layer for layer in got if "Caused by:" not in layer]  # the whole, unwrapped, keeps it
    assert not any("Stack backtrace" in layer or "0: foo" in layer for layer in causes)


def test_single_cause_and_wgpu_tree() -> None:
    single = dict(pasted.layers("outer context\n\nCaused by:\n    the inner error"))
    assert "the inner error" in single
    tree = "wgpu error: Validation Error\n\nCaused by:\n  In Device::create_bind_group\n    Buffer binding 0 is too large\n"
    got = dict(pasted.layers(tree))
    assert got["Buffer binding 0 is too large"] > got["In Device::create_bind_group"]


def test_wrappers_quotes_and_codes() -> None:
    assert "DriverError(CUDA_ERROR_NOT_FOUND, \"x\")" in dict(pasted.layers('DriverError(CUDA_ERROR_NOT_FOUND, "x") when loading cast_f32_bf16'))
    assert "no metal implementation for foo" in dict(pasted.layers("Metal error no metal implementation for foo"))
    assert pasted.quoted_payload("RuntimeError('a \"b\" \\'c\\'\\n')") == "a \"b\" 'c'\n"
    assert pasted.quoted_payload('Cuda("no cuda implementation for softmax-last-dim")') == "no cuda implementation for softmax-last-dim"
    assert pasted.quoted_payload('Cuda("a" + "b")') is None
    assert pasted.error_code('CublasError(CUBLAS_STATUS_ALLOC_FAILED)') == "CUBLAS_STATUS_ALLOC_FAILED"
    assert pasted.error_code("Shape(foo)") is None


def test_colon_tails_skip_debug_fields_and_values() -> None:
    got = dict(pasted.layers("Backend error: Inference error: bad thing happened"))
    assert got["bad thing happened"] > got["Inference error: bad thing happened"]
    assert pasted.layers('WithBacktrace { inner: Msg("x"), backtrace: <disabled> }') == []
    assert pasted.layers("shape mismatch, lhs: [2, 3], rhs: [4, 5]") == []


def test_plain_text_has_no_layers() -> None:
    assert pasted.layers("unsupported dtype I64 for op matmul") == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("Error: Caused by\n 0:1()\"'\\ when loading Metal error ABC_DEF,")), max_size=200))
def test_layers_never_raise_and_stay_bounded(text: str) -> None:
    got = pasted.layers(text)
    assert len(got) <= pasted.MAX_LAYERS
    assert all(0 < w <= 1.0 and layer.strip() and layer != text.strip() for layer, w in got)


# ---------------------------------------------------------------- the issue's real texts


def test_rust_main_driver_error_out_of_memory() -> None:
    got = errhint.explain('Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")')
    assert got and got[0].record.repo == "coreylowman/cudarc"
    assert "CUDA_ERROR_OUT_OF_MEMORY" in got[0].record.message_pattern
    assert got[0].kind == "full" and got[0].score >= 0.7


def test_when_loading_innermost_leads_and_the_wrapper_follows() -> None:
    got = errhint.explain('Error: DriverError(CUDA_ERROR_NOT_FOUND, "named symbol not found") when loading cast_f32_bf16')
    assert [m.record.repo for m in got][:2] == ["coreylowman/cudarc", "huggingface/candle"]
    assert "CUDA_ERROR_NOT_FOUND" in got[0].record.message_pattern
    assert "when loading" in got[1].record.error_message
    assert got[1].captures.get("module_name") == "cast_f32_bf16"


def test_anyhow_chain_matches_the_cause_with_its_values() -> None:
    got = errhint.explain("Error: Failed to load model\n\nCaused by:\n    0: shape mismatch in matmul, lhs: [2, 3], rhs: [4, 5]")
    assert got and got[0].record.repo == "huggingface/candle" and got[0].kind == "full"
    assert got[0].captures["lhs"] == "[2, 3]" and got[0].captures["rhs"] == "[4, 5]"
    assert got[0].message == "shape mismatch in matmul, lhs: [2, 3], rhs: [4, 5]"


@pytest.mark.parametrize("text", [
    "RuntimeError('layer 3 failed: UnsupportedDTypeForOp(I64, \"matmul\")')",  # Python's repr
    'RuntimeError("layer 3 failed: UnsupportedDTypeForOp(I64, \\"matmul\\")")',  # the issue's spelling
    'layer 3 failed: UnsupportedDTypeForOp(I64, "matmul")',
])
def test_a_candle_error_inside_another_exceptions_text(text: str) -> None:
    got = errhint.explain(text)
    assert got and got[0].message == "unsupported dtype I64 for op matmul"
    assert got[0].captures.get("f0") == "I64" and got[0].captures.get("f1") == "matmul"


def test_eyre_and_autotune_prefixes_lead_to_the_inner_message() -> None:
    inner = "shape mismatch in matmul, lhs: [7, 9], rhs: [4, 5]"
    for text in (f"Backend error: Inference error: {inner}", f"Should run when selected by autotune.: {inner}"):
        got = errhint.explain(text)
        assert got and got[0].message == inner and got[0].kind == "full", text


def test_wgpu_validation_chain_puts_the_innermost_error_first(shipped: List[Dict]) -> None:
    by_id = {r["id"]: r for r in shipped}
    text = (
        "wgpu error: Validation Error\n\nCaused by:\n  In Device::create_bind_group\n"
        "    Buffer binding 0 range 268435456 exceeds `max_*_buffer_binding_size` limit 134217728\n"
    )
    got = errhint.explain(text)
    assert got and got[0].record.repo == "gfx-rs/wgpu"
    assert "exceeds" in got[0].record.error_message and got[0].kind == "full"
    assert got[0].captures.get("given") == "268435456" and got[0].captures.get("limit") == "134217728"
    assert all("wgpu error" not in p for p in _patterns(got[0], by_id))


# ---------------------------------------------------------------- whitespace at a template's edges


def test_every_template_with_edge_whitespace_finds_its_own_text(shipped: List[Dict]) -> None:
    from builder.template import parse_format, synthesize

    edged = [r for r in shipped if r["errorMessage"] != r["errorMessage"].strip()]
    assert len(edged) >= 11
    by_id = {r["id"]: r for r in shipped}
    for rec in edged:
        example = synthesize(parse_format(rec["errorMessage"]))
        for text in (example, example.strip()):
            got = errhint.explain(text, min_score=0.0)
            assert any(rec["messagePattern"] in _patterns(m, by_id) for m in got[:3]), (rec["id"], text)


def test_manual_seed_text_of_the_issue() -> None:
    got = errhint.explain("Manual seed not supported by Candle. ")
    assert got and got[0].record.error_message == "Manual seed not supported by Candle. "


# ---------------------------------------------------------------- a burn panic in a worker process

POOL = textwrap.dedent(
    """
    import concurrent.futures as cf
    import errhint

    def work(_):
        import pyburn
        tensor = pyburn.ndarray.ndarray_tensor.TensorPy
        return tensor.ones([2, 3], 2).add(tensor.ones([3, 2], 2))

    if __name__ == "__main__":
        try:
            with cf.ProcessPoolExecutor(1) as ex:
                ex.submit(work, 0).result()
        except Exception as exc:
            import traceback
            print("TYPE", type(exc).__name__, type(exc.__cause__).__name__)
            for m in errhint.lookup(exc):
                print("HIT", m.record.repo, m.captures.get("op"), m.message)
            print("PRINTED")
            print("".join(traceback.format_exception(exc)), end="")
    """
)


@pytest.mark.integration
@pytest.mark.parametrize("backtrace", ["0", "1"])
def test_burn_panic_in_a_process_pool_worker(tmp_path: Path, backtrace: str) -> None:
    if importlib.util.find_spec("pyburn") is None:
        pytest.skip("pyburn is not installed")
    script = tmp_path / "pool.py"
    script.write_text(POOL, encoding="utf-8")
    env = dict(os.environ, RUST_BACKTRACE=backtrace)
    env.pop("ERRHINT_DATA", None)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    lines = done.stdout.splitlines()
    assert any(line.startswith("TYPE ") and "RemoteTraceback" in line for line in lines), done.stdout + done.stderr
    hits = [line for line in lines if line.startswith("HIT ")]
    assert hits and hits[0].startswith("HIT tracel-ai/burn Add "), done.stdout
    assert "incompatible shapes" in hits[0]
    # the same error pasted: the traceback the parent prints (the worker's report inside it)
    printed = done.stdout.split("PRINTED\n", 1)[1]
    assert "_RemoteTraceback" in printed and "Tensor Operation Error" in printed
    got = errhint.explain(printed)
    assert got and got[0].record.repo == "tracel-ai/burn" and got[0].captures.get("op") == "Add"


# ---------------------------------------------------------------- item 6: the dependencies users hit


@pytest.mark.parametrize(
    "text, code",
    [
        # candle 0.4.2's binding shows the Debug form of the wrapper, with or without a backtrace
        ('Cuda(Load { cuda: DriverError(CUDA_ERROR_NOT_FOUND, "named symbol not found"), module_name: "cast_f32_bf16" })', "CUDA_ERROR_NOT_FOUND"),
        ('WithBacktrace { inner: Cuda(Load { cuda: DriverError(CUDA_ERROR_NOT_FOUND, "named symbol not found"), '
         'module_name: "cast_f32_bf16" }), backtrace: Backtrace [] }', "CUDA_ERROR_NOT_FOUND"),
        ('Error: Cuda(Cuda(DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")))', "CUDA_ERROR_OUT_OF_MEMORY"),
        ("Cuda(Cublas(CublasError(CUBLAS_STATUS_NOT_INITIALIZED)))", "CUBLAS_STATUS_NOT_INITIALIZED"),
    ],
)
def test_cudarc_errors_inside_candles_wrappers_lead_with_their_code(text: str, code: str) -> None:
    got = errhint.explain(text)
    assert got and got[0].record.repo == "coreylowman/cudarc" and got[0].kind == "full"
    assert code in got[0].record.message_pattern
    assert got[0].message.endswith(")") and code in got[0].message  # shown as the Debug form it came in


def test_the_candle_wrapper_follows_the_cuda_error_with_the_module_name() -> None:
    got = errhint.explain('Cuda(Load { cuda: DriverError(CUDA_ERROR_NOT_FOUND, "named symbol not found"), module_name: "cast_f32_bf16" })')
    wrapper = [m for m in got if m.record.repo == "huggingface/candle"]
    assert wrapper and "when loading" in wrapper[0].record.error_message
    assert wrapper[0].captures.get("module_name") == "cast_f32_bf16"
    assert wrapper[0].score < got[0].score


def test_a_cubecl_matmul_error_unwrapped_by_autotune_leads() -> None:
    """What burn 0.18's matmul autotune prints when a kernel is unavailable: burn-cubecl turns
    cubecl-matmul's error into a string with `format!("{err:?}")` (its hand-written Debug, which
    nests the availability error's own Debug), cubecl-runtime wraps it in
    `AutotuneError::Unknown` and `expect`s it."""
    text = (
        "thread '<unnamed>' panicked at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/"
        "cubecl-runtime-0.6.0/src/tune/local.rs:155:26:\nShould run when selected by autotune.: "
        'Unknown("Unable to launch matmul because a required feature is unavailable: Cmma on inputs '
        'Float(F16) and outputs Float(F32) with shape m=16, n=16, k=16 not supported.\\n\\n")'
    )
    got = errhint.explain(text, exc_type="pyo3_runtime.PanicException")
    assert got[0].record.repo == "tracel-ai/cubecl" and "cubecl-matmul" in got[0].record.file_path
    assert got[0].record.error_message.startswith("Cmma on inputs")
    assert any("autotune" in m.record.error_message for m in got[1:])  # the wrapper, after it


def test_gguf_value_of_another_type_printed_by_a_rust_main() -> None:
    got = errhint.explain("Error: not a f64 F32(1e-5)")
    assert got and got[0].record.repo == "huggingface/candle"
    assert got[0].record.error_message == "not a f64 {v:?}" and got[0].kind == "full"
    assert got[0].captures["v"] == "F32(1e-5)"


@pytest.mark.parametrize(
    "name",
    ["pyburn_0.1.7_process_pool_panic.txt", "pyburn_0.1.7_multiprocessing_pool_panic.txt"],
)
def test_a_worker_panic_pasted_from_the_terminal(name: str) -> None:
    """What a ProcessPoolExecutor and a multiprocessing.Pool print for a burn panic in a worker
    (pyburn 0.1.7, RUST_BACKTRACE=0, captured from the terminal)."""
    text = (ROOT / "tests" / "fixtures" / "texts" / name).read_text(encoding="utf-8")
    got = errhint.explain(text)
    assert got and got[0].record.repo == "tracel-ai/burn" and got[0].captures.get("op") == "Add"
    assert "incompatible shapes" in got[0].message


@pytest.mark.parametrize("text", [
    'Cuda("no cuda implementation for softmax-last-dim")',          # candle < 0.8.2 Debug form
    "Error: no cuda implementation for rms-norm",                   # candle >= 0.8.2, Rust main
    'WithBacktrace { inner: Cuda("no cuda implementation for rotary-emb"), backtrace: <disabled> }',
])
def test_a_custom_op_without_a_cuda_kernel_is_recognised(text: str) -> None:
    """candle's custom-op default `cuda_fwd` (custom_op.rs, `Error::Cuda(format!(..).into())`,
    a site the miner does not see through the transparent variant) has a seed record."""
    top = errhint.explain(text)[0]
    assert top.record.errorMessage == "no cuda implementation for {op}"
    assert top.captures["op"] == text.split("for ")[1].split('"')[0]


@pytest.mark.parametrize("text", [
    'Metal(Message("no metal implementation for softmax-last-dim"))',          # candle < 0.8.2 Debug form
    "Error: Metal error no metal implementation for rms-norm",                 # candle >= 0.8.2, Rust main
    'WithBacktrace { inner: Metal(Message("no metal implementation for rotary-emb")), backtrace: <disabled> }',
])
def test_a_custom_op_without_a_metal_kernel_is_recognised(text: str) -> None:
    """The same default body for `metal_fwd` (`Error::Metal(format!(..).into())`): its mined
    record, in the Display form, the Debug form and a Rust main's `Error: ` line."""
    top = errhint.explain(text)[0]
    assert top.record.errorMessage == "Metal error no metal implementation for {}"
    assert top.captures["arg0"] == text.split("for ")[1].split('"')[0]
