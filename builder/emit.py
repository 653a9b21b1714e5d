"""Writing ``errhint_data/``: record files, families, index and manifest, byte for byte stable.

Stability rules: records are sorted, JSON is written with fixed separators and key order,
nothing depends on wall-clock time or on the machine (dates come from commits).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from errhint.indexfile import build_index, index_files

RECORD_FILES = {
    "huggingface/candle": "records/candle.jsonl",
    "tracel-ai/burn": "records/burn.jsonl",
    "KwachOjunga/wrap-burn": "records/pyburn.jsonl",
}
SEEDS_FILE = "records/seeds.jsonl"


def record_file(repo: str) -> str:
    return RECORD_FILES.get(repo) or "records/" + repo.split("/")[-1].lower() + ".jsonl"


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def line_of(record: Dict[str, Any], dataset_version: str) -> str:
    return dumps({"record": record, "datasetVersion": dataset_version}) + "\n"


def write_dataset(
    out: Path,
    records: Sequence[Dict[str, Any]],
    seed_lines: Sequence[str],
    families: Dict[str, Any],
    dataset_version: str,
    sources: List[Dict[str, Any]],
    build_command: str,
) -> Dict[str, Any]:
    """Write everything under ``out``; returns the manifest."""
    out = Path(out)
    (out / "records").mkdir(parents=True, exist_ok=True)
    for old in (out / "records").glob("*.jsonl"):
        old.unlink()
    by_file: Dict[str, List[Dict[str, Any]]] = {}
    for rec in records:
        by_file.setdefault(record_file(rec["repo"]), []).append(rec)
    files: List[str] = []
    all_records: List[Dict[str, Any]] = []
    locations: List[Tuple[int, int, int]] = []
    manifest_files: Dict[str, Dict[str, Any]] = {}
    for name in sorted(by_file):
        recs = sorted(by_file[name], key=lambda r: (r["filePath"], r["lineNumber"], r["id"]))
        data = bytearray()
        fidx = len(files)
        files.append(name)
        for rec in recs:
            raw = line_of(rec, dataset_version).encode("utf-8")
            locations.append((fidx, len(data), len(raw)))
            all_records.append(rec)
            data += raw
        (out / name).write_bytes(bytes(data))
        manifest_files[name] = {"records": len(recs), "sha256": hashlib.sha256(bytes(data)).hexdigest()}
    # seeds, verbatim
    seed_data = bytearray()
    fidx = len(files)
    files.append(SEEDS_FILE)
    for line in seed_lines:
        raw = line.encode("utf-8")
        locations.append((fidx, len(seed_data), len(raw)))
        all_records.append(json.loads(line)["record"])
        seed_data += raw
    (out / SEEDS_FILE).write_bytes(bytes(seed_data))
    manifest_files[SEEDS_FILE] = {"records": len(seed_lines), "sha256": hashlib.sha256(bytes(seed_data)).hexdigest()}
    # families
    fam_bytes = (json.dumps(families, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")
    (out / "families.json").write_bytes(fam_bytes)
    manifest_files["families.json"] = {"records": len(families.get("families", {})), "sha256": hashlib.sha256(fam_bytes).hexdigest()}
    # index
    index = build_index(all_records, files=files, locations=locations, dataset_version=dataset_version)
    for name, blob in index_files(index).items():
        (out / name).write_bytes(blob)
        manifest_files[name] = {"records": len(all_records), "sha256": hashlib.sha256(blob).hexdigest()}
    manifest = {
        "datasetVersion": dataset_version,
        "schemaVersion": 2,
        "files": {k: manifest_files[k] for k in sorted(manifest_files)},
        "sources": sources,
        "buildCommand": build_command,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    init = out / "__init__.py"
    if not init.exists():
        init.write_text("", encoding="utf-8")
    return manifest


def dataset_version(dates: Sequence[str], inputs: Sequence[bytes]) -> str:
    """``<newest commit date>+<hash of builder inputs>``: fixed for fixed sources and curation."""
    h = hashlib.sha256()
    for blob in inputs:
        h.update(hashlib.sha256(blob).digest())
    newest = max(dates) if dates else "0000-00-00T00:00:00Z"
    return f"{newest}+{h.hexdigest()[:8]}"
