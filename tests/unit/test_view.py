"""RecordView (view.py) and Match (match.py)."""

from __future__ import annotations

import re
from typing import Any, Dict, List

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine_support import fixture_records
from errhint.match import Match, aliases
from errhint.view import FIELDS, RecordView, to_camel, to_snake


@pytest.fixture
def rec() -> Dict[str, Any]:
    return next(r for r in fixture_records() if r["errorMessage"].startswith("shape mismatch in"))


def test_field_list_matches_the_schema() -> None:
    from errhint.schema import Record

    schema_fields = {f.alias or to_camel(name) for name, f in Record.model_fields.items()}
    assert set(FIELDS) == schema_fields


def test_known_fields_do_not_read_the_record(rec: Dict[str, Any]) -> None:
    loads: List[int] = []

    def load() -> Dict[str, Any]:
        loads.append(1)
        return rec

    view = RecordView({"id": rec["id"], "repo": rec["repo"]}, load)
    assert view.id == rec["id"] and view.repo == rec["repo"]
    assert loads == []
    assert view.documentation == rec["documentation"] and view.line_number == 100
    assert view.solutions == tuple(rec["solutions"])
    _ = view.tags
    assert loads == [1]  # read once, then cached


def test_snake_case_attributes_defaults_and_nested_views(rec: Dict[str, Any]) -> None:
    view = RecordView.from_dict(rec)
    assert view.error_message == rec["errorMessage"] and view.message_pattern == rec["messagePattern"]
    assert view.variant.name == "ShapeMismatchBinaryOp" and view.variant.fields[0].debug is True
    assert view.pulled_in_by is None and view.http_status is None
    bare = RecordView.from_dict({"id": "x"})
    assert bare.severity == "error" and bare.prevention_tips == () and bare.tags == ()
    with pytest.raises(AttributeError):
        view.not_a_field


def test_unknown_extra_fields_stay_reachable(rec: Dict[str, Any]) -> None:
    view = RecordView.from_dict(dict(rec, futureField={"a": 1}))
    assert view.future_field.a == 1
    assert view.to_dict()["futureField"] == {"a": 1}


def test_view_is_read_only_and_to_dict_is_a_copy(rec: Dict[str, Any]) -> None:
    view = RecordView.from_dict(rec)
    with pytest.raises(AttributeError):
        view.repo = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        view.variant.name = "y"
    d = view.to_dict()
    d["solutions"].append("mutated")
    assert "mutated" not in view.solutions


def test_case_helpers() -> None:
    assert to_camel("github_url") == "githubUrl" and to_snake("sourceCodeStart") == "source_code_start"


def test_match_is_immutable(rec: Dict[str, Any]) -> None:
    m = Match(record=RecordView.from_dict(rec), score=0.8, captures={"op": "add"}, message="m")
    with pytest.raises(Exception):
        m.score = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        m.captures["op"] = "x"  # type: ignore[index]
    assert m.id == rec["id"] and m.family is None


@given(st.text(alphabet="ab_zA09\u00e9\u00b2\u0661", max_size=12))
def test_to_camel_drops_an_underscore_before_a_lower_case_letter_or_digit(name: str) -> None:
    assert to_camel(name) == re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name)


@given(st.text(alphabet="aZ_ 9:=\"`([\u00e9\u2003\n", max_size=24))
def test_the_last_word_is_what_the_regex_finds(text: str) -> None:
    from errhint.match import _last_word

    m = re.search(r"([A-Za-z][A-Za-z_]{1,15})[\s:='\"`(\[]*$", text)
    assert _last_word(text) == (m.group(1) if m else None)


@given(st.text(alphabet="ab\\\n(", max_size=12))
def test_literal_before_undoes_escapes_as_the_regex_did(text: str) -> None:
    from errhint.match import _literal_before

    pattern = text + "(?P<f0>x)"
    expected = re.sub(r"\\(.)", r"\1", pattern[max(text.rfind(")"), text.rfind("(")) + 1 : len(text)])
    assert _literal_before(pattern, len(text)) == expected


def test_aliases_name_positional_groups() -> None:
    pattern = r"unsupported dtype (?P<f0>.+?) for op (?P<f1>[^\n]+)"
    assert aliases(pattern, {"f0": "I64", "f1": "matmul"}) == {"dtype": "I64", "op": "matmul"}
    assert aliases(r"no unary function for (?P<arg0>[^\n]+)", {"arg0": "u8"}) == {}  # 'for' is no name
    assert aliases(r"at dimension '(?P<arg0>.+?)'", {"arg0": "0"}) == {"dimension": "0"}
    assert aliases(r"op (?P<op>.+?) dtype (?P<f0>.+)", {"op": "x", "f0": "F32"}) == {"dtype": "F32"}
    assert aliases(r"dtype (?P<f0>.+?)", {}) == {}
    assert aliases(r"dtype (?P<f>.+?) op (?P<argx>.+?) size (?P<f1a>.+)", {"f": "1", "argx": "2", "f1a": "3"}) == {}
