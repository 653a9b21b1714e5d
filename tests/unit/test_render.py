from __future__ import annotations

import json
from typing import Any, Dict, Optional

import pytest

from engine_support import FAMILIES, fixture_records
from errhint import render
from errhint.match import Match
from errhint.constants import NOTE_MARKER
from errhint.render import fill, render_match, render_notes
from errhint.view import RecordView


def make_match(template: str, captures: Dict[str, str], message: str, family: Optional[Dict[str, Any]] = None, **over: Any) -> Match:
    rec = dict(next(r for r in fixture_records() if r["errorMessage"] == template), **over)
    return Match(record=RecordView.from_dict(rec), score=0.9, captures=captures, message=message, family=family)


@pytest.fixture
def dtype_match() -> Match:
    return make_match(
        "unsupported dtype {0:?} for op {1}",
        {"f0": "I64", "f1": "matmul", "dtype": "I64", "op": "matmul"},
        "unsupported dtype I64 for op matmul",
        FAMILIES["unsupported-dtype-for-op"],
    )


def test_brief_is_at_most_four_lines_with_filled_values(dtype_match: Match) -> None:
    text = render_match(dtype_match, "brief")
    lines = text.splitlines()
    assert len(lines) <= 4
    assert lines[0] == "unsupported dtype I64 for op matmul (huggingface/candle)"
    assert "Calling matmul on a I64 tensor" in lines[1]
    assert lines[2].strip() == "fix: Cast the I64 tensor to F32 before matmul"
    assert f"errhint show {dtype_match.record.id}" in lines[3]
    assert dtype_match.record.github_url in lines[3]
    assert "{" not in text


def test_full_adds_documentation_solutions_example_and_tips(dtype_match: Match) -> None:
    text = render_match(dtype_match, "full")
    assert len(text.splitlines()) > 4
    for needle in (
        "what happened:",
        "Kernels exist only for some dtypes; matmul has none for I64.",  # family text, filled
        "1. Cast the I64 tensor to F32 before matmul",
        "example fix:",
        "x = x.to_dtype(candle.f32)",
        "prevention:",
        "- Keep activations in a float dtype",
    ):
        assert needle in text, needle
    assert text.count("Cast the I64 tensor to F32 before matmul") == 1  # not repeated from the family
    # the family's solutions are not the record's: they are never appended as if written for it
    assert "Run matmul on a device that supports I64" not in text


def test_missing_capture_becomes_a_neutral_phrase() -> None:
    m = make_match("unsupported dtype {0:?} for op {1}", {}, "unsupported dtype ? for op ?", FAMILIES["unsupported-dtype-for-op"])
    text = m.render("full")
    assert "{dtype}" not in text and "{op}" not in text
    assert "Cast the dtype tensor to F32 before the operation" in text


def test_fill_rules() -> None:
    caps = {"op": "matmul"}
    assert fill("run {op} now", caps, []) == "run matmul now"
    assert fill("shape {shape}", {}, ["shape"]) == "shape the tensor's shape"
    assert fill("cast the {dtype} tensor", {}, ["dtype"]) == "cast the dtype tensor"
    assert fill("code {e} here", {}, [], prose=False) == "code {e} here"  # not a group, not a capture
    assert fill("value {arg0}", {}, ["arg0"], prose=False) == "value {arg0}"
    assert fill("value {f0}", {}, ["f0"]) == "value the value in the message"
    assert fill("Mixed {Upper} stays", {}, []) == "Mixed {Upper} stays"
    long = "x" * 500
    assert len(fill("{op}", {"op": long}, [])) <= render.MAX_VALUE


def test_first_sentence_skips_abbreviations() -> None:
    assert render.first_sentence("Asking the CPU wheel for the GPU, e.g. `x.to_device('cuda')`. Then more.") == (
        "Asking the CPU wheel for the GPU, e.g. `x.to_device('cuda')`.")
    assert render.first_sentence("One.  Two.") == "One."


def test_code_fields_only_take_real_captures() -> None:
    m = make_match("shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}", {"op": "add"}, "m",
                   exampleFix="y = f({x})\nz = g('{op}')")
    text = m.render("full")
    assert "y = f({x})" in text and "z = g('add')" in text


def test_notes_start_with_the_marker(dtype_match: Match) -> None:
    notes = render_notes([dtype_match, dtype_match], "brief")
    assert len(notes) == 2 and all(n.startswith(NOTE_MARKER + " ") for n in notes)
    assert "\033[" not in notes[0]


def test_color_only_when_asked(dtype_match: Match) -> None:
    assert "\033[1m" in render_match(dtype_match, "brief", color=True)
    assert "\033[" not in render_match(dtype_match, "brief", color=False)


def test_bad_verbosity(dtype_match: Match) -> None:
    with pytest.raises(ValueError):
        render_match(dtype_match, "loud")


def test_to_dict_is_json_and_carries_the_hint(dtype_match: Match) -> None:
    d = dtype_match.to_dict()
    again = json.loads(json.dumps(d))
    assert again["id"] == dtype_match.record.id and again["score"] == 0.9
    assert again["captures"]["dtype"] == "I64"
    assert again["hint"]["fix"] == "Cast the I64 tensor to F32 before matmul"
    assert again["record"]["errorMessage"] == "unsupported dtype {0:?} for op {1}"
    assert again["family"]["title"] == FAMILIES["unsupported-dtype-for-op"]["title"]


def test_record_without_family_or_solutions_still_renders() -> None:
    m = make_match("header too small", {}, "header too small", None, solutions=[], triggerScenarios="")
    lines = m.render("brief").splitlines()
    assert lines[0] == "header too small (huggingface/safetensors)"
    assert len(lines) <= 4 and lines[-1].strip().startswith("errhint show")


# ---------------------------------------------------------------- honest fallback (issue 15, item 3)

UNWRITTEN = {
    "curated": False,
    "triggerScenarios": "Raised in `Tensor::matmul` (candle-core) when `k != k2` (`k` differs from `k2`). Second sentence.",
    "documentation": "candle-core returns this error in `matmul` in candle-core/src/tensor.rs.",
    "solutions": [],
    "exampleFix": "",
    "commonSituations": "",
    "preventionTips": [],
}


def test_unwritten_record_shows_condition_and_link_only(dtype_match: Match) -> None:
    m = make_match("unsupported dtype {0:?} for op {1}", dict(dtype_match.captures), dtype_match.message,
                   FAMILIES["unsupported-dtype-for-op"], **UNWRITTEN)
    lines = m.render("brief").splitlines()
    assert lines[0] == "unsupported dtype I64 for op matmul (huggingface/candle)"
    assert lines[1] == "  condition: Raised in `Tensor::matmul` (candle-core) when `k != k2` (`k` differs from `k2`)."
    assert lines[2].strip().startswith(f"errhint show {m.record.id}") and m.record.github_url in lines[2]
    assert len(lines) == 3


def test_unwritten_record_never_borrows_family_text(dtype_match: Match) -> None:
    fam = FAMILIES["unsupported-dtype-for-op"]
    m = make_match("unsupported dtype {0:?} for op {1}", dict(dtype_match.captures), dtype_match.message, fam, **UNWRITTEN)
    full = m.render("full")
    assert "likely cause:" not in full and "solutions:" not in full and "fix:" not in full
    assert "prevention:" not in full and "family:" not in full and "background:" not in full
    for text in [fam["triggerScenarios"], fam["exampleFix"]] + list(fam["solutions"]) + list(fam["preventionTips"]):
        assert fill(text, dict(m.captures), []) not in full
    assert "condition: Raised in `Tensor::matmul`" in full and "Second sentence." in full
    hint = m.to_dict()["hint"]
    assert hint["cause"] == "" and hint["fix"] == "" and hint["solutions"] == [] and hint["exampleFix"] == ""
    assert hint["written"] is False and hint["condition"].startswith("Raised in `Tensor::matmul` (candle-core) when `k != k2`")
    assert dtype_match.to_dict()["hint"]["written"] is True and dtype_match.to_dict()["hint"]["condition"] == ""


def test_written_record_without_solutions_has_no_fix_line(dtype_match: Match) -> None:
    """A writer's empty list means "no specific remedy": the family's first solution must not fill it."""
    m = make_match("unsupported dtype {0:?} for op {1}", dict(dtype_match.captures), dtype_match.message,
                   FAMILIES["unsupported-dtype-for-op"], curated=True, solutions=[])
    brief = m.render("brief")
    assert "fix:" not in brief and "likely cause:" in brief


# ---------------------------------------------------------------- cutting long lines (issue 15, item 7)

WORDS = ("alpha", "beta", "gamma", "delta", "epsilon")


@pytest.mark.parametrize("limit", [40, 60, 100, 160, 220])
@pytest.mark.parametrize("n", [30, 80, 200])
def test_clip_never_cuts_a_word_and_counts_what_is_left(limit: int, n: int) -> None:
    text = " ".join(WORDS[i % len(WORDS)] + str(i) for i in range(n))
    out = render.clip(text, limit)
    assert len(out) <= limit
    if len(text) <= limit:
        assert out == text
        return
    kept, _, rest = out.partition("… (+")
    assert rest.endswith(" characters)")
    left = int(rest[: -len(" characters)")])
    assert text.startswith(kept) and len(text) - len(kept) == left
    assert kept.split()[-1] in text.split()  # the last kept word is whole
    assert text[len(kept)] == " "


def test_clip_prefers_a_reason_boundary() -> None:
    first = "The provided tensors have incompatible shapes at dimension 0."
    text = first + " Lhs tensor shape [2, 3], Rhs tensor shape [3, 2]." * 4
    assert render.clip(text, 100) == f"{first}… (+{len(text) - len(first)} characters)"
    # no reason ends late enough in the room: the last whole word is kept instead
    out = render.clip(text, 200)
    assert out.split("…")[0] == text[: len(out.split("…")[0])] and text[len(out.split("…")[0])] == " "


def test_brief_headline_of_a_long_message_is_cut_at_a_word(dtype_match: Match) -> None:
    long = "unsupported dtype I64 for op matmul " + " ".join(f"detail{i}" for i in range(60))
    m = make_match("unsupported dtype {0:?} for op {1}", dict(dtype_match.captures), long, FAMILIES["unsupported-dtype-for-op"])
    head = m.render("brief").splitlines()[0]
    kept = head.split("…")[0]
    assert kept.split()[-1].startswith("detail") and kept.split()[-1] in long.split()
    assert f"(+{len(long) - len(kept)} characters)" in head


def test_unwritten_record_without_a_condition_shows_no_condition_line(dtype_match: Match) -> None:
    """The documentation is not a condition: without triggerScenarios the line is left out."""
    m = make_match("unsupported dtype {0:?} for op {1}", dict(dtype_match.captures), dtype_match.message,
                   FAMILIES["unsupported-dtype-for-op"], **dict(UNWRITTEN, triggerScenarios=""))
    lines = m.render("brief").splitlines()
    assert len(lines) == 2 and lines[1].strip().startswith("errhint show")
