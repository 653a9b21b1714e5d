"""Merging releases into records, ids, family assignment and record text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.families import Catalogue
from builder.merge import merge, record_id
from builder.records import build_record
from builder.scan import SnapshotResult
from builder.sites import Site
from builder.sources import Source
from builder.template import name_placeholders, parse_format

ROOT = Path(__file__).resolve().parents[2]


def _site(text, path, line, **kw):
    return Site(kind=kw.pop("kind", "bail"), line=line, end_line=line, template=name_placeholders(parse_format(text)), path=path, crate="widgets", fn="run", **kw)


def _result(label, commit, sites):
    return SnapshotResult(Source("example/widgets", label, commit), "2024-01-01T00:00:00Z", sites, 1, 0, 10)


@pytest.fixture
def drafts():
    old = _result("v1", "a" * 40, [_site("bad widget {}", "src/a.rs", 10), _site("gone in v2 widget", "src/a.rs", 20)])
    new = _result("v2", "b" * 40, [_site("bad widget {name}", "src/b.rs", 99), _site("only new widget {x}", "src/b.rs", 5)])
    return {d.template.literal: d for d in merge([old, new])}


def test_same_template_merges_across_releases(drafts):
    d = drafts["bad widget "]
    assert d.versions == ["v1", "v2"]
    assert (d.site.path, d.site.line, d.commit) == ("src/b.rs", 99, "b" * 40)
    assert d.template.text == "bad widget {name}"


def test_versions_of_removed_and_added_templates(drafts):
    assert drafts["gone in v2 widget"].versions == ["v1"]
    assert drafts["only new widget "].versions == ["v2"]


def test_ids_are_stable_and_independent_of_lines(drafts):
    d = drafts["bad widget "]
    assert d.id == record_id("example/widgets", "bad widget {}")
    assert record_id("example/widgets", "bad widget {}") == record_id("example/widgets", "bad widget {}")
    assert record_id("example/widgets", "x {}", "E::V") != record_id("example/widgets", "x {}")
    assert len(d.id) == 16


@pytest.fixture(scope="module")
def catalogue():
    return Catalogue.load(ROOT / "curation" / "families.json")


def test_catalogue_has_thirty_families_with_all_fields(catalogue):
    assert len(catalogue.families) >= 30
    for tag, fam in catalogue.families.items():
        assert fam["title"] and fam["documentation"] and fam["solutions"] and fam["exampleFix"], tag


@pytest.mark.parametrize(
    "text, kind, variant, expected",
    [
        ("unsupported dtype {dt:?} for op {op}", "bail", None, "unsupported-dtype-for-op"),
        ("cannot find tensor {name}", "bail", None, "safetensors-load"),
        ("widget exploded", "bail", {"name": "NotCompiledWithCudaSupport"}, "not-compiled-with-cuda"),
        ("widget internals inconsistent", "unreachable", None, "internal-invariant"),
        ("widget kernel missing", "unimplemented", None, "not-implemented-op"),
    ],
)
def test_family_assignment(catalogue, text, kind, variant, expected):
    site = _site(text, "src/lib.rs", 1, kind=kind, variant=variant)
    d = merge([_result("v1", "a" * 40, [site])])[0]
    assert catalogue.assign(d) == expected


def test_record_has_every_seed_field(catalogue):
    seed = json.loads((ROOT / "curation" / "seeds.jsonl").read_text().splitlines()[0])["record"]
    d = merge([_result("v1", "a" * 40, [_site("unsupported dtype {dt:?} for widget", "src/lib.rs", 7)])])[0]
    tag = catalogue.assign(d)
    rec = build_record(d, tag, catalogue.families[tag], {"example/widgets": "v1"}, {"example/widgets": ["v1"]})
    assert set(seed) <= set(rec)
    assert rec["sourceCode"] is None
    assert rec["githubUrl"] == "https://github.com/example/widgets/blob/" + "a" * 40 + "/src/lib.rs#L7-L7"
    assert rec["analyzedAt"] == "2024-01-01T00:00:00Z"
    # nobody wrote text for this template: facts only, no family remediation
    assert rec["curated"] is False and rec["solutions"] == [] and rec["exampleFix"] == ""
    assert rec["triggerScenarios"] == "Raised in `run` (widgets)."


# ---------------------------------------------------------------- kind across releases


def _bind(label, commit, sites, binding=False, repo="example/widgets", pulled=None):
    src = Source(repo, label, commit, binding_release=binding, pulled_in_by=pulled)
    return SnapshotResult(src, "2024-01-01T00:00:00Z", sites, 1, 0, 10)


def test_kind_comes_from_the_binding_release_location_from_the_newest():
    old = _bind("v1", "a" * 40, [_site("nb {n} is not divisible by 2", "src/k.rs", 10, kind="bail")], binding=True)
    new = _bind("v2", "b" * 40, [_site("nb {n} is not divisible by 2", "src/k.rs", 30, kind="assert", debug=True)])
    d = merge([old, new])[0]
    assert (d.site.kind, d.site.debug, d.site.line, d.commit) == ("bail", False, 30, "b" * 40)
    assert d.kinds_by_version == {"v1": "bail", "v2": "debug_assert"} and d.kind_label == "v1"
    rec = build_record(d, "quantization", Catalogue.load(ROOT / "curation" / "families.json").families["quantization"], {"example/widgets": "v2"}, {"example/widgets": ["v1", "v2"]})
    assert (rec["siteKind"], rec["errorType"], rec["lineNumber"]) == ("bail", "exception", 30)
    assert rec["siteKindByVersion"] == {"v1": "bail", "v2": "debug_assert"}


def test_without_binding_release_a_release_build_kind_beats_debug_assert():
    v1 = _bind("v1", "a" * 40, [_site("widget {n} overflowed", "src/k.rs", 1, kind="panic")])
    v2 = _bind("v2", "b" * 40, [_site("widget {n} overflowed", "src/k.rs", 2, kind="assert", debug=True)])
    d = merge([v1, v2])[0]
    assert d.site.kind == "panic" and d.kind_label == "v1"
    only_debug = merge([_bind("v1", "a" * 40, [_site("widget {n} drifted", "src/k.rs", 1, kind="assert", debug=True)])])[0]
    assert only_debug.site.kind == "assert" and only_debug.site.debug and only_debug.kinds_by_version == {}


def test_dependency_version_pulled_in_by_the_binding_release_decides():
    main = _bind("0.4", "a" * 40, [], binding=True, repo="example/main")
    dep_old = _bind("d1", "c" * 40, [_site("dep widget {x} failed", "src/d.rs", 1, kind="bail")], repo="example/dep", pulled=("example/main@0.4",))
    dep_new = _bind("d2", "d" * 40, [_site("dep widget {x} failed", "src/d.rs", 1, kind="panic")], repo="example/dep", pulled=("example/main@0.5",))
    d = merge([main, dep_old, dep_new])[0]
    assert d.site.kind == "bail" and d.commit == "d" * 40


# ---------------------------------------------------------------- one template, several sites


def test_generic_path_beats_a_backend_path_and_the_rest_is_raised_at():
    sites = [
        _site("input tensor {l:?} is not contiguous", "core/src/quantized/metal.rs", 5),
        _site("input tensor {l:?} is not contiguous", "core/src/quantized/mod.rs", 50),
        _site("input tensor {l:?} is not contiguous", "core/src/cuda_backend/mod.rs", 7),
    ]
    d = merge([_result("v1", "a" * 40, sites)])[0]
    assert d.site.path == "core/src/quantized/mod.rs"
    assert [p for p, _, _, _ in d.raised_at] == ["core/src/cuda_backend/mod.rs", "core/src/quantized/metal.rs"]


def test_pyerr_conversion_arm_is_the_definition_of_its_message():
    """wrap-burn's ``From<TensorError> for PyErr`` defines the text; ``Err(TensorError::V)?`` in
    many modules raise it: the record links the definition and lists the raises."""
    from builder.scan import FactsCache, scan_files
    from builder.sources import SnapshotFiles

    error_rs = (
        "#[derive(Debug)]\npub enum WidgetError { Broken }\n"
        "impl From<WidgetError> for PyErr {\n    fn from(e: WidgetError) -> Self {\n        match e {\n"
        "            WidgetError::Broken => PyValueError::new_err(\"the widget is broken\"),\n        }\n    }\n}\n"
    )
    user_rs = "pub fn a() -> PyResult<()> { Err(WidgetError::Broken.into()) }\npub fn b() -> PyResult<()> { Err(WidgetError::Broken)? }\n"
    files = SnapshotFiles(rust={"src/tensor/widget_error.rs": ("s1", error_rs), "src/nn/a_user.rs": ("s2", user_rs)}, cargo={"Cargo.toml": '[package]\nname = "w"\n'})
    res = scan_files(Source("example/w", "v1", "0" * 40), files, FactsCache())
    d = [x for x in merge([res]) if x.template.text == "the widget is broken"][0]
    assert (d.site.path, d.site.kind, d.site.error_class) == ("src/tensor/widget_error.rs", "pyerr", "ValueError")
    assert {(p, fn) for p, _, fn, _ in d.raised_at} == {("src/nn/a_user.rs", "a"), ("src/nn/a_user.rs", "b")}


def test_curated_marks_text_written_for_the_template(catalogue):
    from builder.records import apply_curated

    d = merge([_result("v1", "a" * 40, [_site("widget {n} is broken", "src/lib.rs", 7)])])[0]
    tag = catalogue.assign(d)
    rec = build_record(d, tag, catalogue.families[tag], {"example/widgets": "v1"}, {"example/widgets": ["v1"]})
    assert rec["curated"] is False and rec["function"] == "run"
    # a classification alone is not text written for the template; the flag cannot be set by hand
    assert apply_curated(rec, {"handlingStrategy": "report", "curated": True})["curated"] is False
    written = apply_curated(rec, {"solutions": ["Repair widget {n}."]})
    assert written["curated"] is True and written["solutions"] == ["Repair widget {n}."]
