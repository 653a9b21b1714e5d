"""User datasets: bad lines skipped with a warning, validated once and cached by mtime and content hash."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

from errhint import data, userdata


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("ERRHINT_CACHE_DIR", str(folder))
    monkeypatch.delenv("ERRHINT_DATA", raising=False)
    return folder


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> List[str]:
    """Ids of the records that went through schema validation in this test."""
    seen: List[str] = []
    real = data.validate

    def counting(name: str, lineno: int, obj: Dict[str, Any], **kw: Any) -> Any:
        seen.append(str(obj.get("id")))
        return real(name, lineno, obj, **kw)

    monkeypatch.setattr(data, "validate", counting)
    return seen


def _write(path: Path, recs: List[Dict[str, Any]], extra: str = "") -> Path:
    path.write_text(extra + "".join(json.dumps({"record": r}) + "\n" for r in recs), encoding="utf-8")
    return path


def test_second_load_reads_the_cache_without_validating(cache: Path, tmp_path: Path, validations: List[str], make_record: Callable[..., Dict[str, Any]]) -> None:
    path = _write(tmp_path / "u.jsonl", [make_record(), make_record(id="00000000000000bb")])
    ix, ids = userdata.user_index([str(path)])
    assert ids == {"00000000000000aa", "00000000000000bb"} and len(validations) == 2
    ix2, ids2 = userdata.user_index([str(path)])
    assert ids2 == ids and len(validations) == 2  # cached: not validated again
    assert ix2.record(0)["id"] == ix.record(0)["id"] and ix2.record(1)["errorMessage"] == make_record()["errorMessage"]


def test_a_touched_unchanged_file_is_not_revalidated_a_changed_one_is(cache: Path, tmp_path: Path, validations: List[str], make_record: Callable[..., Dict[str, Any]]) -> None:
    path = _write(tmp_path / "u.jsonl", [make_record()])
    userdata.user_index([str(path)])
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    userdata.user_index([str(path)])
    assert len(validations) == 1  # same content hash
    _write(path, [make_record(errorMessage="widget count mismatch: wanted {expected}, got {got}")])
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 9_000_000_000))
    ix, _ = userdata.user_index([str(path)])
    assert len(validations) == 2 and "wanted" in ix.record(0)["errorMessage"]


def test_bad_lines_are_skipped_with_one_warning_each_also_from_the_cache(cache: Path, tmp_path: Path, make_record: Callable[..., Dict[str, Any]], capsys: pytest.CaptureFixture) -> None:
    bad = make_record(id="00000000000000bb", lineNumber=-3)
    path = _write(tmp_path / "u.jsonl", [make_record(), bad], extra="[1, 2]\n")
    for _ in range(2):
        _, ids = userdata.user_index([str(path)])
        assert ids == {"00000000000000aa"}
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 2
        assert f"{path}:1: a line must be a JSON object" in err[0]
        assert f"{path}:3: record 00000000000000bb: field lineNumber" in err[1]


def test_an_unwritable_cache_still_gives_the_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_record: Callable[..., Dict[str, Any]]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ERRHINT_CACHE_DIR", str(blocker / "sub"))
    path = _write(tmp_path / "u.jsonl", [make_record()])
    ix, ids = userdata.user_index([str(path)])
    assert ids == {"00000000000000aa"} and ix.record(0)["id"] == "00000000000000aa"


def test_a_folder_stands_for_every_jsonl_under_it(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_record: Callable[..., Dict[str, Any]]) -> None:
    root = tmp_path / "mine"
    (root / "records" / "deep").mkdir(parents=True)
    _write(root / "top.jsonl", [make_record()])
    _write(root / "records" / "deep" / "more.jsonl", [make_record(id="00000000000000bb")])
    (root / "notes.txt").write_text("not a dataset")
    monkeypatch.setenv("ERRHINT_DATA", str(root))
    _, ids = userdata.user_index([])
    assert ids == {"00000000000000aa", "00000000000000bb"}


def test_an_all_bad_file_is_cached_too(cache: Path, tmp_path: Path, validations: List[str], make_record: Callable[..., Dict[str, Any]], capsys: pytest.CaptureFixture) -> None:
    path = _write(tmp_path / "u.jsonl", [make_record(lineNumber=-1)])
    assert userdata.user_index([str(path)]) is None
    assert userdata.user_index([str(path)]) is None
    assert len(validations) == 1  # the second process reads the verdict from the cache
    assert capsys.readouterr().err.count("field lineNumber") == 2  # warned each time


@pytest.mark.parametrize("xdg", [None, "/tmp/xdg-cache-test", "  "])
def test_the_default_cache_folder_is_platformdirs_own(monkeypatch: pytest.MonkeyPatch, xdg: Any) -> None:
    platformdirs = pytest.importorskip("platformdirs")
    monkeypatch.delenv("ERRHINT_CACHE_DIR", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    expected = os.path.join(platformdirs.user_cache_dir("errhint", appauthor=False), "datasets")
    assert userdata.cache_root() == expected
