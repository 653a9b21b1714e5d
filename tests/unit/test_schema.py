"""The record schema: every seed field, camelCase on the wire, snake_case in Python, real validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict

import pytest

from engine_support import dtype_for_op_variant
from errhint.data import DatasetError, validate
from errhint.schema import Record, RecordLine

SEED_FIELDS = [
    "id", "repo", "slug", "errorCode", "errorMessage", "messagePattern", "errorType", "errorClass",
    "httpStatus", "severity", "filePath", "lineNumber", "sourceCode", "sourceCodeStart", "sourceCodeEnd",
    "githubUrl", "documentation", "triggerScenarios", "commonSituations", "solutions", "exampleFix",
    "handlingStrategy", "validationCode", "typeGuard", "tryCatchPattern", "preventionTips", "tags",
    "backgroundTag", "analyzedSha", "analyzedAt", "contentChangedAt", "schemaVersion",
]


def test_every_seed_field_round_trips_under_its_json_name(make_record: Callable[..., Dict[str, Any]]) -> None:
    rec = make_record()
    model = Record.model_validate(rec)
    dumped = model.model_dump(by_alias=True)
    for name in SEED_FIELDS:
        assert dumped[name] == rec[name], name


def test_snake_case_attributes(make_record: Callable[..., Dict[str, Any]]) -> None:
    model = Record.model_validate(make_record())
    assert model.error_message.startswith("widget count mismatch")
    assert model.message_pattern.startswith("widget count mismatch")
    assert model.file_path == "src/widgets.rs"
    assert model.background_tag == "count-mismatch"
    assert model.line_number == 10


def test_wrapper_line_parses(make_record: Callable[..., Dict[str, Any]]) -> None:
    line = RecordLine.model_validate_json(json.dumps({"record": make_record(), "datasetVersion": "v1"}))
    assert line.dataset_version == "v1"
    assert line.record.id == "00000000000000aa"


def test_unknown_fields_are_kept(make_record: Callable[..., Dict[str, Any]]) -> None:
    model = Record.model_validate(make_record(futureField={"x": 1}))
    assert model.model_dump(by_alias=True)["futureField"] == {"x": 1}


def test_engine_fields_are_optional_and_typed(make_record: Callable[..., Dict[str, Any]]) -> None:
    model = Record.model_validate(make_record(variant=dtype_for_op_variant(), versions=["0.4.2"], siteKind="error_variant", crate="candle-core"))
    assert model.variant is not None and model.variant.fields[0].debug is True
    assert model.versions == ["0.4.2"]
    assert Record.model_validate(make_record()).variant is None


@pytest.mark.parametrize(
    "field, value, reason",
    [
        ("lineNumber", "ten", "integer"),
        ("lineNumber", 0, "greater than or equal to 1"),
        ("messagePattern", "unbalanced (group", "does not compile with regex"),
        ("errorType", "explosion", "exception"),
        ("githubUrl", "http://github.com/a/b", "https://"),
        ("solutions", "just one string", "list"),
        ("schemaVersion", 1, "2"),
    ],
)
def test_invalid_field_is_rejected_naming_record_field_and_reason(
    make_record: Callable[..., Dict[str, Any]], field: str, value: Any, reason: str
) -> None:
    with pytest.raises(DatasetError) as info:
        validate("data.jsonl", 7, make_record(**{field: value}))
    err = info.value
    assert err.record_id == "00000000000000aa"
    assert err.field == field
    assert reason in err.reason
    assert "data.jsonl:7" in str(err) and field in str(err)


def test_source_range_order_is_checked(make_record: Callable[..., Dict[str, Any]]) -> None:
    with pytest.raises(DatasetError) as info:
        validate("d.jsonl", 1, make_record(sourceCodeStart=20, sourceCodeEnd=10))
    assert "sourceCodeStart" in info.value.reason and info.value.record_id == "00000000000000aa"


def test_trusted_context_skips_only_the_compile_check(make_record: Callable[..., Dict[str, Any]]) -> None:
    bad = make_record(messagePattern="(")
    Record.model_validate(bad, context={"trusted": True})
    with pytest.raises(Exception):
        Record.model_validate(make_record(lineNumber=0), context={"trusted": True})


def test_builder_fields_are_typed(make_record: Callable[..., Dict[str, Any]]) -> None:
    model = Record.model_validate(make_record(
        raisedAt=[{"file": "src/a.rs", "line": 3, "fn": "narrow"}],
        siteKindByVersion={"0.4.2": "bail", "0.11.0": "debug_assert"},
        generic=True,
    ))
    assert model.raised_at is not None and model.raised_at[0].fn == "narrow"
    assert model.site_kind_by_version == {"0.4.2": "bail", "0.11.0": "debug_assert"}
    with pytest.raises(DatasetError) as info:
        validate("d.jsonl", 1, make_record(raisedAt=[{"file": "src/a.rs", "line": 0}]))
    assert info.value.field.startswith("raisedAt")
