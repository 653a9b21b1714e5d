"""The records users hit most (``curation/hot_sites.jsonl``), for hand-written per-site text.

Ranking is by where the site lives (tensor creation, shapes, dtypes, devices, indexing,
reductions, conv/pool, quantization and weight loading in candle-core/candle-nn; burn-tensor's
checks and API, module records, the ndarray backend; the bindings themselves), by whether the
release behind the pip bindings has it (candle 0.4.2, burn v0.18.0), and by how many releases
carry it.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Sequence, Tuple

HOT_COUNT = 300

PATH_WEIGHTS: Sequence[Tuple[str, float]] = (
    (r"^candle-core/src/(tensor|shape|layout|dtype|device|tensor_cat|tensor_indexing|storage|op)\.rs$", 10.0),
    (r"^candle-core/src/error\.rs$", 10.0),
    (r"^candle-core/src/(cpu_backend|cpu)/", 7.0),
    (r"^candle-core/src/(conv|pool|safetensors|quantized/|npy|pickle|utils)", 7.0),
    (r"^candle-nn/src/", 8.0),
    (r"^candle-pyo3/", 9.0),
    (r"^crates/burn-tensor/src/tensor/api/check\.rs$", 10.0),
    (r"^crates/burn-tensor/src/tensor/(api|data|shape|element)", 8.0),
    (r"^crates/burn-tensor/src/", 5.0),
    (r"^crates/burn-core/src/(record|module)/", 7.0),
    (r"^crates/burn-core/src/nn/", 6.0),
    (r"^crates/burn-nn/src/", 6.0),
    (r"^crates/burn-ndarray/src/", 6.0),
    (r"^crates/burn-(optim|train)/src/", 3.0),
    (r"^src/", 9.0),  # wrap-burn (pyburn) itself
    (r"^candle-core/src/(metal_backend|cuda_backend)", 2.0),
    (r"^candle-core/src/", 4.0),
)
BINDING_LABELS = {"huggingface/candle": "0.4.2", "tracel-ai/burn": "v0.18.0", "KwachOjunga/wrap-burn": "v0.1.7"}
HOT_FAMILIES = {
    "tensor-creation", "shape-mismatch-binary-op", "broadcast", "matmul-shape", "reshape-elem-count",
    "rank-mismatch", "dim-out-of-range", "narrow-invalid-args", "index-out-of-range", "index-dtype",
    "unsupported-dtype-for-op", "dtype-mismatch", "device-mismatch", "not-compiled-with-cuda",
    "reduction-args", "conv-invalid-args", "pool-invalid-args", "quantization", "safetensors-load",
    "gguf-load", "nn-module-config", "requires-contiguous", "concat-stack", "empty-tensor",
    "python-binding-args", "tensor-data-conversion",
}


def score(rec: Dict[str, Any], labels: Dict[str, List[str]]) -> float:
    path = rec["filePath"]
    weight = next((w for pat, w in PATH_WEIGHTS if re.search(pat, path)), 1.0)
    versions = rec.get("versions") or []
    total = max(1, len(labels.get(rec["repo"], [])))
    s = weight * (1.0 + len(versions) / total)
    if BINDING_LABELS.get(rec["repo"]) in versions:
        s *= 2.0
    if rec.get("backgroundTag") in HOT_FAMILIES:
        s *= 1.5
    if rec.get("errorType") == "compile":
        s *= 0.1
    s += min(len(rec.get("raisedAt") or ()), 5) * 0.5
    return round(s, 3)


def hot_sites(
    records: Sequence[Dict[str, Any]],
    labels: Dict[str, List[str]],
    previous: Sequence[str] = (),
    count: int = HOT_COUNT,
) -> List[Dict[str, Any]]:
    """The hot list. It is sticky: ids of the previous list that still exist keep their rank (people
    work through it by rank), and only freed places are filled with the best-scored new records."""
    by_id = {r["id"]: r for r in records}
    kept = [by_id[i] for i in previous if i in by_id][:count]
    taken = {r["id"] for r in kept}
    fresh = sorted((r for r in records if r["id"] not in taken), key=lambda r: (-score(r, labels), r["id"]))
    ranked = kept + fresh[: count - len(kept)]
    out = []
    for rank, r in enumerate(ranked, 1):
        out.append(
            {
                "rank": rank,
                "id": r["id"],
                "score": score(r, labels),
                "repo": r["repo"],
                "errorMessage": r["errorMessage"],
                "messagePattern": r.get("messagePattern"),
                "filePath": r["filePath"],
                "lineNumber": r.get("lineNumber"),
                "analyzedSha": r.get("analyzedSha"),
                "crate": r.get("crate"),
                "siteKind": r.get("siteKind"),
                "variant": r.get("variant"),
                "versions": r.get("versions"),
                "backgroundTag": r["backgroundTag"],
                "documentation": r["documentation"],
                "triggerScenarios": r["triggerScenarios"],
                "solutions": r["solutions"],
                "exampleFix": r["exampleFix"],
            }
        )
    return out
