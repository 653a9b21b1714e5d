"""End to end: a fake upstream repository with two releases → a dataset, rebuilt byte for byte."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from builder import main
from errhint.indexfile import read_index
from errhint.schema import Manifest, RecordLine

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "rust"

V1 = 'pub fn f(n: usize) {\n    panic!("widget rank {n} is not supported");\n}\n'


def _git(cwd: Path, *args: str, date: str = "2024-01-01T00:00:00+00:00") -> str:
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@e")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("build")
    work = tmp / "work"
    (work / "widgets" / "src").mkdir(parents=True)
    _git(tmp, "init", "-q", str(work))
    (work / "widgets" / "Cargo.toml").write_text('[package]\nname = "widgets"\nversion = "0.1.0"\n')
    (work / "widgets" / "src" / "lib.rs").write_text(V1)
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "v1")
    c1 = _git(work, "rev-parse", "HEAD")
    (work / "widgets" / "src" / "lib.rs").write_text("// moved\n" + V1)
    shutil.copy(FIXTURES / "sites.rs", work / "widgets" / "src" / "sites.rs")
    shutil.copy(FIXTURES / "enums.rs", work / "widgets" / "src" / "error.rs")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "v2", date="2024-02-01T00:00:00+00:00")
    c2 = _git(work, "rev-parse", "HEAD")
    mirrors = tmp / "mirrors"
    mirrors.mkdir()
    _git(tmp, "clone", "-q", "--bare", str(work), str(mirrors / "example+widgets" / "repo"))
    root = tmp / "root"
    (root / "curation").mkdir(parents=True)
    sources = {"sources": [
        {"repo": "example/widgets", "label": "v1", "commit": c1},
        {"repo": "example/widgets", "label": "v2", "commit": c2},
    ]}
    (root / "curation" / "sources.json").write_text(json.dumps(sources))
    for name in ("families.json", "negatives.txt", "seeds.jsonl"):
        shutil.copy(ROOT / "curation" / name, root / "curation" / name)
    (root / "curation" / "sites").mkdir()
    return root, mirrors, c1, c2


def _build(root: Path, mirrors: Path, out: str) -> int:
    return main(["--root", str(root), "--mirror-root", str(mirrors), "--out", out, "--docs", "docs", "--quiet"])


@pytest.fixture(scope="module")
def built(project):
    root, mirrors, c1, c2 = project
    assert _build(root, mirrors, "data1") == 0
    return root, mirrors, c1, c2


def _records(out: Path):
    for f in sorted((out / "records").glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            yield json.loads(line)["record"]


def test_records_validate_and_follow_versions(built):
    root, _, c1, c2 = built
    recs = list(_records(root / "data1"))
    for f in (root / "data1" / "records").glob("*.jsonl"):
        for line in f.read_text(encoding="utf-8").splitlines():
            RecordLine.model_validate_json(line)
    by_msg = {r["errorMessage"]: r for r in recs}
    r = by_msg["widget rank {n} is not supported"]
    assert r["versions"] == ["v1", "v2"]
    assert r["lineNumber"] == 3 and r["analyzedSha"] == c2
    assert r["analyzedAt"] == "2024-02-01T00:00:00Z"
    assert "unsupported dtype {0:?} for op matmul" in by_msg


def test_manifest_matches_files(built):
    root = built[0]
    out = root / "data1"
    manifest = Manifest.model_validate_json((out / "manifest.json").read_text())
    assert manifest.build_command and manifest.sources[0].repo == "example/widgets"
    for name, entry in manifest.files.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == entry.sha256
    index = read_index(lambda name: (out / name).read_bytes())
    assert index["datasetVersion"] == manifest.dataset_version
    assert index["count"] == len(index["rows"].split("\n"))
    assert index["count"] == sum(e.records for n, e in manifest.files.items() if n.startswith("records/"))
    assert (root / "docs" / "coverage.md").read_text().count("example/widgets") >= 2


def test_seeds_are_shipped_verbatim(built):
    root = built[0]
    assert (root / "data1" / "records" / "seeds.jsonl").read_bytes() == (ROOT / "curation" / "seeds.jsonl").read_bytes()


def _snapshot(out: Path):
    return {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_rebuild_is_byte_identical(built):
    root, mirrors, _, _ = built
    first = _snapshot(root / "data1")
    coverage = (root / "docs" / "coverage.md").read_bytes()
    assert _build(root, mirrors, "data1") == 0
    assert _snapshot(root / "data1") == first
    assert (root / "docs" / "coverage.md").read_bytes() == coverage


def test_curated_text_overrides_generated_text(built):
    root, mirrors, _, _ = built
    rec = next(r for r in _records(root / "data1") if r["errorMessage"] == "widget rank {n} is not supported")
    line = {"id": rec["id"], "documentation": "Curated: widgets above rank {n} need the wide kernel.", "lineNumber": 1}
    (root / "curation" / "sites" / "010-test.jsonl").write_text(json.dumps(line) + "\n")
    try:
        assert _build(root, mirrors, "data3") == 0
        again = next(r for r in _records(root / "data3") if r["id"] == rec["id"])
        assert again["documentation"].startswith("Curated:")
        assert again["lineNumber"] == rec["lineNumber"]  # location fields are not curated
    finally:
        (root / "curation" / "sites" / "010-test.jsonl").unlink()


def test_missing_mirror_is_a_build_failure(project, tmp_path):
    root, _, _, _ = project
    assert main(["--root", str(root), "--mirror-root", str(tmp_path), "--out", "data4", "--docs", "", "--quiet"]) == 1


def test_curation_refuses_an_id_written_twice(tmp_path: Path) -> None:
    from builder.pipeline import BuildError, load_curated

    (tmp_path / "a.jsonl").write_text('{"id": "00000000000000aa", "solutions": ["one"]}\n', encoding="utf-8")
    (tmp_path / "b.jsonl").write_text('{"id": "00000000000000bb"}\n{"id": "00000000000000aa", "solutions": ["two"]}\n', encoding="utf-8")
    with pytest.raises(BuildError, match=r"b\.jsonl:2: id 00000000000000aa is already written at a\.jsonl:1"):
        load_curated(tmp_path)
    (tmp_path / "b.jsonl").write_text('{"id": "00000000000000bb", "solutions": ["two"]}\n', encoding="utf-8")
    assert load_curated(tmp_path) == {"00000000000000aa": {"solutions": ["one"]}, "00000000000000bb": {"solutions": ["two"]}}
