"""RecordView (view.py) and Match (match.py)."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from engine_support import fixture_records
from errhint.match import Match
from errhint.view import FIELDS, RecordView, to_camel, to_snake


@pytest.fixture
def rec() -> Dict[str, Any]:
    return next(r for r in fixture_records() if r["errorMessage"].startswith("shape mismatch in"))


def test_field_list_matches_the_schema() -> None:
    from errhint.schema import Record

    schema_fields = {f.alias or to_camel(name) for name, f in Record.model_fields.items()}
    assert set(FIELDS) == schema_fields


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


@pytest.mark.parametrize(
    ("name", "camel"),
    [("error_type", "errorType"), ("pulled_in_by", "pulledInBy"), ("arg_0", "arg0"), ("_private", "Private"), ("a__b", "a_B"), ("x_Y", "x_Y"), ("plain", "plain")],
)
def test_to_camel_drops_an_underscore_before_a_lower_case_letter_or_digit(name: str, camel: str) -> None:
    assert to_camel(name) == camel
