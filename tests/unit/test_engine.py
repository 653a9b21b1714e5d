from __future__ import annotations

import abc
import datetime
import decimal
import json
import math
import os
import re
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

from engine_support import BURN, CANDLE, SAFETENSORS, engine_dataset, fixture_records, record, records  # noqa: F401
from errhint import dataset as dataset_module
from errhint import bindings, engine, indexfile, loaded_index, regexrun
from errhint.match import Match

ROOT = Path(__file__).resolve().parents[2]
TEXTS = Path(__file__).resolve().parents[1] / "fixtures" / "texts"


def ids(matches: List[Match]) -> List[str]:
    return [m.record.id for m in matches]


def by_template(template: str) -> str:
    return next(r["id"] for r in fixture_records() if r["errorMessage"] == template)


# ---------------------------------------------------------------- candle Debug and Display forms


def test_withbacktrace_debug_form(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    raw = (TEXTS / "candle_0.4.2_withbacktrace.txt").read_text()
    matches = engine.lookup(ValueError(raw))
    assert ids(matches)[:1] == [by_template("unsupported dtype {0:?} for op matmul")]
    top = matches[0]
    assert top.message == "unsupported dtype I64 for op matmul"
    assert top.captures["f0"] == "I64" and top.captures["dtype"] == "I64" and top.captures["op"] == "matmul"
    assert "Cast the I64 tensor to F32 before matmul" in top.render("brief")
    assert 0.0 <= top.score <= 1.0


def test_one_hint_per_clean_message(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    """The same message from two records (the enum's template and a specialised construction)
    is one hint; the other record is remembered as "also raised at"."""
    matches = engine.lookup(ValueError('UnsupportedDTypeForOp(I64, "matmul")'), min_score=0.0)
    messages = [m.message for m in matches]
    assert len(messages) == len(set(messages))
    top = matches[0]
    assert top.also == (by_template("unsupported dtype {0:?} for op {1}"),)
    assert top.to_dict()["alsoRaisedAt"] == list(top.also)
    assert f"errhint show {top.also[0]}" in top.render("full")
    assert top.also[0] not in top.render("brief")


def test_debug_and_display_forms_give_the_same_match(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    debug = engine.lookup(ValueError('ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [4, 2], op: "matmul" }'))
    display = engine.lookup(ValueError(
        "shape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]\n   0: candle_core::error::Error::bt\n             at ./candle-core/src/error.rs:262:25\n"
    ))
    assert ids(debug)[:1] == ids(display)[:1] == [by_template("shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}")]
    assert debug[0].message == display[0].message == "shape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]"
    assert dict(debug[0].captures) == {"op": "matmul", "lhs": "[2, 3]", "rhs": "[4, 2]"}


def test_nested_dependency_variant_matches_the_dependency_record(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    matches = engine.lookup(ValueError('SafeTensor(InvalidOffset("w"))'))
    assert matches and matches[0].record.repo == SAFETENSORS
    assert matches[0].message == "invalid offset for tensor `w`" and matches[0].captures["name"] == "w"


def test_unit_variant_and_msg(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    assert ids(engine.lookup(ValueError("NotCompiledWithCudaSupport")))[:1] == [
        by_template("the candle crate has not been built with cuda support")
    ]
    msg = 'WithBacktrace { inner: Msg("kernel-size (5, 5) is larger than the input size 2,2"), backtrace: <disabled> }'
    top = engine.lookup(ValueError(msg))[0]
    assert top.record.error_message.startswith("kernel-size")
    assert dict(top.captures) == {"kernel_size": "(5, 5)", "h": "2", "w": "2"}


def test_lazy_group_cut_inside_a_debug_value_is_retried(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    msg = 'Msg("quantized tensor must have their last dim divisible by block size [2, 3] 32")'
    top = engine.lookup(ValueError(msg))[0]
    assert top.captures["shape"] == "[2, 3]" and top.captures["arg0"] == "32"


def test_another_bindings_variant_template_is_not_used(engine_dataset, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from errhint import rank

    text = 'Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })'
    monkeypatch.setattr(bindings, "loaded", lambda: frozenset({"candle"}))
    assert all(m.record.repo != BURN for m in engine.lookup(ValueError(text)))
    monkeypatch.setattr(bindings, "loaded", lambda: frozenset({"pyburn"}))
    top = engine.lookup(ValueError(text))[0]  # burn's Io variant is plausible for a pyburn user
    assert top.record.repo == BURN and top.message == "IO error: No such file or directory (os error 2)"


def test_another_bindings_records_are_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """burn's ``unsupported dtype {other}`` also reads candle's message; when the error can only
    come from candle (the one binding imported) it is not a match at any score, and the other
    way round it is."""
    from errhint import rank

    candle = record(CANDLE, "unsupported dtype {0:?} for op {1}", r"unsupported dtype (?P<f0>.+?) for op (?P<f1>[^\n]+)")
    burn = record(BURN, "unsupported dtype {other}", r"unsupported dtype (?P<other>[^\n]+)", site_kind="string_error")
    engine.use(engine.Dataset([loaded_index.LoadedIndex(indexfile.build_index([candle, burn]))], families={}))
    try:
        text = "unsupported dtype I64 for op matmul"

        def seen() -> List[str]:  # every record a lookup names: matches, then their "also raised at"
            got = engine.explain(text, exc_type="ValueError", min_score=0.0)
            return [m.record.id for m in got] + [i for m in got for i in m.also]

        monkeypatch.setattr(bindings, "loaded", lambda: frozenset())
        assert seen() == [candle["id"], burn["id"]]  # unknown origin: burn's reading is kept, ranked below
        monkeypatch.setattr(bindings, "loaded", lambda: frozenset({"candle"}))
        assert seen() == [candle["id"]]
        monkeypatch.setattr(bindings, "loaded", lambda: frozenset({"pyburn"}))
        assert seen() == [burn["id"]]
    finally:
        engine.reset()


def test_partial_matches_are_weighed_by_the_literal_text_they_explain(monkeypatch: pytest.MonkeyPatch) -> None:
    # the builder's two forms of a leading placeholder; neither may outrank the error code
    generic = record("gfx-rs/wgpu", "{0} is invalid", r"(?m)^(?P<f0>[^\n]+?) is invalid", site_kind="error_variant")
    behind = record("gfx-rs/wgpu", "{0} is not valid", r"(?<=(?:^|\n)(?P<f0>[^\n]{1,1024}?)) is invalid", site_kind="error_variant")
    code = record("coreylowman/cudarc", "CUDA_ERROR_INVALID_IMAGE", r"\bCUDA_ERROR_INVALID_IMAGE\b", site_kind="error_code")
    engine.use(engine.Dataset([loaded_index.LoadedIndex(indexfile.build_index([generic, behind, code]))], families={}))
    try:
        got = engine.explain('DriverError(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid")', min_score=0.0)
        assert [m.record.repo for m in got][:1] == ["coreylowman/cudarc"]
        # the code is the whole error (``pasted.error_code``); the wgpu templates explain a part
        assert [m.kind for m in got] == ["full"] + ["partial"] * (len(got) - 1)
    finally:
        engine.reset()


# ---------------------------------------------------------------- panics and burn reports

PanicException: Any
try:  # the real class when pyo3 is importable, else a stand-in with the same name and base
    from pyo3_runtime import PanicException  # type: ignore[no-redef]
except ImportError:  # pragma: no cover
    PanicException = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})


def test_panic_prefix_and_error_type(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    top = engine.lookup(PanicException("not implemented: Unsupported precision for fusion"))[0]
    assert top.record.error_message == "Unsupported precision for fusion"
    assert top.message == "Unsupported precision for fusion"
    as_value_error = engine.lookup(ValueError("not implemented: Unsupported precision for fusion"))
    assert not as_value_error or as_value_error[0].score < top.score


def test_two_reasons_give_two_hints(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    report = (
        "=== Tensor Operation Error ===\n  Operation: 'Mean'\n  Reason:\n"
        "    1. Given dimensions differ from the tensor rank. Tensor rank: '3', given dimensions: '[2, 3]'. \n"
        "    2. Can't aggregate a tensor with (2) dimensions on axis (5) \n"
    )
    matches = engine.lookup(PanicException(report))
    assert sorted(m.record.error_message for m in matches[:2]) == [
        "Can't aggregate a tensor with ({D}) dimensions on axis ({dim})",
        "Given dimensions differ from the tensor rank.",
    ]
    assert all(m.captures["op"] == "Mean" for m in matches[:2])
    agg = [m for m in matches if m.record.error_message.startswith("Can't")][0]
    assert agg.message == "Mean: Can't aggregate a tensor with (2) dimensions on axis (5)"
    assert "Use an axis below 2 for Mean" in agg.render("brief")


def test_assert_eq_and_expect_panics(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    top = engine.lookup(PanicException("assertion `left == right` failed: Batch size mismatch between inputs\n  left: 2\n right: 3"))[0]
    assert top.record.site_kind == "assert_eq" and top.captures["left"] == "2"
    text = 'Should be able to load the record file: FileNotFound("/tmp/m.mpk")'
    got = engine.lookup(PanicException(text))
    assert {m.record.error_message for m in got} >= {"Should be able to load the record file", "FileNotFound({0:?})"}


def test_unwrap_of_a_candle_error(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    text = 'called `Result::unwrap()` on an `Err` value: UnsupportedDTypeForOp(U8, "conv1d")'
    top = engine.lookup(PanicException(text))[0]
    assert top.record.id == by_template("unsupported dtype {0:?} for op {1}")
    assert top.captures["op"] == "conv1d"


# ---------------------------------------------------------------- exception graph


def test_match_found_in_cause_context_and_group(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    try:
        try:
            raise ValueError("NotCompiledWithCudaSupport")
        except ValueError as e:
            raise RuntimeError("could not start training") from e
    except RuntimeError as outer:
        assert ids(engine.lookup(outer))[:1] == [by_template("the candle crate has not been built with cuda support")]
    if sys.version_info >= (3, 11):
        group = ExceptionGroup("batch", [KeyError("k"), ValueError("NotCompiledWithCudaSupport")])  # noqa: F821
        assert engine.lookup(group)


def test_own_notes_are_not_matched_again(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    exc = KeyError("k")
    exc.__notes__ = ["errhint: the candle crate has not been built with cuda support (huggingface/candle)"]
    assert engine.lookup(exc) == []
    text = "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nKeyError: 'k'\nerrhint: the candle crate has not been built with cuda support (huggingface/candle)\n"
    assert engine.explain(text) == []


# ---------------------------------------------------------------- explain()


def test_explain_pasted_traceback_and_bare_message(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    pasted = (TEXTS / "burn_0.18_add_traceback.txt").read_text()
    top = engine.explain(pasted)[0]
    assert top.record.repo == BURN and top.captures["op"] == "Add"
    assert engine.explain("shape mismatch in cat, lhs: [1], rhs: [2]")[0].captures["op"] == "cat"
    assert engine.explain("no unary function for u8", exc_type="pyo3_runtime.PanicException")[0].captures["arg0"] == "u8"


# ---------------------------------------------------------------- options


def test_limit_min_score_and_repos(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    raw = (TEXTS / "candle_0.4.2_withbacktrace.txt").read_text()
    assert len(engine.lookup(ValueError(raw), limit=1)) == 1
    assert engine.lookup(ValueError(raw), min_score=1.0) == []
    assert engine.lookup(ValueError(raw), repos=[BURN]) == []
    assert engine.lookup(ValueError('SafeTensor(InvalidOffset("w"))'), repos=[CANDLE])  # pulled in by candle


def test_configured_options_apply(engine_dataset, clean_errhint: None) -> None:  # type: ignore[no-untyped-def]
    from errhint import config

    report = PanicException(
        "=== Tensor Operation Error ===\n  Operation: 'Mean'\n  Reason:\n"
        "    1. Given dimensions differ from the tensor rank. Tensor rank: '3', given dimensions: '[2, 3]'. \n"
        "    2. Can't aggregate a tensor with (2) dimensions on axis (5) \n"
    )
    assert len(engine.lookup(report)) >= 2
    config.configure(limit=1)
    assert len(engine.lookup(report)) == 1
    assert len(engine.lookup(report, limit=2)) == 2  # a call's argument beats the option


def test_lookup_never_raises(engine_dataset, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    class Broken(Exception):
        def __str__(self) -> str:
            raise RuntimeError("boom")

        @property
        def __notes__(self) -> List[str]:  # type: ignore[override]
            raise RuntimeError("boom")

    assert engine.lookup(Broken()) == []
    monkeypatch.setattr(engine, "match_items", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("matching failed")))
    assert engine.lookup(ValueError("x")) == []
    assert engine.explain("x") == []
    monkeypatch.setenv("ERRHINT_DEBUG", "1")
    with pytest.raises(RuntimeError):
        engine.lookup(ValueError("x"))


def test_a_dataset_that_cannot_load_raises_dataset_error(monkeypatch: pytest.MonkeyPatch, clean_errhint: None) -> None:
    """Not [] (nobody would learn why no hint came): the hooks contain the error and say so."""
    from errhint.data import DatasetError

    monkeypatch.setattr(dataset_module, "load", lambda paths=(): (_ for _ in ()).throw(RuntimeError("load failed")))
    with pytest.raises(DatasetError, match="load failed"):
        engine.lookup(ValueError("x"))
    with pytest.raises(DatasetError, match="load failed"):
        engine.explain("x")


def test_a_malformed_user_line_is_warned_and_the_rest_hints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_errhint: None, capsys: pytest.CaptureFixture) -> None:
    import errhint

    bad = tmp_path / "mine.jsonl"
    good = record(CANDLE, "the candle crate has not been built with cuda support",
                  r"the candle crate has not been built with cuda support", id="00000000000000aa")
    bad.write_text(json.dumps({"record": good}) + "\n" + json.dumps({"record": dict(good, id="00000000000000ab", repo=3)}) + "\n")
    monkeypatch.setenv("ERRHINT_DATA", str(bad))
    got = errhint.lookup(ValueError("the candle crate has not been built with cuda support"))
    assert got and got[0].record.id == "00000000000000aa"  # the good line still hints
    err = capsys.readouterr().err
    assert f"{bad}:2: record 00000000000000ab: field repo" in err and err.count("\n") == 1


def test_threads_share_one_load(monkeypatch: pytest.MonkeyPatch, clean_errhint: None) -> None:
    calls = []
    built = engine.Dataset([loaded_index.LoadedIndex(indexfile.build_index(fixture_records()))], families={})

    def slow_load(paths: Any = ()) -> engine.Dataset:
        calls.append(1)
        threading.Event().wait(0.05)
        return built

    monkeypatch.setattr(dataset_module, "load", slow_load)
    results: List[List[str]] = []
    threads = [threading.Thread(target=lambda: results.append(ids(engine.lookup(ValueError("NotCompiledWithCudaSupport"))))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(results) == 6 and all(r == results[0] and r for r in results)


def test_user_dataset_replaces_shipped_record_by_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_errhint: None) -> None:
    from errhint import data

    shipped = fixture_records()
    lines = [json.dumps({"record": r, "datasetVersion": "t"}) + "\n" for r in shipped]
    blob = "".join(lines).encode()
    locations, offset = [], 0
    for line in lines:
        locations.append((0, offset, len(line.encode())))
        offset += len(line.encode())
    monkeypatch.setattr(data, "shipped_index", lambda: indexfile.build_index(shipped, files=["records/t.jsonl"], locations=locations))
    monkeypatch.setattr(data, "read_shipped_line", lambda f, o, n: json.loads(blob[o : o + n]))
    target = next(r for r in shipped if r["errorMessage"].startswith("the candle crate"))
    override = dict(target, documentation="Overridden by the user dataset.", messagePattern=r"the candle crate has not been built with cuda support")
    from errhint import userdata

    def user(recs: List[Dict[str, Any]]) -> Any:  # what userdata.user_index gives for these records
        return lambda paths=(): (loaded_index.LoadedIndex(indexfile.build_index(recs), user=True), frozenset(r["id"] for r in recs))

    monkeypatch.setattr(userdata, "user_index", user([override]))
    engine.reset()
    top = engine.lookup(ValueError("NotCompiledWithCudaSupport"))[0]
    assert top.record.id == target["id"] and top.record.documentation == "Overridden by the user dataset."
    other = engine.lookup(ValueError('ShapeMismatchBinaryOp { lhs: [1], rhs: [2], op: "add" }'))[0]
    assert other.record.documentation.startswith("Raised at")  # read from the shipped bytes by offset

    # a user record with its own id but a shipped template is shown instead of the shipped one
    same_template = record(CANDLE, "user copy", target["messagePattern"], id="00000000000000ff")
    monkeypatch.setattr(userdata, "user_index", user([same_template]))
    engine.reset()
    got = engine.lookup(ValueError("NotCompiledWithCudaSupport"))
    assert [m.record.id for m in got] == ["00000000000000ff"]
    engine.reset()


# ---------------------------------------------------------------- no false hints


class _Abstract(abc.ABC):
    @abc.abstractmethod
    def f(self) -> None: ...


def _recurse(n: int = 0) -> int:
    return _recurse(n + 1)


ORDINARY: Dict[str, Callable[[], Any]] = {
    "key-error": lambda: {}["missing"],
    "key-error-str": lambda: dict(a=1)["shape"],
    "file-not-found": lambda: open("/nonexistent/dir/model.safetensors"),
    "zero-division": lambda: 1 / 0,
    "index-error": lambda: [][3],
    "tuple-index": lambda: ()[0],
    "int-parse": lambda: int("abc"),
    "attribute-none": lambda: None.shape,  # type: ignore[attr-defined]
    "name-error": lambda: eval("undefined_tensor_name"),
    "str-plus-int": lambda: "a" + 1,  # type: ignore[operator]
    "json-decode": lambda: json.loads("{bad json"),
    "json-empty": lambda: json.loads(""),
    "module-not-found": lambda: __import__("nonexistent_module_xyz"),
    "math-domain": lambda: math.sqrt(-1),
    "stop-iteration": lambda: next(iter([])),
    "listdir-missing": lambda: os.listdir("/nonexistent_dir_for_errhint_tests"),
    "is-a-directory": lambda: open("/"),
    "overflow-inf": lambda: int(float("inf")),
    "substring": lambda: "abc".index("z"),
    "list-remove": lambda: [1, 2].remove(5),
    "struct-unpack": lambda: struct.unpack("<I", b"ab"),
    "strptime": lambda: datetime.datetime.strptime("x", "%Y"),
    "re-error": lambda: re.compile("("),
    "recursion": lambda: _recurse(),
    "assert-msg": lambda: exec("assert 2 == 3, 'expected 3 items, got 2'"),
    "subprocess-missing": lambda: subprocess.run(["/nonexistent/binary"]),
    "sort-mixed": lambda: sorted([1, "a"]),
    "decimal": lambda: decimal.Decimal("abc"),
    "unicode-decode": lambda: b"\xff".decode("utf-8"),
    "abstract": lambda: _Abstract(),  # type: ignore[abstract]
    "format-index": lambda: "{} {}".format(1),
    "zip-strict": lambda: list(zip([1], [1, 2], strict=True)) if sys.version_info >= (3, 10) else 1 / 0,
    "bytes-negative": lambda: bytes(-1),
    "dimension-like": lambda: (_ for _ in ()).throw(ValueError("expected 2 dimensions, got 3")),
    "shape-like": lambda: (_ for _ in ()).throw(RuntimeError("shape mismatch")),
}


def _pyo3_cases() -> Dict[str, Callable[[], Any]]:
    """pyo3's own argument-conversion TypeErrors from the real bindings (when installed)."""
    cases: Dict[str, Callable[[], Any]] = {}
    try:
        import candle
    except Exception:  # pragma: no cover
        candle = None
    if candle is not None:
        cases["candle-shape-float"] = lambda: candle.ones(2.5)
        cases["candle-missing-arg"] = lambda: candle.Tensor([1.0]).matmul()
        cases["candle-arg-type"] = lambda: candle.Tensor([1.0]).narrow("a", 0, 1)
        cases["candle-unexpected-kwarg"] = lambda: candle.ones((2,), nonsense=1)
    try:
        import pyburn
    except Exception:  # pragma: no cover
        pyburn = None
    if pyburn is not None:
        tensor = pyburn.ndarray.ndarray_tensor.TensorPy
        cases["pyburn-missing-arg"] = lambda: tensor.zeros([2, 3])
        cases["pyburn-shape-str"] = lambda: tensor.zeros("x", 2)
        cases["pyburn-negative"] = lambda: tensor.zeros([2, -1], 2)
    return cases


def _raise(fn: Callable[[], Any]) -> BaseException:
    try:
        fn()
    except BaseException as e:  # noqa: B902
        return e
    raise AssertionError("did not raise")


ALL_ORDINARY = {**ORDINARY, **_pyo3_cases()}


def test_at_least_thirty_ordinary_exceptions() -> None:
    assert len(ORDINARY) >= 30
    kinds = {type(_raise(fn)).__name__ for fn in ORDINARY.values()}
    assert len(kinds) >= 15


@pytest.mark.parametrize("name", sorted(ALL_ORDINARY))
def test_ordinary_exceptions_get_no_hint_from_fixtures(name: str, engine_dataset) -> None:  # type: ignore[no-untyped-def]
    exc = _raise(ALL_ORDINARY[name])
    assert engine.lookup(exc) == [], (name, str(exc))
    assert engine.explain(f"{type(exc).__name__}: {exc}") == []


@pytest.mark.parametrize("name", sorted(ALL_ORDINARY))
def test_ordinary_exceptions_get_no_hint_from_shipped_data(name: str, clean_errhint: None) -> None:
    from errhint import data

    if data.shipped_index() is None:
        pytest.skip("no shipped dataset (errhint_data/index.json) yet")
    exc = _raise(ALL_ORDINARY[name])
    got = engine.lookup(exc)
    assert got == [], (name, str(exc), [(m.record.error_message, m.score) for m in got])


def _negatives() -> List[str]:
    path = ROOT / "curation" / "negatives.txt"
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [ln.replace("\\n", "\n").replace("\\t", "\t") for ln in lines if ln.strip() and not ln.startswith("#")]


def test_unrelated_messages_get_no_hint_from_shipped_data(clean_errhint: None) -> None:
    """The builder's list of unrelated Python/Rust messages, through the whole engine."""
    from errhint import data

    negatives = _negatives()
    if data.shipped_index() is None or not negatives:
        pytest.skip("no shipped dataset or no curation/negatives.txt")
    assert len(negatives) >= 200
    hinted = {text: [m.record.error_message for m in engine.explain(text)] for text in negatives}
    assert {t: h for t, h in hinted.items() if h} == {}


# ---------------------------------------------------------------- cold start


def _write_package(root: Path, recs: List[Dict[str, Any]]) -> None:
    pkg = root / "errhint_data"
    (pkg / "records").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    lines = [json.dumps({"record": r, "datasetVersion": "t"}, sort_keys=True) + "\n" for r in recs]
    locations, offset = [], 0
    for line in lines:
        locations.append((0, offset, len(line.encode())))
        offset += len(line.encode())
    (pkg / "records" / "t.jsonl").write_text("".join(lines))
    idx = indexfile.build_index(recs, files=["records/t.jsonl"], locations=locations, dataset_version="t")
    (pkg / "index.json").write_text(json.dumps(idx, separators=(",", ":")))
    (pkg / "families.json").write_text(json.dumps({"families": {}}))
    (pkg / "manifest.json").write_text(json.dumps({"datasetVersion": "t", "schemaVersion": 2, "files": {}}))


COLD = r"""
import sys, json
import errhint
exc = ValueError('WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: <disabled> }')
m = errhint.lookup(exc)
first = m[0]
doc = first.record.documentation
print(json.dumps({"pydantic": "pydantic" in sys.modules, "regex": "regex" in sys.modules,
                  "n": len(m), "id": first.record.id, "doc": doc, "message": first.message}))
"""


def test_cold_lookup_on_shipped_layout_imports_no_pydantic(tmp_path: Path) -> None:
    recs = fixture_records()
    _write_package(tmp_path, recs)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT / "src")])
    out = subprocess.run([sys.executable, "-c", COLD], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["pydantic"] is False and got["regex"] is True
    assert got["id"] == by_template("unsupported dtype {0:?} for op matmul")
    assert got["doc"].startswith("Raised at") and got["message"] == "unsupported dtype I64 for op matmul"


@pytest.mark.parametrize("rust_backtrace", ["0", "1"])
def test_real_candle_error_in_fresh_process(tmp_path: Path, rust_backtrace: str) -> None:
    pytest.importorskip("candle")
    _write_package(tmp_path, fixture_records())
    code = (
        "import json, candle, errhint\n"
        "try:\n"
        "    candle.ones((2, 3), dtype=candle.i64).matmul(candle.ones((3, 2), dtype=candle.i64))\n"
        "except BaseException as e:\n"
        "    m = errhint.lookup(e)\n"
        "    print(json.dumps({'text': str(e)[:40], 'message': m[0].message, 'caps': dict(m[0].captures)}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT")}
    env.update(PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT / "src")]), RUST_BACKTRACE=rust_backtrace)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["text"].startswith("WithBacktrace" if rust_backtrace == "1" else "UnsupportedDTypeForOp")
    assert got["message"] == "unsupported dtype I64 for op matmul"
    assert got["caps"]["f0"] == "I64" and got["caps"]["dtype"] == "I64"


def test_real_pyburn_panic_in_process(engine_dataset) -> None:  # type: ignore[no-untyped-def]
    pyburn = pytest.importorskip("pyburn")
    tensor = pyburn.ndarray.ndarray_tensor.TensorPy
    exc = _raise(lambda: tensor.zeros([2, 3], 2).sum_dim(5))
    assert type(exc).__name__ == "PanicException"
    top = engine.lookup(exc)[0]
    assert top.record.repo == BURN and top.captures["op"] == "Sum" and top.captures["dim"] == "5"


def test_key_error_message_matches_its_record(clean_errhint: None) -> None:
    """candle's ``Module.__setattr__`` raises ``KeyError('module name can\\'t contain ".", ...')``."""
    from errhint import data

    if data.shipped_index() is None:
        pytest.skip("the shipped dataset is not built")
    got = engine.lookup(KeyError('module name can\'t contain ".", got: a.b'))
    assert got and got[0].record.id == "a9660d1f1f5f0f47" and got[0].captures["name"] == "a.b"


def _use(recs: List[Dict[str, Any]]) -> None:
    engine.use(engine.Dataset([loaded_index.LoadedIndex(indexfile.build_index(recs))], families={}))


def test_a_specialised_construction_needs_the_debug_fields_it_fixes() -> None:
    """A Debug form no template rebuilds falls back to the records of its variant; the
    scatter-add construction is not one of them when the value says ``op: "matmul"``."""
    from engine_support import variant

    shape = variant("Error", "ShapeMismatchBinaryOp", "struct", [("lhs", True), ("rhs", True), ("op", False)],
                    "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}")
    enum_rec = record(CANDLE, "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}",
                      r"shape mismatch in (?P<op>.+?), lhs: (?P<lhs>.+?), rhs: (?P<rhs>[^\n]+)",
                      site_kind="error_variant", variant=shape)
    scatter = record(CANDLE, "shape mismatch in scatter-add, lhs: {lhs:?}, rhs: {rhs:?}",
                     r"shape mismatch in scatter-add, lhs: (?P<lhs>.+?), rhs: (?P<rhs>[^\n]+)",
                     site_kind="variant_construction", variant=shape)
    _use([enum_rec, scatter])
    try:
        text = 'ShapeMismatchBinaryOp { lhs: [2, 2], rhs: [3], op: "%s", extra: 1 }'
        assert scatter["id"] not in ids(engine.explain(text % "matmul", min_score=0.0))
        assert enum_rec["id"] in ids(engine.explain(text % "matmul", min_score=0.0))
        assert scatter["id"] in ids(engine.explain(text % "scatter-add", min_score=0.0))
    finally:
        engine.reset()


def test_a_generic_record_ranks_below_a_specific_one_of_the_same_text() -> None:
    a = record(CANDLE, "dim {d} out of range for {op}", r"dim (?P<d>\S+?) out of range for (?P<op>[^\n]+)", id="0000000000000001")
    b = record(CANDLE, "dim {} out of range for {}", r"dim (?P<d>.+?) out of range for (?P<op>[^\n]+)", id="0000000000000002")
    for generic in (a, b):
        _use([dict(r, generic=True) if r is generic else r for r in (a, b)])
        try:
            top = engine.explain("dim 5 out of range for narrow")[0]
            assert top.record.id != generic["id"] and top.also == (generic["id"],)
        finally:
            engine.reset()


def test_a_user_record_of_the_same_headline_is_the_one_shown() -> None:
    """Two records fully matching one message are one hint; a user dataset's record wins it."""
    shipped = record(CANDLE, "unsupported dtype {0:?} for op {1}", r"unsupported dtype (?P<f0>.+?) for op (?P<f1>[^\n]+)")
    mine = record(CANDLE, "unsupported dtype {} for op matmul", r"unsupported dtype (?P<d>\S+) for op matmul", id="00000000000000cc")
    user_ix = loaded_index.LoadedIndex(indexfile.build_index([mine]), user=True)
    shipped_ix = loaded_index.LoadedIndex(indexfile.build_index([shipped]))
    engine.use(engine.Dataset([user_ix, shipped_ix], families={}))
    try:
        got = engine.explain("unsupported dtype I64 for op matmul", min_score=0.0)
        assert [m.record.id for m in got] == ["00000000000000cc"] and got[0].also == (shipped["id"],)
    finally:
        engine.reset()


def test_records_sharing_a_pattern_share_one_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same pattern at three sites: one regex search per candidate, and one hint."""
    pattern = r"unsupported dtype (?P<f0>.+?) for op (?P<f1>[^\n]+)"
    recs = [record(CANDLE, "unsupported dtype {} for op {}", pattern, file_path=f"candle-core/src/{name}.rs", id=f"{name:0>16}")
            for name in ("cpu", "cuda", "metal")]
    searched: List[str] = []
    real = regexrun.search
    monkeypatch.setattr(regexrun, "search", lambda p, text, *a, **k: searched.append(p) or real(p, text, *a, **k))
    _use(recs)
    try:
        got = engine.explain("unsupported dtype I64 for op matmul", exc_type="ValueError", min_score=0.0)
    finally:
        engine.reset()
    assert searched == [pattern]
    assert len(got) == 1 and got[0].captures["f0"] == "I64" and got[0].captures["f1"] == "matmul"
    assert got[0].id in {r["id"] for r in recs}
