"""``python -m builder.releases add``: one command adds a release and the dependency versions it
pins, against small git mirrors made here (tags, a tag-less version bump, a branch)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Dict

import pytest

from builder import releases
from errhint.versions import version_key

LOCK = """\
[[package]]
name = "burn-core"
version = "0.2.0"
dependencies = [
 "cubecl-runtime",
 "cudarc 0.13.9",
 "safetensors 0.4.5",
]

[[package]]
name = "cubecl-runtime"
version = "0.6.0"

[[package]]
name = "cudarc"
version = "0.13.9"

[[package]]
name = "cudarc"
version = "0.16.6"
dependencies = [
 "libc",
]

[[package]]
name = "cubecl-cuda"
version = "0.6.0"
dependencies = [
 "cudarc 0.16.6",
]

[[package]]
name = "safetensors"
version = "0.3.3"

[[package]]
name = "safetensors"
version = "0.4.5"

[[package]]
name = "tch"
version = "0.20.0"
dependencies = [
 "safetensors 0.3.3",
]
"""

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_AUTHOR_DATE": "2024-01-01T00:00:00", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00", "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout.strip()


def _commit(work: Path, files: Dict[str, str], message: str, tag: str = "") -> str:
    for name, text in files.items():
        (work / name).write_text(text)
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", message)
    if tag:
        _git(work, "tag", tag)
    return _git(work, "rev-parse", "HEAD")


def _mirror(root: Path, name: str, work: Path) -> None:
    dest = root / name.replace("/", "+") / "repo"
    dest.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(dest)], check=True)


@pytest.fixture
def world(tmp_path: Path):
    """Mirrors of a framework (candle-like: Cargo.toml only; burn-like: Cargo.lock) and of
    three dependencies, and a project root whose curation lists one release of each."""
    mirrors = tmp_path / "mirrors"
    shas: Dict[str, str] = {}
    candle = tmp_path / "candle"
    candle.mkdir()
    _git(candle, "init", "-q")
    toml = '[workspace.package]\nversion = "{v}"\n\n[workspace.dependencies]\ncudarc = {{ version = "0.10.0", features = [\n  "f16",\n] }}\nsafetensors = "^0.4.1"\n'
    shas["c0.3.0"] = _commit(candle, {"Cargo.toml": toml.format(v="0.3.0")}, "Bump the version to 0.3.0.")
    _commit(candle, {"README": "x"}, "work")
    shas["c0.4.0"] = _commit(candle, {"Cargo.toml": toml.format(v="0.4.0")}, "release", tag="0.4.0")
    shas["cmain"] = _commit(candle, {"README": "y"}, "after the release")
    _mirror(mirrors, "huggingface/candle", candle)
    burn = tmp_path / "burn"
    burn.mkdir()
    _git(burn, "init", "-q")
    shas["b0.2.0"] = _commit(burn, {"Cargo.lock": LOCK}, "release", tag="v0.2.0")
    _mirror(mirrors, "tracel-ai/burn", burn)
    for dep, tags in (("coreylowman/cudarc", ["v0.10.0", "v0.13.9", "v0.16.0"]),
                      ("huggingface/safetensors", ["v0.3.3", "v0.4.1", "v0.4.5"]),
                      ("tracel-ai/cubecl", ["v0.6.0"])):
        work = tmp_path / dep.replace("/", "_")
        work.mkdir()
        _git(work, "init", "-q")
        for t in tags:
            shas[f"{dep}@{t}"] = _commit(work, {"v": t}, t, tag=t)
        _mirror(mirrors, dep, work)
    root = tmp_path / "project"
    (root / "curation").mkdir(parents=True)
    sources = {"about": "test", "sources": [
        {"repo": "huggingface/candle", "label": "0.4.0", "commit": shas["c0.4.0"]},
        {"repo": "tracel-ai/burn", "label": "v0.1.0", "commit": "0" * 40},
    ]}
    releases.write_sources(root / "curation" / "sources.json", sources)
    deps = {"comment": "test", "sources": [
        {"repo": "coreylowman/cudarc", "label": "v0.10.0", "version": "0.10.0", "commit": shas["coreylowman/cudarc@v0.10.0"],
         "include": ["src"], "pulledInBy": ["huggingface/candle@0.4.0"]},
    ]}
    releases.write_dependencies(root / "curation" / "dependency_sources.json", deps)
    return root, mirrors, shas


def _sources(root: Path):
    return json.loads((root / "curation" / "sources.json").read_text())["sources"]


def _deps(root: Path):
    return json.loads((root / "curation" / "dependency_sources.json").read_text())["sources"]


def test_a_tagless_release_is_its_version_bump_commit_and_goes_before_newer_ones(world):
    root, mirrors, shas = world
    releases.add_release(root, mirrors, "huggingface/candle", "0.3.0")
    candle = [s for s in _sources(root) if s["repo"] == "huggingface/candle"]
    assert [s["label"] for s in candle] == ["0.3.0", "0.4.0"]
    assert candle[0]["commit"] == shas["c0.3.0"] and candle[0]["pythonRoots"] == ["candle-pyo3/py_src"]


def test_the_branch_is_the_newest_and_marked(world):
    root, mirrors, shas = world
    releases.add_release(root, mirrors, "huggingface/candle", "main")
    candle = [s for s in _sources(root) if s["repo"] == "huggingface/candle"]
    assert candle[-1]["label"] == "main" and candle[-1]["branch"] is True and candle[-1]["commit"] == shas["cmain"]


def test_adding_twice_changes_nothing(world):
    root, mirrors, _ = world
    first = releases.add_release(root, mirrors, "tracel-ai/burn", "v0.2.0")
    before = (root / "curation" / "sources.json").read_text(), (root / "curation" / "dependency_sources.json").read_text()
    assert first and releases.add_release(root, mirrors, "tracel-ai/burn", "0.2.0") == []
    after = (root / "curation" / "sources.json").read_text(), (root / "curation" / "dependency_sources.json").read_text()
    assert before == after


def test_candle_pins_the_lowest_version_its_requirements_allow(world):
    root, mirrors, _ = world
    releases.add_release(root, mirrors, "huggingface/candle", "0.3.0")
    deps = _deps(root)
    cudarc = next(d for d in deps if d["repo"] == "coreylowman/cudarc" and d["version"] == "0.10.0")
    assert cudarc["pulledInBy"] == ["huggingface/candle@0.4.0", "huggingface/candle@0.3.0"]
    st = next(d for d in deps if d["repo"] == "huggingface/safetensors")
    assert (st["label"], st["version"], st["pulledInBy"]) == ("v0.4.1", "0.4.1", ["huggingface/candle@0.3.0"])


def test_burn_reads_its_lock_and_an_untagged_version_has_a_stand_in(world):
    root, mirrors, shas = world
    releases.add_release(root, mirrors, "tracel-ai/burn", "v0.2.0")
    deps = {(d["repo"], d["label"]): d for d in _deps(root)}
    assert deps[("coreylowman/cudarc", "v0.13.9")]["pulledInBy"] == ["tracel-ai/burn@v0.2.0"]
    assert deps[("coreylowman/cudarc", "v0.13.9")]["include"] == ["src"]  # copied from the nearest entry
    stand_in = deps[("coreylowman/cudarc", "v0.16.0")]  # 0.16.6 has no tag: the newest older one stands in
    assert stand_in["substituteFor"] == ["0.16.6"] and stand_in["commit"] == shas["coreylowman/cudarc@v0.16.0"]
    assert deps[("tracel-ai/cubecl", "v0.6.0")]["pulledInBy"] == ["tracel-ai/burn@v0.2.0"]
    # the lock's safetensors 0.3.3 is tch's, not a burn crate's: not pulled in
    assert [d["version"] for d in _deps(root) if d["repo"] == "huggingface/safetensors"] == ["0.4.5"]
    labels = [d["label"] for d in _deps(root) if d["repo"] == "coreylowman/cudarc"]
    assert labels == sorted(labels, key=version_key)


def test_an_unknown_version_is_a_clear_error(world, capsys):
    root, mirrors, _ = world
    code = releases.main(["add", "tracel-ai/burn", "v9.9.9", "--mirror-root", str(mirrors), "--root", str(root)])
    assert code == 1 and "no tag and no version-bump commit for v9.9.9" in capsys.readouterr().out


def test_the_committed_layouts_are_kept(tmp_path):
    """Writing the committed files back unchanged reproduces them byte for byte."""
    root = Path(__file__).resolve().parents[2] / "curation"
    releases.write_sources(tmp_path / "s.json", json.loads((root / "sources.json").read_text()))
    assert (tmp_path / "s.json").read_text() == (root / "sources.json").read_text()
    data = json.loads((root / "dependency_sources.json").read_text())
    releases.write_dependencies(tmp_path / "d.json", data)
    assert json.loads((tmp_path / "d.json").read_text()) == data


def test_a_dependency_version_only_the_branch_uses_is_marked_as_branch(world):
    root, mirrors, _ = world
    releases.add_release(root, mirrors, "huggingface/candle", "main")
    st = next(d for d in _deps(root) if d["repo"] == "huggingface/safetensors")
    assert st["pulledInBy"] == ["huggingface/candle@main"] and st["branch"] is True
    releases.add_release(root, mirrors, "huggingface/candle", "0.3.0")
    st = next(d for d in _deps(root) if d["repo"] == "huggingface/safetensors")
    assert "branch" not in st
