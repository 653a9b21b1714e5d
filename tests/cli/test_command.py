"""The ``errhint`` command: parsing and exit codes, ``explain``, colour, the builder pass-through,
``python -m errhint``. ``scan``, ``run``, ``demo`` and the record commands have their own files."""

from __future__ import annotations

import io
import json
import os
import sys
import types
from pathlib import Path
from typing import Any, Callable, List

import pytest
from cli_support import (  # noqa: F401 (fixtures)
    BURN_ID,
    BURN_MARK,
    BURN_REPORT,
    CANDLE_DTYPE,
    CANDLE_DTYPE_BT,
    CANDLE_SHAPE,
    DTYPE_ID,
    DTYPE_MARK,
    SHAPE_ID,
    child_env,
    cli,
    cli_data,
    run_module,
)

from errhint.cli._common import Output

MATCH_KEYS = {
    "id", "repo", "score", "kind", "message", "captures", "errorType", "siteKind",
    "backgroundTag", "githubUrl", "hint", "record", "family",
}  # fmt: skip

# ---------------------------------------------------------------- parsing and exit codes


@pytest.mark.parametrize(
    "argv, code",
    [
        ([], 2),
        (["--help"], 0),
        (["--version"], 0),
        (["frobnicate"], 2),
        (["explain", "--limit", "0", "x"], 2),
        (["explain", "--min-score", "1.5", "x"], 2),
        (["scan"], 2),
        (["show"], 2),
        (["validate"], 2),
        (["run"], 2),
    ],
)
def test_usage_errors_exit_2_and_help_exits_0(cli: Callable[..., Any], argv: List[str], code: int) -> None:
    assert cli(*argv).code == code


def test_missing_data_path_is_a_usage_error(cli: Callable[..., Any], tmp_path: Path) -> None:
    res = cli("explain", "--data", str(tmp_path / "nope.jsonl"), "x")
    assert res.code == 2 and "no such file" in res.err


def test_help_lists_every_subcommand(cli: Callable[..., Any]) -> None:
    out = cli("--help").out
    for name in ("explain", "scan", "show", "search", "stats", "validate", "run", "dataset", "demo"):
        assert f"    {name}" in out


# ---------------------------------------------------------------- explain


def test_explain_candle_debug_form_fills_the_hint(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("explain", "--data", str(cli_data), CANDLE_DTYPE)
    assert res.code == 0
    assert res.out.splitlines()[0] == "unsupported dtype I64 for op matmul (huggingface/candle)"
    assert f"Cast the I64 tensor to F32 before matmul ({DTYPE_MARK})" in res.out
    assert f"errhint show {DTYPE_ID}" in res.out
    assert len(res.out.splitlines()) <= 5  # brief: computed advice adds the record's fix as `or:`


def test_explain_joins_unquoted_words_and_reads_stdin(cli: Callable[..., Any], cli_data: Path) -> None:
    words = "unsupported dtype U8 for op conv2d".split()
    assert "Cast the U8 tensor to F32 before conv2d" in cli("explain", "--data", str(cli_data), *words).out
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 12, in <module>\n'
        "    y = x.matmul(x)\n"
        f"ValueError: {CANDLE_DTYPE_BT}\n"
    )
    res = cli("explain", "--data", str(cli_data), stdin=traceback)
    assert res.code == 0 and DTYPE_MARK in res.out
    assert cli("explain", "--data", str(cli_data), "-", stdin=CANDLE_SHAPE).code == 0


def test_explain_burn_panic_with_type(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("explain", "--data", str(cli_data), "--type", "PanicException", "--json", BURN_REPORT)
    doc = res.json()
    assert res.code == 0
    assert doc["matches"][0]["id"] == BURN_ID
    assert BURN_MARK in doc["matches"][0]["hint"]["fix"]
    assert "[2, 3]" in doc["matches"][0]["hint"]["fix"]


def test_explain_full_adds_documentation_and_every_fix(cli: Callable[..., Any], cli_data: Path) -> None:
    brief = cli("explain", "--data", str(cli_data), CANDLE_DTYPE).out
    full = cli("explain", "--data", str(cli_data), "--full", CANDLE_DTYPE).out
    assert "No kernel exists" not in brief and "No kernel exists" in full
    assert "Pick a dtype the op supports" in full and "x = x.to_dtype(candle.f32)" in full


def test_explain_json_shape(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("explain", "--data", str(cli_data), "--json", CANDLE_DTYPE_BT)
    doc = res.json()
    assert set(doc) == {"matches", "count"}
    assert doc["count"] == len(doc["matches"]) >= 1
    m = doc["matches"][0]
    assert set(m) >= MATCH_KEYS
    assert m["id"] == DTYPE_ID and isinstance(m["score"], float) and 0 < m["score"] <= 1
    assert m["message"] == "unsupported dtype I64 for op matmul"
    assert "I64" in m["captures"].values() and "matmul" in m["captures"].values()
    assert m["record"]["id"] == DTYPE_ID and m["record"]["repo"] == "huggingface/candle"


def test_explain_nothing_found(cli: Callable[..., Any], cli_data: Path) -> None:
    res = cli("explain", "--data", str(cli_data), "KeyError: 'weight'")
    assert res.code == 1 and res.out == "" and "no known" in res.err
    res = cli("explain", "--data", str(cli_data), "--json", "KeyError: 'weight'")
    assert res.code == 1 and res.json() == {"matches": [], "count": 0}


def test_explain_repo_filter_and_limit(cli: Callable[..., Any], cli_data: Path) -> None:
    assert cli("explain", "--data", str(cli_data), "--repo", "tracel-ai/burn", CANDLE_DTYPE).code == 1
    assert cli("explain", "--data", str(cli_data), "--repo", "huggingface/candle", CANDLE_DTYPE).code == 0
    doc = cli("explain", "--data", str(cli_data), "--json", "--limit", "1", CANDLE_DTYPE).json()
    assert doc["count"] == 1


def test_explain_empty_stdin_is_a_usage_error(cli: Callable[..., Any], cli_data: Path) -> None:
    assert cli("explain", "--data", str(cli_data), stdin="  \n").code == 2


# ---------------------------------------------------------------- colour


def test_colour_only_when_asked_or_on_a_terminal(cli: Callable[..., Any], cli_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "\x1b[" not in cli("explain", "--data", str(cli_data), CANDLE_DTYPE).out  # captured: not a TTY
    assert "\x1b[" in cli("explain", "--data", str(cli_data), "--color", "always", CANDLE_DTYPE).out
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in cli("explain", "--data", str(cli_data), "--color", "always", CANDLE_DTYPE).out


def test_colour_auto_follows_the_terminal(clean_errhint: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from errhint.cli._common import decide_color

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert decide_color("auto", Tty()) is True
    assert decide_color("auto", io.StringIO()) is False
    assert decide_color("never", Tty()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert decide_color("auto", Tty()) is False


def test_rich_draws_tables_when_installed_plain_text_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("rich")
    rows = [[3, "abc"], [12, "de"]]
    fancy = io.StringIO()
    out = Output(fancy, color=True, json_mode=False)
    assert out.rich
    out.table(["n", "name"], rows, right=(0,))
    assert "\x1b[" in fancy.getvalue() and "─" in fancy.getvalue()

    monkeypatch.setitem(sys.modules, "rich", None)  # as if rich were not installed
    monkeypatch.setitem(sys.modules, "rich.console", None)
    plain = io.StringIO()
    out = Output(plain, color=True, json_mode=False)
    assert not out.rich
    out.table(["n", "name"], rows, right=(0,))
    assert "─" not in plain.getvalue()
    assert [ln.replace("\x1b[2m", "").replace("\x1b[0m", "") for ln in plain.getvalue().splitlines()] == [
        " n  name",
        " 3  abc",
        "12  de",
    ]


def test_plain_table_without_colour_has_no_escape_codes() -> None:
    buf = io.StringIO()
    Output(buf, color=False, json_mode=False).table(["a", "b"], [["x", None]])
    assert buf.getvalue() == "a  b\nx\n"


# ---------------------------------------------------------------- dataset pass-through


def test_dataset_passes_every_argument_to_the_builder(cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    seen: List[List[str]] = []

    def fake_main(argv: List[str]) -> int:
        seen.append(list(argv))
        return 3

    fake = types.ModuleType("builder")
    fake.main = fake_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "builder", fake)
    assert cli("dataset", "build", "--mirror-root", "/m", "--json", "--help").code == 3
    assert cli("dataset", "--help").code == 3
    assert cli("dataset", "coverage", "x").code == 3
    assert seen == [["--mirror-root", "/m", "--json", "--help"], ["--help"], ["coverage", "x"]]


def test_dataset_help_is_the_real_builders(cli: Callable[..., Any]) -> None:
    pytest.importorskip("builder.cli")
    res = cli("dataset", "build", "--help")
    assert res.code == 0 and "--mirror-root" in res.out


def test_dataset_builder_usage_exit_is_returned(cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_main(argv: List[str]) -> int:
        raise SystemExit(2)

    fake = types.ModuleType("builder")
    fake.main = fake_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "builder", fake)
    assert cli("dataset", "--bogus").code == 2


# ---------------------------------------------------------------- python -m errhint


def test_python_dash_m_errhint(cli_data: Path) -> None:
    proc = run_module("explain", "--data", str(cli_data), CANDLE_DTYPE)
    assert proc.returncode == 0, proc.stderr
    assert DTYPE_MARK in proc.stdout
    proc = run_module("explain", "--data", str(cli_data), "nothing to see")
    assert proc.returncode == 1
    assert run_module().returncode == 2


def test_no_color_in_a_child_even_with_force_color(cli_data: Path) -> None:
    forced = run_module("explain", "--data", str(cli_data), CANDLE_DTYPE, env=child_env(FORCE_COLOR="1"))
    assert "\x1b[" in forced.stdout
    both = run_module("explain", "--data", str(cli_data), CANDLE_DTYPE, env=child_env(FORCE_COLOR="1", NO_COLOR="1"))
    assert "\x1b[" not in both.stdout and DTYPE_MARK in both.stdout


def test_a_bad_user_dataset_costs_only_its_bad_lines(tmp_path: Path, cli_data: Path) -> None:
    """A bad line and a missing path in ERRHINT_DATA: one warning each, the good user record
    and the shipped records still hint, exit 0, no traceback."""
    mixed = tmp_path / "mixed.jsonl"
    good = cli_data.read_text(encoding="utf-8").splitlines()[0]  # the dtype record, with DTYPE_MARK
    bad_field = json.loads(cli_data.read_text(encoding="utf-8").splitlines()[1])
    bad_field["record"]["lineNumber"] = -3
    mixed.write_text("{nope\n" + good + "\n" + json.dumps(bad_field) + "\n", encoding="utf-8")
    env = child_env(shipped=True, ERRHINT_DATA=os.pathsep.join([str(mixed), str(tmp_path / "absent.jsonl")]))
    for attempt in range(2):  # the second process reads the validated cache: same warnings, same hints
        res = run_module("explain", CANDLE_DTYPE, env=env)
        assert res.returncode == 0, res.stderr
        assert DTYPE_MARK in res.stdout  # the user's good record
        warnings = [line for line in res.stderr.splitlines() if line]
        assert len(warnings) == 3 and all(w.startswith("errhint: warning: ") for w in warnings)
        assert sum(f"{mixed}:1: not valid JSON" in w for w in warnings) == 1
        assert sum(f"{mixed}:3: record {SHAPE_ID}: field lineNumber" in w for w in warnings) == 1
        assert sum("absent.jsonl" in w and "no such file" in w for w in warnings) == 1
        assert "Traceback" not in res.stderr
    shipped = run_module("explain", "--json", "shape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]", env=env)
    assert shipped.returncode == 0 and json.loads(shipped.stdout)["count"] >= 1  # shipped hints intact


def test_dataset_without_the_builder_says_how_to_get_it(cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "builder", None)  # as in an installed wheel: not importable
    res = cli("dataset", "build", "--help")
    assert res.code == 2
    assert "python -m builder" in res.err and "checkout" in res.err
