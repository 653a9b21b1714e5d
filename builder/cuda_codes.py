"""CUDA result codes (driver ``CUresult``, cuBLAS, NVRTC, cuDNN) as records keyed by ``errorCode``.

Why a module of its own: no source line in cudarc *writes* ``CUDA_ERROR_OUT_OF_MEMORY`` as a
message.  The text users paste is cudarc's ``Debug`` of a status enum
(``DriverError(CUDA_ERROR_NOT_FOUND, "named symbol not found")``), often wrapped by candle or
burn, so the site miner cannot find it.  The facts (names, numeric values, where the binding
declares them) come from cudarc's generated ``sys`` bindings at the pinned cudarc versions;
the remediation text is ours, in ``curation/cuda_codes.json``.  A code record's pattern is the
bare code name, so it matches inside any composite message.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from builder.sources import Mirror, Source

REPO = "coreylowman/cudarc"
CRATE = "cudarc"

LIBRARY_DIRS: Mapping[str, str] = {
    "driver": "src/driver",
    "cublas": "src/cublas",
    "nvrtc": "src/nvrtc",
    "cudnn": "src/cudnn",
}
LIBRARY_PREFIXES: Mapping[str, str] = {
    "driver": "CUDA_ERROR_",
    "cublas": "CUBLAS_STATUS_",
    "nvrtc": "NVRTC_ERROR_",
    "cudnn": "CUDNN_STATUS_",
}
LIBRARY_TITLES: Mapping[str, str] = {
    "driver": "CUDA driver result",
    "cublas": "cuBLAS status",
    "nvrtc": "NVRTC result",
    "cudnn": "cuDNN status",
}
_SYS_FILE = re.compile(r"/sys(?:\.rs|/[^/]+\.rs)$")
_MEMBER = re.compile(r"^\s*([A-Z][A-Z0-9_]+) = (-?\d+),", re.M)
TEXT_FIELDS = (
    "documentation",
    "triggerScenarios",
    "commonSituations",
    "solutions",
    "exampleFix",
    "handlingStrategy",
    "preventionTips",
)
OPTIONAL_TEXT = ("commonSituations", "preventionTips", "exampleFix")
"""Text fields an entry may leave empty: where nothing specific to the code can be said (or no
snippet would be right for every program that meets the code), it says
nothing rather than filler."""


@dataclass(frozen=True)
class CodeSite:
    """Where one version of cudarc's bindings declares a status code."""

    name: str
    value: int
    path: str
    line: int


def scan_codes(mirror: Mirror, commit: str, library: str) -> Dict[str, CodeSite]:
    """Status codes of ``library`` declared in cudarc's sys bindings at ``commit``.

    Files are visited in path order and the first declaration wins, so the result is
    deterministic even though newer cudarc repeats each enum once per CUDA version.
    """
    prefix = LIBRARY_PREFIXES[library]
    root = LIBRARY_DIRS[library] + "/"
    listing = [(p, sha) for p, sha in mirror.list_files(commit) if p.startswith(root) and _SYS_FILE.search(p)]
    blobs = mirror.read_blobs([sha for _, sha in listing])
    found: Dict[str, CodeSite] = {}
    for path, sha in sorted(listing):
        text = blobs.get(sha)
        if text is None:
            continue
        for m in _MEMBER.finditer(text):
            name = m.group(1)
            if name.startswith(prefix) and name not in found:
                line = text.count("\n", 0, m.start(1)) + 1
                found[name] = CodeSite(name, int(m.group(2)), path, line)
    return found


def load_curation(path: Path) -> Dict[str, Any]:
    """Read ``curation/cuda_codes.json`` (``shapes``, ``codes``, optional ``families``)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    seen = set()
    for entry in data["codes"]:
        code, lib = entry["code"], entry["library"]
        if lib not in LIBRARY_PREFIXES or not code.startswith(LIBRARY_PREFIXES[lib]):
            raise ValueError(f"{code}: library {lib!r} does not match the code's prefix")
        if code in seen:
            raise ValueError(f"{code}: listed twice")
        seen.add(code)
        missing = [f for f in TEXT_FIELDS + ("backgroundTag",) if f not in OPTIONAL_TEXT and not entry.get(f)]
        if missing:
            raise ValueError(f"{code}: missing {', '.join(missing)}")
    return data


def record_id(code: str) -> str:
    """Stable id: repository + code name (the code is the record's key, not a line)."""
    return hashlib.sha256(f"{REPO}\0{code}".encode()).hexdigest()[:16]


def code_pattern(code: str) -> str:
    """The bare name with word boundaries: ``_`` is a word character, so ``CUDA_ERROR_NOT_MAPPED``
    does not fire inside ``CUDA_ERROR_NOT_MAPPED_AS_ARRAY``."""
    return r"\b" + re.escape(code) + r"\b"


def example_message(entry: Mapping[str, Any], shapes: Mapping[str, str]) -> str:
    """What cudarc's ``Debug`` prints for this code (candle/burn show it verbatim or wrapped)."""
    return shapes[entry["library"]].format(code=entry["code"], errorString=entry.get("errorString", ""))


def _slug(code: str) -> str:
    return code.lower().replace("_", "-")


def _documentation(entry: Mapping[str, Any], values: Sequence[int]) -> str:
    """The record's facts first (library, numeric value, the driver's own words), then our text.

    cuDNN 9 renumbered its statuses, so a code can have several values across versions.
    """
    shown = f"value {values[0]}" if len(values) == 1 else "value " + " or ".join(map(str, values)) + " depending on the library version"
    head = f"{LIBRARY_TITLES[entry['library']]} {entry['code']} ({shown}"
    if entry.get("errorString"):
        head += f', described by the driver as "{entry["errorString"]}"'
    head += ")."
    if entry.get("runtimeName"):
        head += f" The CUDA runtime API reports the same condition as {entry['runtimeName']}."
    return f"{head} {entry['documentation']}"


def build_records(
    curation: Mapping[str, Any],
    sources: Sequence[Source],
    mirror_root: Path,
) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
    """One record per curated code, plus a report ({code: versions}, codes missing everywhere).

    ``sources`` are the cudarc entries of the dependency list, oldest first; a code's record
    points at its declaration in the newest version that has it.
    """
    cudarc = [s for s in sources if s.repo == REPO]
    if not cudarc:
        raise ValueError("no coreylowman/cudarc source to read the status codes from")
    per_version: List[Tuple[Source, Dict[str, Dict[str, CodeSite]], str]] = []
    for src in cudarc:
        mirror = Mirror(Path(mirror_root) / src.mirror_name / "repo")
        libs = {lib: scan_codes(mirror, src.commit, lib) for lib in LIBRARY_DIRS}
        per_version.append((src, libs, mirror.commit_date(src.commit)))

    shapes = curation["shapes"]
    records: List[Dict[str, Any]] = []
    report: Dict[str, Any] = {"codes": {}, "missing": [], "valueConflicts": [], "declared": {}}
    for lib in LIBRARY_DIRS:
        names = {name for _, libs, _ in per_version for name in libs[lib]}
        report["declared"][lib] = len({n for n in names if not n.endswith("_SUCCESS")})
    for entry in curation["codes"]:
        code, lib = entry["code"], entry["library"]
        present = [(src, libs[lib][code], date) for src, libs, date in per_version if code in libs[lib]]
        if not present:
            report["missing"].append(code)
            continue
        values = sorted({site.value for _, site, _ in present})
        if len(values) > 1:
            report["valueConflicts"].append({"code": code, "values": values})
        newest, site, date = present[-1]
        pulled: List[str] = []
        for src, _, _ in present:
            for p in src.pulled_in_by or ():
                if p not in pulled:
                    pulled.append(p)
        versions = [src.label for src, _, _ in present]
        report["codes"][code] = versions
        records.append(_record(entry, shapes, newest, site, date, versions, pulled, values))
    return records, report


def _record(
    entry: Mapping[str, Any],
    shapes: Mapping[str, str],
    src: Source,
    site: CodeSite,
    date: str,
    versions: List[str],
    pulled: List[str],
    values: List[int],
) -> Dict[str, Any]:
    code = entry["code"]
    tags = list(dict.fromkeys(["cudarc", entry["library"], *entry.get("tags", []), *([entry["runtimeName"]] if entry.get("runtimeName") else [])]))
    return {
        "id": record_id(code),
        "repo": REPO,
        "slug": _slug(code),
        "errorCode": code,
        "errorMessage": example_message(entry, shapes),
        "messagePattern": code_pattern(code),
        "errorType": "exception",
        "errorClass": None,
        "httpStatus": None,
        "severity": entry.get("severity", "error"),
        "filePath": site.path,
        "lineNumber": site.line,
        "sourceCode": None,
        "sourceCodeStart": site.line,
        "sourceCodeEnd": site.line,
        "githubUrl": f"https://github.com/{REPO}/blob/{src.commit}/{site.path}#L{site.line}-L{site.line}",
        "documentation": _documentation(entry, values),
        "triggerScenarios": entry["triggerScenarios"],
        "commonSituations": entry.get("commonSituations", ""),
        "solutions": list(entry["solutions"]),
        "exampleFix": entry["exampleFix"],
        "handlingStrategy": entry["handlingStrategy"],
        "validationCode": None,
        "typeGuard": None,
        "tryCatchPattern": None,
        "preventionTips": list(entry.get("preventionTips", [])),
        "tags": tags,
        "backgroundTag": entry["backgroundTag"],
        "analyzedSha": src.commit,
        "analyzedAt": date,
        "contentChangedAt": None,
        "schemaVersion": 2,
        "crate": CRATE,
        "siteKind": "error_code",
        "versions": versions,
        "variant": None,
        "pulledInBy": pulled,
    }

