"""Builder side of issue 8: CUDA result codes read from (fake) cudarc bindings, and the
dependency source list."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest
import regex

from errhint.build import cuda_codes
from errhint.build.sources import Mirror, Source, load_sources
from errhint.schema import Record

ROOT = Path(__file__).resolve().parents[1]
DEP_SOURCES = ROOT / "curation" / "dependency_sources.json"
CUDA_CURATION = ROOT / "curation" / "cuda_codes.json"

OLD_SYS = """\
/* generated */
pub enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_FOUND = 500,
}
"""
NEW_SYS = """\
#[cfg(feature = "cuda-12000")]
pub enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_MAPPED = 211,
    CUDA_ERROR_NOT_MAPPED_AS_ARRAY = 212,
}
#[cfg(feature = "cuda-12090")]
pub enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
}
"""
CUBLAS_SYS = "pub enum cublasStatus_t {\n    CUBLAS_STATUS_SUCCESS = 0,\n    CUBLAS_STATUS_NOT_SUPPORTED = 15,\n}\n"


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_DATE": "2024-01-02T03:04:05Z", "GIT_COMMITTER_DATE": "2024-01-02T03:04:05Z",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout.strip()


def _commit(work: Path, files: Dict[str, str]) -> str:
    for rel, text in files.items():
        p = work / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "x")
    return _git(work, "rev-parse", "HEAD")


@pytest.fixture()
def fake_cudarc(tmp_path: Path) -> Dict[str, object]:
    """A two-commit cudarc-like repository (old single-file and new per-version binding layout),
    reachable as a mirror root ``<root>/coreylowman+cudarc/repo``."""
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q")
    old = _commit(work, {"src/driver/sys.rs": OLD_SYS, "src/cublas/sys.rs": CUBLAS_SYS, "src/lib.rs": "// lib\n"})
    (work / "src/driver/sys.rs").unlink()
    new = _commit(work, {"src/driver/sys/mod.rs": NEW_SYS})
    sources = [
        Source("coreylowman/cudarc", "v0.1.0", old, pulled_in_by=("huggingface/candle@0.4.2",)),
        Source("coreylowman/cudarc", "v0.2.0", new, pulled_in_by=("tracel-ai/burn@v0.18.0", "huggingface/candle@0.4.2")),
    ]
    root = tmp_path / "mirrors"
    (root / "coreylowman+cudarc").mkdir(parents=True)
    (root / "coreylowman+cudarc" / "repo").symlink_to(work / ".git")
    return {"root": root, "sources": sources, "old": old, "new": new, "git": work / ".git"}


def _curation(*codes: Dict[str, object]) -> Dict[str, object]:
    base = json.loads(CUDA_CURATION.read_text())
    return {"shapes": base["shapes"], "codes": list(codes)}


def _entry(code: str, library: str = "driver", **extra: object) -> Dict[str, object]:
    entry: Dict[str, object] = {
        "code": code, "library": library, "backgroundTag": "cuda-out-of-memory",
        "documentation": "doc", "triggerScenarios": "t", "commonSituations": "c",
        "solutions": ["s"], "exampleFix": "x", "handlingStrategy": "configuration",
        "preventionTips": ["p"], "tags": ["cuda"],
    }
    entry.update(extra)
    return entry


def test_scan_codes_reads_first_declaration_with_value_and_line(fake_cudarc: Dict[str, object]) -> None:
    mirror = Mirror(fake_cudarc["git"])  # type: ignore[arg-type]
    codes = cuda_codes.scan_codes(mirror, fake_cudarc["new"], "driver")  # type: ignore[arg-type]
    assert set(codes) == {"CUDA_ERROR_OUT_OF_MEMORY", "CUDA_ERROR_NOT_FOUND", "CUDA_ERROR_NOT_MAPPED", "CUDA_ERROR_NOT_MAPPED_AS_ARRAY"}
    oom = codes["CUDA_ERROR_OUT_OF_MEMORY"]
    assert (oom.value, oom.path, oom.line) == (2, "src/driver/sys/mod.rs", 4)
    assert "CUDA_SUCCESS" not in codes


def test_scan_codes_keeps_libraries_apart(fake_cudarc: Dict[str, object]) -> None:
    mirror = Mirror(fake_cudarc["git"])  # type: ignore[arg-type]
    cublas = cuda_codes.scan_codes(mirror, fake_cudarc["old"], "cublas")  # type: ignore[arg-type]
    assert set(cublas) == {"CUBLAS_STATUS_SUCCESS", "CUBLAS_STATUS_NOT_SUPPORTED"}
    assert not any(n.startswith("CUDA_ERROR_") for n in cublas)


def _build(fake: Dict[str, object], curation: Dict[str, object], tmp_path: Path):
    return cuda_codes.build_records(curation, fake["sources"], fake["root"])  # type: ignore[arg-type]


def test_build_records_versions_pulled_in_by_and_newest_location(fake_cudarc: Dict[str, object], tmp_path: Path) -> None:
    records, report = _build(fake_cudarc, _curation(_entry("CUDA_ERROR_OUT_OF_MEMORY", errorString="out of memory"),
                                                    _entry("CUDA_ERROR_INVALID_VALUE", errorString="invalid argument")), tmp_path)
    by_code = {r["errorCode"]: r for r in records}
    oom = by_code["CUDA_ERROR_OUT_OF_MEMORY"]
    assert oom["versions"] == ["v0.1.0", "v0.2.0"]
    assert oom["pulledInBy"] == ["huggingface/candle@0.4.2", "tracel-ai/burn@v0.18.0"]
    assert oom["filePath"] == "src/driver/sys/mod.rs" and oom["analyzedSha"] == fake_cudarc["new"]
    assert oom["githubUrl"].endswith(f"/{fake_cudarc['new']}/src/driver/sys/mod.rs#L4-L4")
    assert oom["errorMessage"] == 'DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")'
    assert oom["analyzedAt"] == "2024-01-02T03:04:05Z"
    # INVALID_VALUE only exists in the old layout: the record points there.
    inv = by_code["CUDA_ERROR_INVALID_VALUE"]
    assert inv["versions"] == ["v0.1.0"] and inv["filePath"] == "src/driver/sys.rs"
    assert inv["pulledInBy"] == ["huggingface/candle@0.4.2"]
    assert report["missing"] == []
    for r in records:
        Record.model_validate(r)


def test_code_missing_from_every_version_is_reported_not_emitted(fake_cudarc: Dict[str, object], tmp_path: Path) -> None:
    records, report = _build(fake_cudarc, _curation(_entry("CUDA_ERROR_NO_DEVICE")), tmp_path)
    assert records == [] and report["missing"] == ["CUDA_ERROR_NO_DEVICE"]


def test_documentation_states_value_and_runtime_name(fake_cudarc: Dict[str, object], tmp_path: Path) -> None:
    records, _ = _build(fake_cudarc, _curation(_entry("CUDA_ERROR_NOT_FOUND", errorString="named symbol not found",
                                                       runtimeName="cudaErrorSymbolNotFound")), tmp_path)
    doc = records[0]["documentation"]
    assert "value 500" in doc and "cudaErrorSymbolNotFound" in doc and doc.endswith("doc")


def test_record_ids_are_stable_and_distinct() -> None:
    assert cuda_codes.record_id("CUDA_ERROR_OUT_OF_MEMORY") == cuda_codes.record_id("CUDA_ERROR_OUT_OF_MEMORY")
    assert cuda_codes.record_id("CUDA_ERROR_OUT_OF_MEMORY") != cuda_codes.record_id("CUDA_ERROR_NOT_FOUND")


@pytest.mark.parametrize(
    "code, text, hit",
    [
        ("CUDA_ERROR_NOT_FOUND", 'DriverError(CUDA_ERROR_NOT_FOUND, "named symbol not found") when loading cast_f32_bf16', True),
        ("CUDA_ERROR_NOT_FOUND", 'Cuda(Load { cuda: DriverError(CUDA_ERROR_NOT_FOUND, "named symbol not found"), module_name: "x" })', True),
        ("CUDA_ERROR_NOT_MAPPED", "DriverError(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, \"mapped resource not available for access as an array\")", False),
        ("CUDA_ERROR_OUT_OF_MEMORY", "out of memory", False),
        ("CUBLAS_STATUS_NOT_SUPPORTED", "CublasError(CUBLAS_STATUS_NOT_SUPPORTED)", True),
    ],
)
def test_code_pattern_matches_inside_composites_only_on_whole_name(code: str, text: str, hit: bool) -> None:
    assert bool(regex.compile(cuda_codes.code_pattern(code), regex.DOTALL).search(text)) is hit


def test_load_curation_rejects_wrong_prefix_and_missing_text(tmp_path: Path) -> None:
    bad = tmp_path / "c.json"
    bad.write_text(json.dumps(_curation(_entry("CUBLAS_STATUS_NOT_SUPPORTED", library="driver"))))
    with pytest.raises(ValueError, match="prefix"):
        cuda_codes.load_curation(bad)
    e = _entry("CUDA_ERROR_UNKNOWN")
    del e["solutions"]
    bad.write_text(json.dumps(_curation(e)))
    with pytest.raises(ValueError, match="solutions"):
        cuda_codes.load_curation(bad)


# ------------------------------------------------------------------ the committed curation


def test_committed_cuda_curation_covers_the_codes_users_hit() -> None:
    data = cuda_codes.load_curation(CUDA_CURATION)
    codes = {c["code"] for c in data["codes"]}
    required = {
        "CUDA_ERROR_OUT_OF_MEMORY", "CUDA_ERROR_NOT_FOUND", "CUDA_ERROR_NO_BINARY_FOR_GPU",
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "CUDA_ERROR_INVALID_PTX", "CUDA_ERROR_NOT_INITIALIZED",
        "CUDA_ERROR_NO_DEVICE", "CUDA_ERROR_INVALID_DEVICE", "CUDA_ERROR_LAUNCH_FAILED",
        "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_INVALID_IMAGE",
        "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "CUDA_ERROR_DEVICE_UNAVAILABLE",
    }
    assert required <= codes
    assert 25 <= len(codes) <= 60


def test_committed_cuda_curation_names_the_checking_commands() -> None:
    """The issue asks for the commands that check the usual causes, not just prose."""
    data = cuda_codes.load_curation(CUDA_CURATION)
    text = {c["code"]: json.dumps(c) for c in data["codes"]}
    assert "compute_cap" in text["CUDA_ERROR_NO_BINARY_FOR_GPU"] and "CUDA_COMPUTE_CAP" in text["CUDA_ERROR_NO_BINARY_FOR_GPU"]
    assert "nvcc --version" in text["CUDA_ERROR_UNSUPPORTED_PTX_VERSION"]
    assert "nvidia-smi" in text["CUDA_ERROR_OUT_OF_MEMORY"]
    assert "bf16" in text["CUDA_ERROR_NOT_FOUND"]
    for code, blob in text.items():
        assert any(cmd in blob for cmd in ("nvidia-smi", "nvcc", "ldconfig", "CUDA_LAUNCH_BLOCKING", "compute-sanitizer", "systemctl", "cudnn", "contiguous", "RUST_BACKTRACE", "ulimit")), code


# ------------------------------------------------------------------ dependency source list


def test_dependency_sources_load_with_the_builder_reader() -> None:
    sources = load_sources(DEP_SOURCES)
    repos = {s.repo for s in sources}
    assert repos == {"huggingface/safetensors", "coreylowman/cudarc", "tracel-ai/cubecl", "gfx-rs/wgpu", "tracel-ai/burn-onnx"}
    for s in sources:
        assert len(s.commit) == 40 and s.include and s.pulled_in_by
        for p in s.pulled_in_by:
            repo, _, label = p.partition("@")
            assert repo in {"huggingface/candle", "tracel-ai/burn", "KwachOjunga/wrap-burn"} and label


def test_every_pinned_candle_and_burn_release_pulls_safetensors_and_cudarc() -> None:
    sources = load_sources(DEP_SOURCES)
    releases = [f"huggingface/candle@{v}" for v in ("0.4.2", "0.6.0", "0.8.0", "0.9.1", "0.11.0")]
    releases += [f"tracel-ai/burn@{v}" for v in ("v0.13.0", "v0.16.0", "v0.18.0", "v0.20.0", "v0.21.0")]
    for repo in ("huggingface/safetensors", "coreylowman/cudarc"):
        pulled = {p for s in sources if s.repo == repo for p in s.pulled_in_by or ()}
        assert set(releases) <= pulled, (repo, set(releases) - pulled)


@pytest.mark.skipif(not Path("/work/.mirror/coreylowman+cudarc/repo").exists(), reason="needs the upstream mirrors")
def test_dependency_commits_exist_in_the_mirrors() -> None:
    for s in load_sources(DEP_SOURCES):
        git = Path("/work/.mirror") / s.mirror_name / "repo"
        out = subprocess.run(["git", f"--git-dir={git}", "cat-file", "-t", s.commit], capture_output=True, text=True)
        assert out.stdout.strip() == "commit", (s.repo, s.label)
