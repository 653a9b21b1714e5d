"""Issue 17 item 4: a reworded message from a newer release gets the nearest template,
marked approximate, and plain Python errors get nothing.

The templates below are older wordings of the kind of messages burn and candle changed
between releases (a typo fixed, ``and`` → ``or``, a word changed and a suffix added); the
texts are newer wordings. A two-word template (``Record error: {0}``) is too short to be
compared by its words (``similar.MIN_WORDS``); it is compared as a whole line
(``Table.nearest_line``): letter case, a payload left off, or one changed word of a template
without placeholders.
The figure on real releases is measured by benchmarks/bench_new_release.py (docs/coverage.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, List

import pytest

from engine_support import record
from errhint import bindings, engine, indexfile, loaded_index, similar

ROOT = Path(__file__).resolve().parents[2]
BURN = "tracel-ai/burn"
CANDLE = "huggingface/candle"

OLD = [
    record(BURN, "Can't read the tensor synchonously on this backend", r"Can't read the tensor synchonously on this backend", error_type="panic", site_kind="panic"),
    record(BURN, "The provided range array has a start and an end that are not in order: {start} {end}",
           r"The provided range array has a start and an end that are not in order: (?P<start>[^\n]{1,1024}?) (?P<end>[^\n]+)",
           error_type="panic", site_kind="panic"),
    record(BURN, "Record error: {0}", r"Record error: (?P<f0>[^\n]+)", site_kind="display_arm"),
    record(BURN, "Failed to load the recorder file header and metadata", r"Failed to load the recorder file header and metadata", site_kind="display_arm"),
    record(CANDLE, "conv1d kernel size must be odd and positive for this padding mode",
           r"conv1d kernel size must be odd and positive for this padding mode"),
    record(BURN, "Could not get home directory", r"Could not get home directory", error_type="panic", site_kind="panic"),
    record(BURN, "Error: {0}", r"Error: (?P<f0>[^\n]+)", site_kind="display_arm"),
    record(BURN, "ReduceNode input must be a tensor", r"ReduceNode input must be a tensor", error_type="panic", site_kind="panic"),
    record(BURN, "BitShiftNode only supports tensor and scalar inputs", r"BitShiftNode only supports tensor and scalar inputs",
           error_type="panic", site_kind="panic"),
    record(BURN, "Pad: Negative pad is not supported", r"Pad: Negative pad is not supported", error_type="panic", site_kind="panic"),
    record(BURN, "Squeeze: Cannot infer output rank when axes is None. Please provide static shape information.",
           r"Squeeze: Cannot infer output rank when axes is None\. Please provide static shape information\.",
           error_type="panic", site_kind="panic"),
]
OLD += [  # other ops' messages that share the words above, as in burn's ONNX import: words alone do not tell them apart
    record(BURN, f"{op}Node only supports tensor and scalar inputs", f"{op}Node only supports tensor and scalar inputs",
           error_type="panic", site_kind="panic")
    for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "Add", "Sub", "Mul")
] + [
    record(BURN, f"Pad: {what} is not supported", f"Pad: {what} is not supported", error_type="panic", site_kind="panic")
    for what in ("Negative pad value", "Negative pad axis", "Negative pad count", "Negative pad mode", "Negative pad size", "Negative pad end")
]


@pytest.fixture
def dataset(monkeypatch: pytest.MonkeyPatch) -> Iterator[engine.Dataset]:
    ds = engine.Dataset([loaded_index.LoadedIndex(indexfile.build_index(OLD))], families={})
    ds.labels = lambda: {}  # type: ignore[method-assign]
    engine.use(ds)
    monkeypatch.setattr(bindings, "loaded", lambda: frozenset({"pyburn"}))
    yield ds
    engine.reset()


@pytest.mark.parametrize(
    "text, template",
    [
        ("Can't read the tensor synchronously on this backend", OLD[0]),  # a typo fixed
        ("The provided range array has a start and an end that are out of order: 5 3 (start must be lower)", OLD[1]),  # reworded, suffix
        ("Failed to load the recorder file header or metadata", OLD[3]),  # "and" -> "or"
    ],
)
def test_a_reworded_panic_gets_its_old_template_marked_approximate(dataset: engine.Dataset, text: str, template: dict) -> None:
    got = engine.explain(text, exc_type="pyo3_runtime.PanicException")
    assert got and got[0].id == template["id"]
    assert got[0].approximate and got[0].kind == "approximate"
    assert got[0].score < 0.5
    assert "approximate match" in got[0].render().splitlines()[0]
    assert got[0].captures == {}  # no pattern matched: no value is claimed


@pytest.mark.parametrize(
    "text, template",
    [
        ("record error: bad header", OLD[2]),  # letter case changed
        ("Record error:", OLD[2]),  # the payload left off
        ("Could not get cache directory", OLD[5]),  # one word changed in a short message
    ],
)
def test_a_short_message_is_compared_as_a_whole_line(dataset: engine.Dataset, text: str, template: dict) -> None:
    got = engine.explain(text, exc_type="pyo3_runtime.PanicException")
    assert got and got[0].id == template["id"] and got[0].kind == "approximate"
    assert got[0].score < 0.5 and got[0].captures == {}


@pytest.mark.parametrize(
    "text, template",
    [
        ("Reduce node input must be a tensor", OLD[7]),  # a word split in two
        ("BitShift only supports tensor and scalar inputs", OLD[8]),  # a word's suffix dropped
        ("Negative pad is not supported", OLD[9]),  # the ``Pad: `` label dropped
        ('InvalidAttribute { name: "pads", reason: "Negative pad is not supported" }', OLD[9]),  # wrapped in a new variant
        ("Squeeze: Cannot infer output rank when axes is None", OLD[10]),  # the second sentence dropped
    ],
)
def test_a_message_restructured_by_a_newer_release_gets_its_old_template(
        dataset: engine.Dataset, text: str, template: dict) -> None:
    got = engine.explain(text, exc_type="pyo3_runtime.PanicException")
    assert got and got[0].id == template["id"] and got[0].kind == "approximate"
    assert got[0].score < 0.5 and got[0].captures == {}


@pytest.mark.parametrize(
    "text",
    [
        "Reduce node output must be a tensor or scalar",  # the same opening, another check
        "Negative stride is not supported",  # a label-less line that is not the labelled template's
        'InvalidAttribute { name: "pads", reason: "must be positive" }',  # a wrapper around nothing known
        "Squeeze: Cannot infer",  # too little of the first sentence
    ],
)
def test_a_restructured_look_alike_gets_nothing(dataset: engine.Dataset, text: str) -> None:
    assert engine.explain(text, exc_type="pyo3_runtime.PanicException") == []


@pytest.mark.parametrize(
    "text",
    [
        "Could not get the path of the user's folder",  # same opening, another message
        "error: the file is gone",  # `Error: {0}` is mostly placeholder: fits any text
        "Record error",  # too short to tell
        "record error: the file header of model.mpk could not be read",  # a short opening, a long payload
    ],
)
def test_a_short_line_that_only_starts_alike_gets_nothing(dataset: engine.Dataset, text: str) -> None:
    assert engine.explain(text, exc_type="pyo3_runtime.PanicException") == []


def test_a_matching_pattern_is_never_reported_approximate(dataset: engine.Dataset) -> None:
    got = engine.explain("Record error: the file header of model.mpk could not be read", exc_type="ValueError")
    assert got and got[0].id == OLD[2]["id"] and not got[0].approximate and got[0].kind == "full"


def test_only_within_the_repositories_the_error_can_come_from(dataset: engine.Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "conv1d kernel size must be odd and positive for this padding"
    monkeypatch.setattr(bindings, "loaded", lambda: frozenset({"candle"}))
    assert [m.id for m in engine.explain(text, exc_type="ValueError")] == [OLD[4]["id"]]
    monkeypatch.setattr(bindings, "loaded", lambda: frozenset({"pyburn"}))
    assert engine.explain(text, exc_type="ValueError") == []  # a candle template, burn imported
    monkeypatch.setattr(bindings, "loaded", lambda: frozenset({"pyburn", "candle"}))
    assert engine.explain(text, exc_type="ValueError") == []  # both imported: whose is it?


def test_no_evidence_or_a_plain_python_class_gives_nothing(dataset: engine.Dataset) -> None:
    text = "Can't read the tensor synchronously on this backend"
    assert engine.explain(text) == []  # a bare text, the binding only imported
    assert engine.explain(text, exc_type="KeyError") == []
    assert engine.explain("Can't read the tensor right now", exc_type="pyo3_runtime.PanicException") == []


def _negatives() -> List[str]:
    lines = (ROOT / "curation" / "negatives.txt").read_text(encoding="utf-8").splitlines()
    return [ln.replace("\\n", "\n").replace("\\t", "\t") for ln in lines if ln.strip() and not ln.startswith("#")]


@pytest.mark.parametrize("binding", ["candle", "pyburn"])
def test_unrelated_messages_get_no_approximate_hint_with_one_binding_imported(monkeypatch: pytest.MonkeyPatch, binding: str) -> None:
    """The shipped data, one binding imported (so the repository is known), every negative."""
    monkeypatch.delenv("ERRHINT_DATA", raising=False)
    engine.reset()
    monkeypatch.setattr(bindings, "loaded", lambda: frozenset({binding}))
    try:
        hinted = {t: [m.record.error_message for m in engine.explain(t)] for t in _negatives()}
        assert {t: h for t, h in hinted.items() if h} == {}
        # as the exception types the bindings raise, with their text
        for exc_type in ("ValueError", "RuntimeError"):
            hinted = {t: [m.kind for m in engine.explain(t, exc_type=exc_type)] for t in _negatives()[:150]}
            assert {t: h for t, h in hinted.items() if "approximate" in h} == {}, exc_type
    finally:
        engine.reset()


def test_words_and_template_words() -> None:
    assert similar.words("Can't read the tensor: shape [2, 3] of F32") == ["read", "tensor", "shape", "f32"]
    assert similar.template_words("{op} is not supported for {dtype:?} tensors {{x}}") == ["supported", "tensors"]
    assert similar.row_words(["The `output_dtype` has to be `Some` only"], cut=40) == ["output_dtype", "some"]
