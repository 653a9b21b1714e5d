"""``python -m builder.releases add REPO VERSION``: add one release of candle or burn to the
builder's sources, with the dependency versions it pins.

A release is found in the repository's bare mirror (``--mirror-root``): its tag (``VERSION``
or ``vVERSION``), or, for a release published without a tag (candle 0.3.0 to 0.5.0), the
commit that set the workspace version to it (the "bump" commit). ``main`` adds the mirror's
newest commit as the default branch (``"branch": true``: records link it only when no release
has their template). The release goes into ``curation/sources.json`` once, in version order
(the builder takes the last label of a repository as its newest).

The dependency crates whose errors users see (cudarc, cubecl, wgpu, safetensors) are read from
the release itself: burn's ``Cargo.lock``, candle's workspace ``Cargo.toml`` (the lowest version
its requirement allows). Each version goes into ``curation/dependency_sources.json``: the
release joins ``pulledInBy`` of the entry for that version, or a new entry is made from the
dependency's tag; when the mirror has no tag for it, the newest older tag stands in and lists
the version under ``substituteFor``. A dependency version only the branch builds with is marked
``"branch": true`` as well. Running the command twice changes nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from errhint.versions import BRANCH, version_key

FRAMEWORKS = ("huggingface/candle", "tracel-ai/burn")
DEPENDENCIES = {
    # crate name in Cargo.lock / Cargo.toml -> the repository that is scanned for it
    # (one crate per repository: its version is the repository's tag)
    "cudarc": "coreylowman/cudarc",
    "cubecl-runtime": "tracel-ai/cubecl",
    "wgpu-core": "gfx-rs/wgpu",
    "safetensors": "huggingface/safetensors",
}


class ReleaseError(Exception):
    """The release (or a dependency's version) cannot be resolved in the mirrors."""


class Repo:
    """One bare mirror, read with git."""

    def __init__(self, mirror_root: Path, name: str) -> None:
        self.name = name
        self.git_dir = Path(mirror_root) / name.replace("/", "+") / "repo"
        if not self.git_dir.is_dir():
            raise ReleaseError(f"no mirror of {name} under {mirror_root}")

    def git(self, *args: str) -> str:
        out = subprocess.run(["git", f"--git-dir={self.git_dir}", *args], capture_output=True, text=True)
        return out.stdout if out.returncode == 0 else ""

    def commit_of(self, ref: str) -> Optional[str]:
        sha = self.git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
        return sha or None

    def show(self, commit: str, path: str) -> str:
        return self.git("show", f"{commit}:{path}")

    def tags(self) -> List[str]:
        return self.git("tag").split()


def workspace_version(cargo_toml: str) -> Optional[str]:
    """``version`` of ``[workspace.package]`` (or of ``[package]``) in a Cargo.toml."""
    section = None
    for line in cargo_toml.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped
            continue
        m = re.match(r'version\s*=\s*"([^"]+)"', stripped)
        if m and section in ("[workspace.package]", "[package]"):
            return m.group(1)
    return None


def resolve(repo: Repo, version: str) -> Tuple[str, str, str]:
    """``(label, commit, how)`` of ``version`` in ``repo``: its tag, the branch, or the commit
    that bumped the workspace version to it."""
    if version == BRANCH:
        sha = repo.commit_of("HEAD")
        if sha is None:
            raise ReleaseError(f"{repo.name}: the mirror has no HEAD")
        return BRANCH, sha, "the default branch's newest commit in the mirror"
    for tag in (version, f"v{version.lstrip('v')}", version.lstrip("v")):
        sha = repo.commit_of(f"refs/tags/{tag}")
        if sha is not None:
            return tag, sha, f"tag {tag}"
    bare = version.lstrip("v")
    candidates = repo.git("log", "--all", "--format=%H", "--reverse", "-G", rf'^version = "{re.escape(bare)}"', "--", "Cargo.toml")
    for sha in candidates.split():
        if workspace_version(repo.show(sha, "Cargo.toml")) == bare:
            return bare, sha, f"the commit that set the workspace version to {bare} (no tag)"
    raise ReleaseError(f"{repo.name}: no tag and no version-bump commit for {version}")


def _lowest(requirement: str) -> Optional[str]:
    """The lowest version a Cargo requirement (``"0.4.1"``, ``"^0.10"``, ``"=0.6.0"``) allows."""
    m = re.match(r"\s*[\^=~]?\s*(\d+(?:\.\d+){0,2}(?:-[\w.]+)?)", requirement)
    if not m:
        return None
    parts = m.group(1).split("-", 1)
    nums = (parts[0].split(".") + ["0", "0"])[:3]
    return ".".join(nums) + (f"-{parts[1]}" if len(parts) > 1 else "")


DEPENDENT_PREFIXES = ("burn", "cubecl", "candle", "onnx", "ug", "wgpu")
"""A locked version counts when a crate of these families depends on it directly (burn's lock
also holds, say, the safetensors of ``tch``, whose errors burn users do not see)."""
_LOCK_PACKAGE = re.compile(r'\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"(.*?)(?=\n\[\[package\]\]|\Z)', re.S)


def _locked(lock: str) -> Dict[str, set]:
    """Dependency repository -> versions in a Cargo.lock that a framework crate depends on."""
    versions: Dict[str, List[str]] = {}
    dependents: Dict[Tuple[str, str], List[str]] = {}
    for name, version, rest in _LOCK_PACKAGE.findall(lock):
        versions.setdefault(name, []).append(version)
        deps = re.search(r"dependencies = \[(.*?)\]", rest, re.S)
        for dep in re.findall(r'"([^"]+)"', deps.group(1) if deps else ""):
            dep_name, _, dep_version = dep.partition(" ")
            dependents.setdefault((dep_name, dep_version), []).append(name)
    found: Dict[str, set] = {}
    for name, repo in DEPENDENCIES.items():
        for version in versions.get(name, ()):
            # an unversioned entry in a dependents list means the only version of that crate
            users = dependents.get((name, version), []) + (dependents.get((name, ""), []) if len(versions[name]) == 1 else [])
            if any(u.startswith(DEPENDENT_PREFIXES) for u in users):
                found.setdefault(repo, set()).add(version)
    return found


def pinned_dependencies(repo: Repo, commit: str) -> Dict[str, List[str]]:
    """Dependency repository -> the versions this commit builds with (sorted, de-duplicated)."""
    lock = repo.show(commit, "Cargo.lock")
    if lock:
        found = _locked(lock)
    else:
        found = {}
        toml = repo.show(commit, "Cargo.toml")
        for name, plain, table in re.findall(r'^([\w-]+)\s*=\s*(?:"([^"]+)"|(\{[^}]*\}))', toml, re.M):
            version = plain or (re.search(r'version\s*=\s*"([^"]+)"', table).group(1) if 'version' in table else "")
            lowest = _lowest(version) if name in DEPENDENCIES and version else None
            if lowest:
                found.setdefault(DEPENDENCIES[name], set()).add(lowest)
    return {dep: sorted(vs, key=version_key) for dep, vs in found.items()}


def _insert_in_order(sources: List[Dict[str, Any]], entry: Dict[str, Any]) -> None:
    """Put ``entry`` after the last entry of its repository with an older label."""
    same = [i for i, s in enumerate(sources) if s["repo"] == entry["repo"]]
    at = len(sources)
    if same:
        older = [i for i in same if version_key(sources[i]["label"]) < version_key(entry["label"])]
        at = (older[-1] + 1) if older else same[0]
    sources.insert(at, entry)


def add_release(root: Path, mirror_root: Path, repo_name: str, version: str) -> List[str]:
    """Add ``version`` of ``repo_name`` and its dependency versions; returns what changed."""
    if repo_name not in FRAMEWORKS:
        raise ReleaseError(f"releases are added for {', '.join(FRAMEWORKS)}, not {repo_name}")
    repo = Repo(mirror_root, repo_name)
    label, commit, how = resolve(repo, version)
    changes: List[str] = []
    src_path = root / "curation" / "sources.json"
    data = json.loads(src_path.read_text(encoding="utf-8"))
    if not any(s["repo"] == repo_name and s["label"] == label for s in data["sources"]):
        entry: Dict[str, Any] = {"repo": repo_name, "label": label, "commit": commit}
        if repo_name == "huggingface/candle":
            entry["pythonRoots"] = ["candle-pyo3/py_src"]
        if label == BRANCH:
            entry["branch"] = True
        entry["note"] = how
        _insert_in_order(data["sources"], entry)
        write_sources(src_path, data)
        changes.append(f"sources.json: {repo_name}@{label} ({how}, {commit[:10]})")
    user = f"{repo_name}@{label}"
    dep_path = root / "curation" / "dependency_sources.json"
    deps = json.loads(dep_path.read_text(encoding="utf-8"))
    for dep_repo, versions in pinned_dependencies(repo, commit).items():
        for dep_version in versions:
            changes += _pull_in(deps["sources"], Repo(mirror_root, dep_repo), dep_version, user)
    if any(c.startswith("dependency_sources.json") for c in changes):
        write_dependencies(dep_path, deps)
    return changes


def _pull_in(entries: List[Dict[str, Any]], dep: Repo, version: str, user: str) -> List[str]:
    """Record that ``user`` builds with ``version`` of ``dep``."""
    mine = [e for e in entries if e["repo"] == dep.name]
    entry = next((e for e in mine if e.get("version") == version or version in (e.get("substituteFor") or ())), None)
    if entry is None:
        tag = next((t for t in (f"v{version}", version) if dep.commit_of(f"refs/tags/{t}")), None)
        substitute = tag is None
        if substitute:
            # the newest older tag, or an entry already standing in for a newer range
            known = {e["label"]: e["version"] for e in mine}
            older = [t for t in list(dep.tags()) + list(known) if re.match(r"v?\d", t)
                     and version_key(known.get(t, t)) < version_key(version)]
            if not older:
                return [f"skipped: {dep.name} {version} for {user} (no tag at or below it)"]
            tag = max(older, key=lambda t: version_key(known.get(t, t)))
        base = version if not substitute else next((e["version"] for e in mine if e["label"] == tag), tag.lstrip("v"))
        entry = next((e for e in mine if e.get("version") == base), None)
        if entry is None:
            older = [e for e in mine if version_key(e["version"]) <= version_key(base)]
            nearest = max(older or mine, key=lambda e: version_key(e["version"])) if mine else None
            entry = {"repo": dep.name, "label": tag, "version": base, "commit": dep.commit_of(f"refs/tags/{tag}")}
            if entry["commit"] is None:
                return [f"skipped: {dep.name} {version} for {user} (tag {tag} is not in the mirror)"]
            for key in ("include", "exclude", "select", "sameTextAs"):
                if nearest is not None and key in nearest:
                    entry[key] = nearest[key]
            entry["pulledInBy"] = []
            _insert_in_order(entries, entry)
        if substitute:
            entry.setdefault("substituteFor", [])
            if version not in entry["substituteFor"]:
                entry["substituteFor"].append(version)
    if user in entry.setdefault("pulledInBy", []):
        return []
    entry["pulledInBy"].append(user)
    if all(p.endswith("@" + BRANCH) for p in entry["pulledInBy"]):
        entry["branch"] = True  # only a branch builds with it: a record links it only as a last resort
    else:
        entry.pop("branch", None)
    evidence = entry.setdefault("evidence", [])
    note = f"{user} pins {dep.name.split('/')[1]} {version} (read by builder.releases)"
    if note not in evidence:
        evidence.append(note)
    return [f"dependency_sources.json: {dep.name} {entry['label']} pulled in by {user}"]


def write_sources(path: Path, data: Dict[str, Any]) -> None:
    """``sources.json`` in its committed layout: one source per line."""
    lines = ["{", '  "about": ' + json.dumps(data["about"], ensure_ascii=False) + ",", '  "sources": [']
    lines.append(",\n".join("    " + json.dumps(e, ensure_ascii=False) for e in data["sources"]))
    path.write_text("\n".join(lines) + "\n  ]\n}\n", encoding="utf-8")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def write_dependencies(path: Path, data: Dict[str, Any]) -> None:
    """``dependency_sources.json`` in its committed layout: rules and families one per line,
    each source one field per line (a list of several evidence lines one line each)."""

    def field(key: str, value: Any) -> str:
        if key == "evidence" and isinstance(value, list) and len(value) > 1:
            return f'      {_dumps(key)}: [\n' + ",\n".join(f"        {_dumps(v)}" for v in value) + "\n      ]"
        return f"      {_dumps(key)}: {_dumps(value)}"

    parts = []
    for key, value in data.items():
        if key == "sources":
            body = "[\n" + ",\n".join("    {\n" + ",\n".join(field(k, v) for k, v in e.items()) + "\n    }" for e in value) + "\n  ]"
        elif isinstance(value, list):
            body = "[\n" + ",\n".join(f"    {_dumps(v)}" for v in value) + "\n  ]"
        elif isinstance(value, dict):
            body = "{\n" + ",\n".join(f"    {_dumps(k)}: {_dumps(v)}" for k, v in value.items()) + "\n  }"
        else:
            body = _dumps(value)
        parts.append(f"  {_dumps(key)}: {body}")
    path.write_text("{\n" + ",\n".join(parts) + "\n}\n", encoding="utf-8")


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m builder.releases", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add one release (and its pinned dependency versions)")
    add.add_argument("repo", choices=FRAMEWORKS)
    add.add_argument("versions", nargs="+", metavar="VERSION", help="0.7.2, v0.19.0, ... or 'main'")
    add.add_argument("--mirror-root", type=Path, required=True)
    add.add_argument("--root", type=Path, default=Path("."), help="project root holding curation/")
    args = ap.parse_args(argv)
    try:
        for version in args.versions:
            changes = add_release(args.root, args.mirror_root, args.repo, version)
            for line in changes or [f"{args.repo} {version}: already listed"]:
                print(line)
    except ReleaseError as exc:
        print(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
