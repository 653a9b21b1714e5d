"""The dependency crates in the builder: CUDA result codes read from (fake) cudarc bindings,
and the dependency source list."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest
import regex

from builder import cuda_codes
from builder.sources import Mirror, Source, load_sources
from errhint.schema import Record

ROOT = Path(__file__).resolve().parents[2]
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
    e = _entry("CUDA_ERROR_UNKNOWN", commonSituations="", preventionTips=[], exampleFix="")
    bad.write_text(json.dumps(_curation(e)))
    loaded = cuda_codes.load_curation(bad)["codes"][0]
    assert loaded["commonSituations"] == "" and loaded["exampleFix"] == ""  # may say nothing


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


# ------------------------------------------------------------------ deps.py: selection, Debug forms, families

from types import SimpleNamespace  # noqa: E402

from builder import deps  # noqa: E402
from builder.scan import SnapshotResult  # noqa: E402
from builder.sites import Site  # noqa: E402
from builder.template import parse_format, synthesize, to_regex  # noqa: E402


def _site(kind: str, path: str = "wgpu-core/src/device/mod.rs", text: str = "Buffer {0:?} is invalid", **kw: object) -> Site:
    return Site(kind=kind, line=10, end_line=10, template=parse_format(text) if text else None, path=path, crate=kw.pop("crate", "wgpu-core"), **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kind, path, kept",
    [
        ("error_variant", "wgpu-core/src/resource.rs", True),
        ("variant_construction", "wgpu-core/src/device/resource.rs", True),
        ("assert", "wgpu-core/src/track/mod.rs", False),
        ("unreachable", "wgpu-core/src/command/mod.rs", False),
        ("panic", "wgpu-core/src/device/life.rs", False),
        ("panic", "wgpu/src/backend/wgpu_core.rs", True),
        ("expect", "wgpu/src/util/init.rs", True),
        ("todo", "wgpu/src/api/device.rs", False),
        ("assert", "wgpu/src/backend/webgpu/webgpu_sys/gen_GpuColorDict.rs", False),
        ("error_variant", "wgpu/src/backend/webgpu.rs", False),
    ],
)
def test_wgpu_selection_keeps_what_users_see(kind: str, path: str, kept: bool) -> None:
    assert deps.wgpu_user_facing(_site(kind, path)) is kept


@pytest.mark.parametrize(
    "variant, text, debug_output",
    [
        ({"name": "HeaderTooSmall", "shape": "unit", "fields": []}, "HeaderTooSmall", "SafeTensor(HeaderTooSmall)"),
        ({"name": "InvalidOffset", "shape": "tuple", "fields": [{"name": "0"}]}, "InvalidOffset({0:?})", 'SafeTensor(InvalidOffset("w"))'),
        ({"name": "InvalidTensorView", "shape": "tuple", "fields": [{"name": "0"}, {"name": "1"}, {"name": "2"}]},
         "InvalidTensorView({0:?}, {1:?}, {2:?})", "InvalidTensorView(F32, [2, 3], 20)"),
        ({"name": "CompileError", "shape": "struct", "fields": [{"name": "nvrtc"}, {"name": "log"}]},
         "CompileError {{ nvrtc: {nvrtc:?}, log: {log:?} }}", 'CompileError { nvrtc: NvrtcError(NVRTC_ERROR_COMPILATION), log: "x" }'),
    ],
)
def test_debug_template_matches_rust_derived_debug(variant: Dict[str, object], text: str, debug_output: str) -> None:
    tpl = deps.debug_template(variant)
    assert tpl.text == text
    pattern = regex.compile(to_regex(tpl), regex.DOTALL)
    assert pattern.search(debug_output)
    assert pattern.search(synthesize(tpl))


def _var(name: str, display: object, shape: str = "unit", fields: List[str] = (), enum: str = "SafeTensorError", transparent: bool = False) -> Dict[str, object]:  # type: ignore[assignment]
    return {"enum": enum, "name": name, "shape": shape, "fields": [{"name": f, "debug": False} for f in fields],
            "display": display, "transparent": transparent}


def test_debug_form_sites_cover_debug_only_variants_once_preferring_a_construction() -> None:
    sites = [
        # safetensors 0.4: Display is `{self:?}` (definition site) and constructions without payload
        _site("display_arm", "safetensors/src/tensor.rs", "{self:?}", crate="safetensors", definition=True,
              variant=_var("HeaderTooSmall", "{self:?}")),
        _site("variant_construction", "safetensors/src/tensor.rs", "", crate="safetensors", fn="read_metadata",
              variant=_var("HeaderTooSmall", "{self:?}"), reason="wrapper"),
        # an enum without Display, tuple variant
        _site("variant_construction", "src/nvrtc/safe.rs", "", crate="cudarc", fn="compile_ptx",
              variant=_var("CreationError", None, "tuple", ["0"], enum="CompileError"), reason="debug-only"),
        # has a real Display: not a Debug form
        _site("display_arm", "safetensors/src/tensor.rs", "header too small", crate="safetensors", definition=True,
              variant=_var("HeaderTooSmall", "header too small")),
        # transparent wrapper and tuple-struct error type: skipped
        _site("variant_construction", "a.rs", "", crate="c", variant=_var("Io", None, "tuple", ["0"], transparent=True)),
        _site("variant_construction", "src/driver/result.rs", "", crate="cudarc", variant=_var("DriverError", None, "tuple", ["0"], enum="DriverError")),
    ]
    out = deps.debug_form_sites(sites)
    assert [(s.crate, s.template.text, s.fn) for s in out] == [  # type: ignore[union-attr]
        ("cudarc", "CreationError({0:?})", "compile_ptx"),
        ("safetensors", "HeaderTooSmall", "read_metadata"),
    ]
    for s in out:
        assert s.kind == "variant_construction" and s.variant_key.endswith("::" + s.variant["name"])  # type: ignore[index]
        assert s.variant["display"] is None and all(f["debug"] for f in s.variant["fields"])  # type: ignore[index]


def _record_for(tpl_text: str, variant: Dict[str, object], kind: str = "variant_construction") -> Dict[str, object]:
    tpl = parse_format(tpl_text)
    return {"siteKind": kind, "variant": variant, "errorMessage": tpl.text, "messagePattern": to_regex(tpl)}


def test_finalize_bounds_debug_form_names_only() -> None:
    unit = deps.finalize_record(_record_for("InvalidHeader", _var("InvalidHeader", None)))
    p = regex.compile(unit["messagePattern"])  # type: ignore[arg-type]
    assert p.search("SafeTensor(InvalidHeader)") and not p.search("SafeTensor(InvalidHeaderLength)")
    assert not p.search("XInvalidHeader")
    tup = deps.finalize_record(_record_for("InvalidOffset({0:?})", _var("InvalidOffset", None, "tuple", ["0"])))
    assert str(tup["messagePattern"]).startswith("(?<![A-Za-z0-9_])")
    display = _record_for("header too small", _var("HeaderTooSmall", "header too small"), "display_arm")
    assert deps.finalize_record(display) == display
    # a construction whose text is a literal payload, not the Debug shape, is left alone
    payload = _record_for("unsupported op Foo", _var("Unsupported", None, "tuple", ["0"]))
    assert deps.finalize_record(payload) == payload


def test_extend_catalogue_inserts_before_the_default_and_adds_rules() -> None:
    data = {"families": [{"tag": "a", "rules": []}, {"tag": "internal-invariant", "rules": []}]}
    out = deps.extend_catalogue(data, [{"tag": "cuda-kernel-fault"}], [{"tag": "a", "crate": "safetensors", "rank": 0}])
    assert [f["tag"] for f in out["families"]] == ["a", "cuda-kernel-fault", "internal-invariant"]
    assert out["families"][0]["rules"] == [{"crate": "safetensors", "rank": 0}]
    assert data["families"][0]["rules"] == []  # input untouched
    with pytest.raises(ValueError):
        deps.extend_catalogue(data, [{"tag": "a"}], [])
    with pytest.raises(ValueError):
        deps.extend_catalogue(data, [], [{"tag": "nope", "crate": "x"}])


def test_shared_templates_redirect_only_same_template_and_variant() -> None:
    d = lambda repo, key, vk, i: SimpleNamespace(repo=repo, key=key, variant_key=vk, id=i)  # noqa: E731
    drafts = [d("tracel-ai/burn", "Unsupported op {}", "", "b1"), d("tracel-ai/burn-onnx", "Unsupported op {}", "", "o1"),
              d("tracel-ai/burn-onnx", "New message {}", "", "o2"), d("tracel-ai/burn-onnx", "Unsupported op {}", "E::V", "o3")]
    dl = deps.DependencyList([], same_text_as={"tracel-ai/burn-onnx": "tracel-ai/burn"})
    assert deps.shared_templates(drafts, dl) == {"o1": "b1"}
    assert deps.shared_templates(drafts, None) == {}


def test_load_reads_select_substitutes_and_same_text(tmp_path: Path) -> None:
    src = {"repo": "gfx-rs/wgpu", "label": "v1", "commit": "a" * 40, "include": ["wgpu-core"], "select": "wgpu-user-facing",
           "substituteFor": ["2.0.0"], "pulledInBy": ["tracel-ai/burn@v0.18.0"]}
    onnx = {"repo": "tracel-ai/burn-onnx", "label": "v2", "commit": "b" * 40, "sameTextAs": "tracel-ai/burn"}
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"sources": [src, onnx], "familyRules": [{"tag": "x", "crate": "y"}], "families": [{"tag": "f"}]}))
    dl = deps.load(path)
    assert dl.select == {("gfx-rs/wgpu", "v1"): "wgpu-user-facing"}
    assert dl.substitutes == {("gfx-rs/wgpu", "v1"): ["2.0.0"]}
    assert dl.same_text_as == {"tracel-ai/burn-onnx": "tracel-ai/burn"}
    assert dl.family_rules == [{"tag": "x", "crate": "y"}] and dl.families == [{"tag": "f"}]
    src["select"] = "everything"
    path.write_text(json.dumps({"sources": [src]}))
    with pytest.raises(ValueError, match="selection rule"):
        deps.load(path)


def test_postprocess_applies_the_rule_and_adds_debug_forms() -> None:
    source = Source("gfx-rs/wgpu", "v1", "a" * 40)
    sites = [_site("error_variant"), _site("assert", text="internal"),
             _site("variant_construction", "wgpu-core/src/x.rs", "", variant=_var("Lost", None, enum="DeviceError"))]
    res = SnapshotResult(source, "2024-01-01T00:00:00Z", sites, 1, 0, 10)
    out = deps.postprocess(res, deps.DependencyList([source], select={("gfx-rs/wgpu", "v1"): "wgpu-user-facing"}))
    kinds = [(s.kind, s.template.text if s.template else None) for s in out.sites]
    assert ("assert", "internal") not in kinds
    assert ("variant_construction", "Lost") in kinds and ("error_variant", "Buffer {0:?} is invalid") in kinds
    assert len(res.sites) == 3  # the scan result itself is not modified


def test_summary_rows_and_markdown() -> None:
    a = Source("huggingface/safetensors", "v0.4.1", "a" * 40, pulled_in_by=("huggingface/candle@0.4.2",))
    b = Source("huggingface/safetensors", "v0.8.0-rc.0", "b" * 40, pulled_in_by=("huggingface/candle@0.11.0",))
    dl = deps.DependencyList([a, b], substitutes={("huggingface/safetensors", "v0.8.0-rc.0"): ["0.8.0"]})
    rows = [SimpleNamespace(repo="huggingface/safetensors", sites=10, literal=8, matched=8),
            SimpleNamespace(repo="huggingface/safetensors", sites=12, literal=10, matched=9),
            SimpleNamespace(repo="huggingface/candle", sites=99, literal=99, matched=99)]
    summary = deps.summary_rows(dl, rows, [{"repo": "huggingface/safetensors"}] * 3 + [{"repo": "huggingface/candle"}])
    assert len(summary) == 1
    r = summary[0]
    assert (r.sites, r.literal, r.matched, r.records) == (22, 18, 17, 3)
    assert r.pulled_in_by == ["huggingface/candle@0.4.2", "huggingface/candle@0.11.0"]
    md = deps.render_summary(summary, {"declared": {"driver": 100}, "codes": {"CUDA_ERROR_OUT_OF_MEMORY": ["v1"]}, "missing": []}, 1)
    assert "| huggingface/safetensors | v0.4.1, v0.8.0-rc.0 |" in md and "94.4%" in md and "v0.8.0-rc.0 for 0.8.0" in md
    assert "| driver | 100 | 1 |" in md
