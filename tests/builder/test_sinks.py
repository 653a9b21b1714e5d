"""Message helpers: functions that raise the string they are passed, and the sites at their calls."""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import pytest

from builder.scan import FactsCache, scan_files
from builder.sinks import STR_TYPE
from builder.sites import Site
from builder.sources import SnapshotFiles, Source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rust"


def _scan(text: str, extra: Dict[str, str] = {}):
    rust = {"w/src/helpers.rs": ("sha-" + str(hash(text)), text)}
    rust.update({p: ("sha-" + p, t) for p, t in extra.items()})
    files = SnapshotFiles(rust=rust, cargo={"w/Cargo.toml": '[package]\nname = "w"\n'})
    return scan_files(Source("example/w", "v1", "0" * 40), files, FactsCache())


@pytest.fixture(scope="module")
def result():
    return _scan((FIXTURES / "helpers.rs").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def helper_sites(result) -> Dict[str, Site]:
    return {s.template.text: s for s in result.sites if s.helper}


def test_expect_helper_gives_a_site_per_call(helper_sites):
    site = helper_sites["widget size must be non-zero"]
    assert (site.kind, site.helper, site.fn, site.line) == ("expect", "check_positive", "widget_options", 11)
    assert "widget depth must be non-zero" in helper_sites


def test_nested_pyerr_helper_keeps_the_python_class(helper_sites):
    site = helper_sites["cannot give two widget colours"]
    assert (site.kind, site.error_class, site.helper, site.fn) == ("pyerr", "ValueError", "reject_twice", "parse_args")
    assert "cannot give two widget sizes" in helper_sites  # trailing comma in the call


def test_format_helper_substitutes_the_message_parameter(helper_sites):
    site = helper_sites["widget step {what} failed: the widget file is truncated"]
    assert site.kind == "bail" and site.template.groups() == ["what"]


def test_a_function_forwarding_its_parameter_is_a_helper_too(helper_sites):
    site = helper_sites["widget step {what} failed: the widget index is corrupt"]
    assert site.helper == "forward_failure" and site.fn == "steps"


def test_values_printed_in_a_message_are_not_messages(helper_sites):
    assert not any("left gear" in t for t in helper_sites)


def test_method_helpers_resolve_but_std_expect_does_not(helper_sites, result):
    assert helper_sites["gauge level must be positive"].kind == "assert"
    # `v.expect("..")` is Option::expect (a site of its own), not the crate's `Gauge::expect`
    assert "gauge value must be present" not in helper_sites
    assert any(s.kind == "expect" and s.template is not None and s.template.text == "gauge value must be present" for s in result.sites)


def test_calls_in_tests_are_not_sites(helper_sites):
    assert "test-only message is not a site" not in helper_sites


def test_same_named_function_elsewhere_in_the_crate_is_not_guessed():
    helper = "pub fn shout(msg: &str) { panic!(\"{}\", msg) }\npub fn a() { shout(\"widget on fire\") }\n"
    other = "pub fn shout(n: usize) -> usize { n }\npub fn b() { shout(\"not a message\") }\n"
    sites = {s.template.text: s for s in _scan(helper, {"w/src/other.rs": other}).sites if s.helper}
    assert "widget on fire" in sites  # same file as the helper
    assert "not a message" not in sites  # another `shout` is defined there


@pytest.mark.parametrize("ty, ok", [("&str", True), ("&'static str", True), ("String", True), ("impl Into<String>", True),
                                     ("&mut str", True), ("usize", False), ("Option<&str>", False), ("&[u8]", False)])
def test_message_parameter_types(ty, ok):
    assert bool(STR_TYPE.match(ty)) is ok


def test_record_text_names_the_helper_and_the_python_class(result):
    from builder.families import Catalogue
    from builder.merge import merge
    from builder.records import build_record

    ROOT = Path(__file__).resolve().parents[2]
    catalogue = Catalogue.load(ROOT / "curation" / "families.json")
    d = next(x for x in merge([result]) if x.template.text == "cannot give two widget colours")
    tag = catalogue.assign(d)
    rec = build_record(d, tag, catalogue.families[tag], {"example/w": "v1"}, {"example/w": ["v1"]})
    assert "helper `reject_twice`" in rec["documentation"] and "`ValueError`" in rec["documentation"]
    assert (rec["siteKind"], rec["errorClass"], rec["lineNumber"]) == ("pyerr", "ValueError", 23)
