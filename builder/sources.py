"""Pinned sources: the committed list (``curation/sources.json``), reading files from bare git
mirrors, the test/bench/example exclusion rules and crate attribution.

Files are read with ``git ls-tree`` + ``git cat-file --batch`` straight from the mirror, so a
build never writes upstream code anywhere and is unaffected by a checkout's state.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

EXCLUDED_DIR_NAMES = {"tests", "test", "benches", "bench", "examples", "example", "xtask", "fuzz"}
EXCLUDED_DIR_SUFFIXES = ("-tests", "_tests", "-testgen", "-test")
EXCLUDED_TOP_DIRS = {
    "candle-examples",
    "candle-wasm-examples",
    "candle-wasm-tests",
    "candle-book",
    "burn-book",
    "contributor-book",
    "examples",
    "xtask",
    "backend-comparison",
}
_EXCLUDED_FILE = re.compile(r"^(?:tests?\.rs|.*_tests?\.rs|test_.*\.rs|build\.rs)$")


@dataclass(frozen=True)
class Source:
    """One pinned revision of one repository."""

    repo: str
    label: str
    commit: str
    include: Optional[Tuple[str, ...]] = None
    """Directory prefixes to scan (None: the whole repository)."""
    exclude: Tuple[str, ...] = ()
    python_roots: Tuple[str, ...] = ()
    pulled_in_by: Optional[Tuple[str, ...]] = None
    binding: bool = False
    """True for the binding crates' own repositories (wrap-burn)."""
    binding_release: bool = False
    """True for the release a pip binding runs (candle 0.4.2, burn v0.18.0, wrap-burn v0.1.7)."""
    branch: bool = False
    """True for the default branch's newest commit: newer than every release, but a record
    links it only when no release has the template."""

    @property
    def mirror_name(self) -> str:
        return self.repo.replace("/", "+")

    def as_manifest(self) -> Dict[str, object]:
        out: Dict[str, object] = {"repo": self.repo, "label": self.label, "commit": self.commit}
        if self.include:
            out["include"] = list(self.include)
        if self.pulled_in_by:
            out["pulledInBy"] = list(self.pulled_in_by)
        return out


def load_sources(path: Path) -> List[Source]:
    """Read ``curation/sources.json``: ``{"sources": [{repo, label, commit, include?, ...}]}``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out: List[Source] = []
    for entry in data["sources"]:
        out.append(
            Source(
                repo=entry["repo"],
                label=entry["label"],
                commit=entry["commit"],
                include=tuple(entry["include"]) if entry.get("include") else None,
                exclude=tuple(entry.get("exclude") or ()),
                python_roots=tuple(entry.get("pythonRoots") or ()),
                pulled_in_by=tuple(entry["pulledInBy"]) if entry.get("pulledInBy") else None,
                binding=bool(entry.get("binding", False)),
                binding_release=bool(entry.get("bindingRelease", False)),
                branch=bool(entry.get("branch", False)),
            )
        )
    return out


def excluded_path(path: str) -> bool:
    """The path rules of research/sites.md §Method (tests, benches, examples, build scripts)."""
    parts = path.split("/")
    if parts[0] in EXCLUDED_TOP_DIRS:
        return True
    for d in parts[:-1]:
        if d in EXCLUDED_DIR_NAMES or d.endswith(EXCLUDED_DIR_SUFFIXES):
            return True
    return bool(_EXCLUDED_FILE.match(parts[-1]))


class Mirror:
    """Read-only access to one bare git mirror."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)

    def _git(self, *args: str, input: Optional[bytes] = None) -> bytes:
        return subprocess.run(
            ["git", f"--git-dir={self.git_dir}", *args], input=input, capture_output=True, check=True
        ).stdout

    def exists(self) -> bool:
        return (self.git_dir / "HEAD").exists() or (self.git_dir / "objects").exists()

    def commit_date(self, commit: str) -> str:
        """Committer date of ``commit`` in UTC, ISO 8601 with a ``Z`` (reproducible 'analyzedAt')."""
        raw = self._git("show", "-s", "--format=%cI", commit).decode().strip()
        dt = datetime.fromisoformat(raw).astimezone(timezone.utc)
        return dt.strftime("%Y-%m-%dT%H:%M:%SZ")

    def list_files(self, commit: str) -> List[Tuple[str, str]]:
        """(path, blob sha) of every blob at ``commit``."""
        out = self._git("ls-tree", "-r", "-z", "--full-tree", commit)
        files: List[Tuple[str, str]] = []
        for entry in out.split(b"\0"):
            if not entry:
                continue
            meta, _, path = entry.partition(b"\t")
            mode, kind, sha = meta.split()
            if kind == b"blob":
                files.append((path.decode("utf-8", "replace"), sha.decode()))
        return files

    def read_blobs(self, shas: Sequence[str]) -> Dict[str, str]:
        """Contents of blobs (decoded as UTF-8); missing blobs (LFS, partial mirrors) are skipped."""
        if not shas:
            return {}
        unique = sorted(set(shas))
        proc = subprocess.run(
            ["git", f"--git-dir={self.git_dir}", "cat-file", "--batch"],
            input=("\n".join(unique) + "\n").encode(),
            capture_output=True,
            check=True,
        )
        data = proc.stdout
        out: Dict[str, str] = {}
        pos = 0
        for sha in unique:
            nl = data.index(b"\n", pos)
            header = data[pos:nl].split()
            pos = nl + 1
            if len(header) < 3 or header[1] == b"missing":
                continue
            size = int(header[2])
            out[sha] = data[pos : pos + size].decode("utf-8", "replace")
            pos += size + 1
        return out


@dataclass
class SnapshotFiles:
    """The files of one source revision that the builder scans."""

    rust: Dict[str, Tuple[str, str]] = field(default_factory=dict)  # path -> (sha, text)
    python: Dict[str, Tuple[str, str]] = field(default_factory=dict)
    cargo: Dict[str, str] = field(default_factory=dict)  # Cargo.toml path -> text
    excluded_files: int = 0


def select_files(source: Source, listing: Sequence[Tuple[str, str]]) -> Tuple[List[Tuple[str, str]], List[Tuple[str, str]], List[Tuple[str, str]], int]:
    """Split a listing into (rust, python, cargo) files to read, plus the count of excluded .rs files."""
    rust, python, cargo = [], [], []
    excluded = 0
    for path, sha in listing:
        if source.include and not any(path == p or path.startswith(p.rstrip("/") + "/") for p in source.include):
            if not (path.endswith("Cargo.toml")):
                continue
        if any(path.startswith(p.rstrip("/") + "/") for p in source.exclude):
            continue
        if path.endswith("Cargo.toml"):
            cargo.append((path, sha))
        elif path.endswith(".rs"):
            if excluded_path(path):
                excluded += 1
            else:
                rust.append((path, sha))
        elif path.endswith(".py") and any(path.startswith(r.rstrip("/") + "/") for r in source.python_roots):
            if not excluded_path(path) and "/tests/" not in path and not path.rsplit("/", 1)[-1].startswith("test_"):
                python.append((path, sha))
    return rust, python, cargo, excluded


def read_snapshot(mirror: Mirror, source: Source) -> SnapshotFiles:
    listing = mirror.list_files(source.commit)
    rust, python, cargo, excluded = select_files(source, listing)
    blobs = mirror.read_blobs([sha for _, sha in rust + python + cargo])
    snap = SnapshotFiles(excluded_files=excluded)
    for path, sha in rust:
        if sha in blobs:
            snap.rust[path] = (sha, blobs[sha])
    for path, sha in python:
        if sha in blobs:
            snap.python[path] = (sha, blobs[sha])
    for path, sha in cargo:
        if sha in blobs:
            snap.cargo[path] = blobs[sha]
    return snap


_PKG_NAME = re.compile(r'^\s*name\s*=\s*"([^"]+)"', re.M)


def package_name(cargo_text: str) -> Optional[str]:
    """``[package] name`` of a Cargo.toml (None for a virtual workspace manifest)."""
    m = re.search(r"^\[package\]\s*$(.*?)(?=^\[|\Z)", cargo_text, re.M | re.S)
    if not m:
        return None
    n = _PKG_NAME.search(m.group(1))
    return n.group(1) if n else None


class CrateMap:
    """Attributes a file to the Cargo package of its nearest Cargo.toml."""

    def __init__(self, cargo: Dict[str, str], default: str) -> None:
        self.dirs: Dict[str, str] = {}
        for path, text in cargo.items():
            name = package_name(text)
            if name:
                self.dirs[path.rpartition("/")[0]] = name
        self.default = default

    def crate_of(self, path: str) -> str:
        d = path.rpartition("/")[0]
        while True:
            if d in self.dirs:
                return self.dirs[d]
            if not d:
                return self.default
            d = d.rpartition("/")[0]


def mirror_for(mirror_root: Path, source: Source) -> Mirror:
    return Mirror(Path(mirror_root) / source.mirror_name / "repo")


def iter_sorted(d: Dict[str, Tuple[str, str]]) -> Iterator[Tuple[str, str, str]]:
    for path in sorted(d):
        sha, text = d[path]
        yield path, sha, text
