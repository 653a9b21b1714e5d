"""Merging releases into records, ids, family assignment and record text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errhint.build.compose import fill_roles, roles_of
from errhint.build.families import Catalogue
from errhint.build.merge import merge, record_id
from errhint.build.records import build_record
from errhint.build.scan import SnapshotResult
from errhint.build.sites import Site
from errhint.build.sources import Source
from errhint.build.template import name_placeholders, parse_format

ROOT = Path(__file__).resolve().parents[1]


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


def test_roles_from_names_and_preceding_words():
    tpl = name_placeholders(parse_format("unsupported dtype {0:?} for op {1}"), fields={"0": "0", "1": "1"})
    assert roles_of(tpl) == {"dtype": "f0", "op": "f1"}
    assert fill_roles("cast {dtype|the tensor} before {op|the op} on {device|its device}", roles_of(tpl)) == "cast {f0} before {f1} on its device"


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
    assert "{dt}" in " ".join(rec["solutions"]) or "{dt}" in rec["documentation"] + rec["triggerScenarios"]
