"""Post-import callbacks: run now if imported, else right after the import, leaving no trace."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterator, List

import pytest

from errhint.hooks._postimport import Watch, when_imported


@pytest.fixture
def fresh_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = "errhint_watch_target"
    (tmp_path / f"{name}.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    meta = list(sys.meta_path)
    yield name
    sys.modules.pop(name, None)
    sys.meta_path[:] = meta


def test_runs_now_when_already_imported() -> None:
    seen: List[Any] = []
    assert when_imported("sys", seen.append) is None
    assert seen == [sys]


def test_runs_after_the_module_executed(fresh_module: str) -> None:
    seen: List[Any] = []
    watch = when_imported(fresh_module, lambda m: seen.append(m.VALUE))
    assert isinstance(watch, Watch) and watch in sys.meta_path and seen == []
    module = __import__(fresh_module)
    assert seen == [42]
    assert watch not in sys.meta_path
    assert type(module.__loader__).__name__ != "_Loader" and module.__spec__.loader is module.__loader__


def test_cancel_before_import(fresh_module: str) -> None:
    seen: List[Any] = []
    watch = when_imported(fresh_module, seen.append)
    assert watch is not None
    watch.cancel()
    __import__(fresh_module)
    assert seen == [] and watch not in sys.meta_path


def test_failing_callback_is_contained(fresh_module: str, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ERRHINT_DEBUG", raising=False)
    when_imported(fresh_module, lambda m: 1 / 0)
    module = __import__(fresh_module)
    assert module.VALUE == 42
    assert "errhint: internal error: after import errhint_watch_target: ZeroDivisionError" in capsys.readouterr().err


def test_missing_module_still_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    meta = list(sys.meta_path)
    try:
        when_imported("errhint_no_such_module_x", lambda m: None)
        with pytest.raises(ModuleNotFoundError):
            __import__("errhint_no_such_module_x")
    finally:
        sys.meta_path[:] = meta
