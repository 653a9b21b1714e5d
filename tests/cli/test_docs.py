"""The CLI reference (docs/cli.md) stays true to the parser and the JSON, and the docs build strictly."""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest
from cli_support import CANDLE_DTYPE, DTYPE_ID, cli, cli_data  # noqa: F401 (fixtures)

from errhint.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
CLI_DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def subparsers() -> Dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def section(name: str) -> str:
    """The text of ``## name`` up to the next level-2 heading."""
    m = re.search(rf"^## {re.escape(name)}\n(.*?)(?=^## |\Z)", CLI_DOC, re.S | re.M)
    assert m, f"docs/cli.md has no section '## {name}'"
    return m.group(1)


def json_section(name: str) -> str:
    m = re.search(rf"^### {re.escape(name)}\n(.*?)(?=^### |\Z)", CLI_DOC, re.S | re.M)
    assert m, f"docs/cli.md has no JSON section '### {name}'"
    return m.group(1)


def test_every_subcommand_and_option_is_documented() -> None:
    common = CLI_DOC.split("## explain")[0]  # the shared options, before the per-command sections
    for name, parser in subparsers().items():
        text = section(name)
        for action in parser._actions:
            for flag in action.option_strings:
                if flag in ("-h", "--help"):
                    continue
                assert flag in text or flag in common, (name, flag)


def test_exit_code_table_covers_0_1_2() -> None:
    table = section("Exit codes")
    for code in ("| 0 |", "| 1 |", "| 2 |"):
        assert code in table


def keys_documented(doc_section: str, obj: Dict[str, Any]) -> List[str]:
    return [k for k in obj if f'"{k}"' not in doc_section]


def test_json_keys_are_documented(cli: Callable[..., Any], cli_data: Path, tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text(f"ValueError: {CANDLE_DTYPE}\n", encoding="utf-8")
    docs = {
        "explain": cli("explain", "--data", str(cli_data), "--json", CANDLE_DTYPE).json(),
        "scan": cli("scan", "--data", str(cli_data), "--json", str(log)).json(),
        "show": cli("show", "--data", str(cli_data), "--json", DTYPE_ID).json(),
        "search": cli("search", "--data", str(cli_data), "--json", "matmul").json(),
        "stats": cli("stats", "--data", str(cli_data), "--json").json(),
        "validate": cli("validate", "--json", str(cli_data)).json(),
    }
    for name, doc in docs.items():
        assert keys_documented(json_section(name), doc) == [], name
    assert keys_documented(json_section("scan"), docs["scan"]["findings"][0]) == []
    assert keys_documented(json_section("scan"), docs["scan"]["summary"][0]) == []
    assert keys_documented(json_section("search"), docs["search"]["results"][0]) == []
    match = docs["explain"]["matches"][0]
    assert keys_documented(json_section("A match"), match) == []
    assert keys_documented(json_section("A match"), match["hint"]) == []


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="mkdocs not installed (pip install '.[docs]')")
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "site" / "cli" / "index.html").is_file()
