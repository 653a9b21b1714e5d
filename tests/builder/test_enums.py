"""Error enums: thiserror variants, Display arms, Debug-only forms, PyErr conversions, and the
constructions linked to them."""

from __future__ import annotations

from pathlib import Path

import pytest
import regex

from builder.scan import FactsCache, scan_files
from builder.sources import SnapshotFiles, Source
from builder.template import synthesize, to_regex

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rust"


@pytest.fixture(scope="module")
def result():
    files = SnapshotFiles(
        rust={"widgets/src/error.rs": ("sha-enums", (FIXTURES / "enums.rs").read_text(encoding="utf-8"))},
        cargo={"widgets/Cargo.toml": '[package]\nname = "widgets"\nversion = "0.1.0"\n'},
    )
    return scan_files(Source("example/widgets", "v1", "0" * 40), files, FactsCache())


def _sites(result, kind):
    return [s for s in result.sites if s.kind == kind]


def test_thiserror_variants_with_shape_and_fields(result):
    defs = {s.variant["name"]: s for s in _sites(result, "error_variant")}
    assert set(defs) == {"UnsupportedDType", "ShapeMismatch", "NotCompiled", "Msg"}
    v = defs["ShapeMismatch"].variant
    assert v["shape"] == "struct"
    assert v["fields"] == [
        {"name": "lhs", "debug": True, "type": "Shape"},
        {"name": "rhs", "debug": True, "type": "Shape"},
        {"name": "op", "debug": False, "type": "&'static str"},
    ]
    assert v["display"] == "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}"
    t = defs["UnsupportedDType"]
    assert t.variant["fields"] == [{"name": "0", "debug": True, "type": "DType"}, {"name": "1", "debug": False, "type": "&'static str"}]
    assert t.template.groups() == ["f0", "f1"]
    assert all(s.crate == "widgets" for s in defs.values())


def test_constructions_with_literal_payloads_are_specialised(result):
    texts = {s.template.text for s in _sites(result, "variant_construction") if s.template is not None}
    assert "unsupported dtype {0:?} for op matmul" in texts
    assert "unsupported dtype {0:?} for op conv2d" in texts
    assert "shape mismatch in add, lhs: {lhs:?}, rhs: {rhs:?}" in texts


def test_patterns_and_matches_are_not_constructions(result):
    ops = [s.template.text for s in _sites(result, "variant_construction") if s.template is not None]
    assert not any("for op conv}" in t or t.endswith("for op conv") for t in ops)
    not_compiled = [s for s in _sites(result, "variant_construction") if s.variant_key == "Error::NotCompiled"]
    assert len(not_compiled) == 1  # `let e3 = ..`, not the match arm or matches!


def test_construction_without_payload_uses_the_variant_template(result):
    generic = [s for s in _sites(result, "variant_construction") if s.variant_key == "Error::ShapeMismatch" and s.template is not None and "{op}" in s.template.text]
    assert len(generic) == 1
    assert result.raised_at["widgets:Error::ShapeMismatch"][0][2] == "raise"


def test_msg_constructions_are_msg_sites(result):
    msgs = [s for s in _sites(result, "msg") if s.template is not None]
    assert [s.template.text for s in msgs] == ["widget {dt:?} exploded"]
    assert msgs[0].variant is None and msgs[0].variant_key == ""


def test_manual_display_arms_map_bindings_to_fields(result):
    arms = {s.variant["name"]: s for s in _sites(result, "display_arm")}
    assert arms["Broken"].template.text == "widget broken: {what}"
    assert arms["Broken"].template.groups() == ["f0"]
    assert arms["Broken"].variant["display"] == "widget broken: {0}"
    worn = arms["Worn"]
    assert worn.template.groups() == ["part", "age"]
    assert worn.variant["display"] == "widget part {part} worn after {age} days"
    assert arms["Lost"].template.text == "widget lost in transit"


def test_debug_only_enum_payloads(result):
    texts = {s.template.text for s in result.sites if s.variant_key.startswith("GadgetError::") and s.template is not None}
    assert "gadget {n} cannot be assembled" in texts
    assert 'Mismatch {{ expected: "Tensor", actual: "{n}" }}' in texts


def test_pyerr_conversion_gives_python_message(result):
    conv = [s for s in _sites(result, "pyerr") if s.template is not None and s.template.text == "Check the widget tensor dimensions"]
    assert conv and conv[0].error_class == "ValueError"


def test_every_template_matches_its_own_example(result):
    for s in result.sites:
        if s.template is None or s.template.is_passthrough():
            continue
        compiled = regex.compile(to_regex(s.template, s.tail), regex.DOTALL)
        assert compiled.search(synthesize(s.template, s.tail)) or compiled.search(synthesize(s.template, s.tail, variant=1)), s.template.text


WRAPPERS = """
#[derive(thiserror::Error, Debug)]
pub enum LoadError {
    #[error("safetensors failure {0:?}")]
    SafeTensor(#[from] safetensors::SafeTensorError),
    #[error("table {0:?} has {1} rows")]
    Table(HashMap<String, Vec<usize>>, usize),
    #[error("boxed: {source}")]
    Boxed { pub(crate) source: Box<dyn std::error::Error + Send + Sync> },
}
"""


def test_variant_fields_carry_their_rust_type():
    """The engine resolves a nested Debug value (``SafeTensor(InvalidHeader)``) through the
    wrapped field's type; generic types with commas stay one field."""
    files = SnapshotFiles(rust={"w/src/lib.rs": ("sha-wrappers", WRAPPERS)}, cargo={"w/Cargo.toml": '[package]\nname = "w"\n'})
    res = scan_files(Source("example/w", "v1", "0" * 40), files, FactsCache())
    defs = {s.variant["name"]: s.variant for s in res.sites if s.kind == "error_variant"}
    assert defs["SafeTensor"]["fields"] == [{"name": "0", "debug": True, "type": "safetensors::SafeTensorError"}]
    assert [f["type"] for f in defs["Table"]["fields"]] == ["HashMap<String, Vec<usize>>", "usize"]
    assert defs["Boxed"]["fields"][0]["type"] == "Box<dyn std::error::Error + Send + Sync>"
