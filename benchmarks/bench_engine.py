"""Engine benchmark (run by hand): lookup cost against a full regex scan, cold start, scaling.

    python benchmarks/bench_engine.py [--sizes 1000 10000 100000] [--queries 200] [--json out.json]

Measured in one run, on the shipped dataset (when ``errhint_data/index.json`` exists) and on
synthetic datasets made from real candle/burn templates (below), each with realistic word
frequencies (one or two literal words per record replaced by words drawn from a Zipf-like
vocabulary, so keys are shared the way real templates share words):

* ``lookup``: median of ``errhint.explain(message)`` over query messages synthesised from
  random records (plus ordinary Python errors), warm caches, whole pipeline;
* ``scan``: median of looping ``regex.search`` over every pre-compiled pattern of the dataset
  for the same messages (the naive engine);
* ``cold``: a fresh interpreter loads the dataset from an ``errhint_data`` package layout and
  answers one lookup; time from before ``errhint.lookup`` to after it (load + index + match),
  median of several processes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from errhint import engine, indexfile, keys, loaded_index, regexrun  # noqa: E402

# Real message templates (candle 0.4.2 - 0.11, burn 0.13 - 0.21), placeholders as written at the site.
TEMPLATES = [
    "unsupported dtype {0:?} for op {1}",
    "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}",
    "dtype mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}",
    "{op}: dimension index {dim} out of range for shape {shape:?}",
    "{op}: duplicate dim index {dims:?} for shape {shape:?}",
    "unexpected rank, expected: {expected}, got: {got} ({shape:?})",
    "{msg}, expected: {expected:?}, got: {got:?}",
    "Shape mismatch, got buffer of size {buffer_size} which is compatible with shape {shape:?}",
    "shape mismatch in cat for dim {dim}, shape for arg 1: {first_shape:?} shape for arg {n}: {nth_shape:?}",
    "Cannot divide tensor of shape {shape:?} equally along dim {dim} into {n_parts}",
    "{op} can only be performed on a single dimension",
    "empty tensor for {op}",
    "device mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}",
    "narrow invalid args {msg}: {shape:?}, dim: {dim}, start: {start}, len:{len}",
    "conv1d invalid args {msg}: inp: {inp_shape:?}, k: {k_shape:?}, pad: {padding}, stride: {stride}",
    "{op} invalid index {index} with dim size {size}",
    "cannot broadcast {src_shape:?} to {dst_shape:?}",
    "{op} only supports contiguous tensors",
    "{op} expects at least one tensor",
    "backward is not supported for {op}",
    "the candle crate has not been built with cuda support",
    "cannot find tensor {path}",
    "unsupported safetensor dtype {0:?}",
    "metal col2im1d {dtype:?} not implemented",
    "kernel-size {kernel_size:?} is larger than the input size {h},{w}",
    "quantized tensor must have their last dim divisible by block size {shape:?} {}",
    "scalar tensor cannot be quantized {shape:?}",
    "no unary function for {}",
    "index_select ids should be u8 or u32, expected: {}, got: {}",
    "Given dimensions differ from the tensor rank. Tensor rank: '{D}', given dimensions: '{dims:?}'.",
    "The provided tensors have incompatible shapes. Incompatible size at dimension '{}' => '{} != {}', which can't be broadcasted.",
    "Can't aggregate a tensor with ({D}) dimensions on axis ({dim})",
    "Unsupported precision for fusion",
    "Node {node_id:?} is not in the backward_states.",
    "Reflect padding on height ({}, {}) must be less than height dimension ({})",
    "Failed to read tensor data: {}",
    "Expected float dtype, got {}",
    "Can't reshape a tensor of {} elements into shape {:?}",
    "The number of dimensions of the input tensor must be at least {}, got {}",
    "invalid magic number {magic:#x}",
    "unsupported ggml dtype {dtype}",
    "Checkpoint {} not found in {}",
]

VALUES = ["I64", "[2, 3]", "matmul", "F16", "7", "conv2d", "\"w\"", "[4, 2]", "U8", "add", "0", "(5, 5)"]
ORDINARY = [
    ("KeyError", "'missing'"),
    ("ZeroDivisionError", "division by zero"),
    ("FileNotFoundError", "[Errno 2] No such file or directory: 'model.safetensors'"),
    ("ValueError", "invalid literal for int() with base 10: 'abc'"),
    ("TypeError", "argument 'shape': 'float' object cannot be converted to 'Sequence'"),
]

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*|\d+)?(?::[^{}]*)?\}")
_SYLLABLES = ["con", "vo", "lu", "ten", "sor", "ma", "trix", "gra", "di", "ent", "quan", "ti", "za", "pool", "norm", "bat", "ch", "em", "bed", "ro"]


def to_pattern(template: str) -> str:
    """Format string -> regex with named groups (design.md §Patterns, simplified)."""
    out: List[str] = []
    pos, n, names = 0, 0, set()
    matches = list(_PLACEHOLDER.finditer(template))
    for i, m in enumerate(matches):
        out.append(re.escape(template[pos : m.start()]))
        pos = m.end()
        if m.group() in ("{{", "}}"):
            out.append(re.escape(m.group()[0]))
            continue
        name = m.group(1) or f"arg{n}"
        n += 1
        if name.isdigit():
            name = f"f{name}"
        base, k = name, 2
        while name in names:
            name, k = f"{base}_{k}", k + 1
        names.add(name)
        last = i == len(matches) - 1 and m.end() == len(template)
        out.append(f"(?P<{name}>[^\\n]+)" if last else f"(?P<{name}>.+?)")
    out.append(re.escape(template[pos:]))
    return "".join(out)


def synthesize(template: str, rng: random.Random) -> str:
    return _PLACEHOLDER.sub(lambda m: m.group()[0] if m.group() in ("{{", "}}") else rng.choice(VALUES), template)


def vocabulary(size: int, rng: random.Random) -> List[str]:
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def synthetic_records(n: int, seed: int = 7, bases: Sequence[str] = TEMPLATES) -> List[Dict[str, Any]]:
    """``n`` records from real templates, 1-2 words replaced by Zipf-distributed vocabulary words."""
    rng = random.Random(seed)
    vocab = vocabulary(max(50, n // 4), rng)
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    out = []
    for i in range(n):
        template = bases[i % len(bases)]
        words = [m for m in re.finditer(r"(?<![{\w])[A-Za-z]{4,}(?![\w}])", template)]
        for m in rng.sample(words, min(len(words), rng.randint(1, 2))) if words else []:
            new = rng.choices(vocab, weights)[0]
            template = template.replace(m.group(), new, 1)
        if not words:
            template = f"{template} {rng.choices(vocab, weights)[0]}"
        out.append(_record(i, template))
    return out


def _record(i: int, template: str) -> Dict[str, Any]:
    text = "Raised when the check described by this message fails. " * 6
    return {
        "id": f"{i:016x}", "repo": "huggingface/candle" if i % 2 else "tracel-ai/burn", "slug": f"synthetic-{i}",
        "errorCode": None, "errorMessage": template, "messagePattern": to_pattern(template),
        "errorType": "exception" if i % 2 else "panic", "errorClass": None, "httpStatus": None, "severity": "error",
        "filePath": "crates/x/src/lib.rs", "lineNumber": 10, "sourceCode": None, "sourceCodeStart": 8,
        "sourceCodeEnd": 12, "githubUrl": "https://github.com/x/y/blob/0123456/crates/x/src/lib.rs#L8-L12",
        "documentation": text, "triggerScenarios": text, "commonSituations": text,
        "solutions": ["Cast the {dtype} tensor before {op}", "Check the shapes"], "exampleFix": "x = x.to(f32)",
        "handlingStrategy": "validation", "validationCode": None, "typeGuard": None, "tryCatchPattern": None,
        "preventionTips": ["Validate inputs"], "tags": ["synthetic"], "backgroundTag": "synthetic",
        "analyzedSha": "0123456789abcdef0123456789abcdef01234567", "analyzedAt": "2026-01-01T00:00:00Z",
        "contentChangedAt": None, "schemaVersion": 2, "siteKind": "bail", "versions": ["0.4.2", "0.6.0"],
    }


def write_package(root: Path, records: List[Dict[str, Any]]) -> Path:
    """An ``errhint_data`` package layout (JSONL + index.json) like the shipped one."""
    pkg = root / "errhint_data"
    (pkg / "records").mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    lines = [json.dumps({"record": r, "datasetVersion": "bench"}, separators=(",", ":")) + "\n" for r in records]
    locations, offset = [], 0
    for line in lines:
        size = len(line.encode())
        locations.append((0, offset, size))
        offset += size
    (pkg / "records" / "bench.jsonl").write_text("".join(lines))
    idx = indexfile.build_index(records, files=["records/bench.jsonl"], locations=locations, dataset_version="bench")
    for name, blob in indexfile.index_files(idx).items():
        (pkg / name).write_bytes(blob)
    (pkg / "families.json").write_text(json.dumps({"families": {}}))
    (pkg / "manifest.json").write_text(json.dumps({"datasetVersion": "bench", "schemaVersion": 2, "files": {}}))
    return pkg


def queries(records: List[Dict[str, Any]], count: int, seed: int = 11) -> List[Tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        rec = rng.choice(records)
        exc = "pyo3_runtime.PanicException" if rec["errorType"] == "panic" else "ValueError"
        out.append((exc, synthesize(rec["errorMessage"], rng)))
    out.extend(ORDINARY)
    return out


def _median_us(fn: Any, items: Sequence[Any], repeat: int = 3) -> float:
    samples = []
    for item in items:
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            fn(item)
            best = min(best, time.perf_counter() - t)
        samples.append(best)
    return statistics.median(samples) * 1e6


def _package_dataset(pkg: Path) -> "engine.Dataset":
    """The engine dataset of an ``errhint_data`` folder, records read by byte range."""
    blobs: Dict[str, bytes] = {}

    def reader(name: str, offset: int, length: int) -> Dict[str, Any]:
        if name not in blobs:
            blobs[name] = (pkg / name).read_bytes()
        return json.loads(blobs[name][offset : offset + length])

    idx = indexfile.read_index(lambda name: (pkg / name).read_bytes())
    return engine.Dataset([loaded_index.LoadedIndex(idx, reader=reader)], families={})


def measure_warm(records: List[Dict[str, Any]], qs: List[Tuple[str, str]], scan: bool = True, pkg: Path = None) -> Dict[str, Any]:  # type: ignore[assignment]
    import regex

    if pkg is None:
        pkg = write_package(Path(tempfile.mkdtemp(prefix="errhint-bench-")), records)
    ds = _package_dataset(pkg)
    engine.use(ds)
    hits = sum(1 for exc, msg in qs if engine.explain(msg, exc_type=exc))  # warm-up: compiles candidates
    lookup = _median_us(lambda q: engine.explain(q[1], exc_type=q[0]), qs)
    ix = ds.indexes[0]

    def stage(q: Tuple[str, str]) -> List[Any]:
        """The matching stage alone: tokens, key maps + literals, regex on the survivors."""
        text = q[1]
        return [m for i in ix.prefiltered(text, keys.text_tokens(text)) for m in [regexrun.search(ix.pattern(i), text)] if m]

    stage_us = _median_us(stage, qs)
    out: Dict[str, Any] = {"records": len(records), "queries": len(qs), "matched": hits,
                           "lookup_us": round(lookup, 1), "stage_us": round(stage_us, 1)}
    if scan:
        t = time.perf_counter()
        compiled = [regex.compile(r["messagePattern"], regex.DOTALL) for r in records]
        out["compile_all_s"] = round(time.perf_counter() - t, 2)
        sample = qs[: min(len(qs), 60)]
        scan_us = _median_us(lambda q: [p.search(q[1]) for p in compiled], sample)  # same method as lookup
        out["scan_us"] = round(scan_us, 1)
        out["scan_over_lookup"] = round(scan_us / lookup, 1)
        out["scan_over_stage"] = round(scan_us / stage_us, 1)
        # Like for like: the naive loop under the engine's own rule that every search has a
        # timeout; regex reads the process CPU clock for each timed call.
        timeout = regexrun.REGEX_TIMEOUT
        timed_us = _median_us(lambda q: [p.search(q[1], timeout=timeout, concurrent=False) for p in compiled], sample)
        out["scan_timed_us"] = round(timed_us, 1)
        out["scan_timed_over_lookup"] = round(timed_us / lookup, 1)
        out["search_us"] = per_search_costs(compiled, sample)
    engine.reset()
    return out


def per_search_costs(compiled: List[Any], qs: Sequence[Tuple[str, str]]) -> Dict[str, float]:
    """Median cost of one ``search`` call over every (pattern, message) pair of the sample,
    untimed and with the engine's timeout: what a lookup pays at least per candidate, and the
    naive loop per record."""
    pairs = [(p, q[1]) for q in qs[:20] for p in compiled[:: max(1, len(compiled) // 50)]]
    timeout = regexrun.REGEX_TIMEOUT
    untimed = _median_us(lambda pq: pq[0].search(pq[1]), pairs, repeat=5)
    timed = _median_us(lambda pq: pq[0].search(pq[1], timeout=timeout, concurrent=False), pairs, repeat=5)
    return {"untimed": round(untimed, 2), "timed": round(timed, 2)}


COLD = r"""
import json, sys, time
sys.path.insert(0, {src!r})
import errhint
PanicException = type("PanicException", (BaseException,), {{"__module__": "pyo3_runtime"}})
exc = {exc}({msg!r})
t = time.perf_counter()
m = errhint.lookup(exc)
dt = time.perf_counter() - t
if m:
    m[0].render("brief")
print(json.dumps({{"ms": dt * 1000, "matched": len(m), "pydantic": "pydantic" in sys.modules}}))
"""

PHASES = r"""
import json, sys, time
sys.path.insert(0, {src!r})
import errhint
t0 = time.perf_counter()
from errhint import config, engine
t1 = time.perf_counter()
import regex
t2 = time.perf_counter()
ds = engine.dataset(); ds.labels()
t3 = time.perf_counter()
m = engine.explain({msg!r}, exc_type={exc_type!r})
t4 = time.perf_counter()
from errhint import regexrun
patterns = list(regexrun._compiled)
regex.purge()
t5 = time.perf_counter()
for p in patterns:
    regex.compile(p, regex.DOTALL)
t6 = time.perf_counter()  # what compiling this lookup's patterns cost inside "match" (the regex package's own parser)
print(json.dumps({{"imports": (t1 - t0) * 1e3, "regex": (t2 - t1) * 1e3, "load": (t3 - t2) * 1e3, "match": (t4 - t3) * 1e3,
                  "regex_compile_in_match": (t6 - t5) * 1e3, "patterns_compiled": len(patterns)}}))
"""


def _fresh_env(pkg_root: Path) -> Dict[str, str]:
    """Like an installed package: bytecode cached (the dev shell sets PYTHONDONTWRITEBYTECODE)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRHINT") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(pkg_root)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "errhint-bench-pyc")
    return env


def _run(code: str, env: Dict[str, str], cwd: Path) -> Dict[str, Any]:
    return _run_cmd([sys.executable, "-c", code], env, cwd)


def _run_cmd(cmd: List[str], env: Dict[str, str], cwd: Path) -> Dict[str, Any]:
    """Run a child benchmark; its last line of output is its JSON result."""
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure_cold(records: List[Dict[str, Any]], runs: int = 11, pkg_root: Path = None) -> Dict[str, Any]:  # type: ignore[assignment]
    if pkg_root is None:
        pkg_root = Path(tempfile.mkdtemp(prefix="errhint-cold-"))
        write_package(pkg_root, records)
    rng = random.Random(3)
    rec = rng.choice([r for r in records if r["errorType"] != "panic"] or records)
    msg = synthesize(rec["errorMessage"], rng)
    env = _fresh_env(pkg_root)
    code = COLD.format(src=str(ROOT / "src"), exc="ValueError", msg=msg)
    _run(code, env, pkg_root)  # writes the bytecode cache
    runs_out = [_run(code, env, pkg_root) for _ in range(runs)]
    times = [r["ms"] for r in runs_out]
    phases_code = PHASES.format(src=str(ROOT / "src"), msg=msg, exc_type="ValueError")
    phases = [_run(phases_code, env, pkg_root) for _ in range(runs)]
    return {
        "records": len(records),
        "cold_ms_median": round(statistics.median(times), 1),
        "cold_ms_min": round(min(times), 1),
        "matched": runs_out[-1]["matched"],
        "pydantic_imported": runs_out[-1]["pydantic"],
        "phases_ms_median": {k: round(statistics.median(p[k] for p in phases), 1) for k in phases[0]},
        "index_json_kb": round((pkg_root / "errhint_data" / "index.json").stat().st_size / 1024),
    }


def shipped_records(data_root: Path = ROOT) -> List[Dict[str, Any]]:
    out = []
    for path in sorted((data_root / "errhint_data" / "records").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                obj = json.loads(line)
                out.append(obj.get("record", obj))
    return out


def main(argv: Sequence[str] = ()) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--cold-size", type=int, default=5000)
    ap.add_argument("--no-scan-above", type=int, default=100000)
    ap.add_argument("--json", type=str, default=None)
    ap.add_argument("--data-root", type=str, default=str(ROOT), help="folder holding errhint_data/ (the shipped dataset)")
    ap.add_argument("--cold-runs", type=int, default=11, help="fresh processes per cold-start figure")
    ap.add_argument("--cold-only", action="store_true", help="only the cold-start figures")
    args = ap.parse_args(list(argv))
    results: Dict[str, Any] = {"python": sys.version.split()[0]}

    data_root = Path(args.data_root)
    shipped = shipped_records(data_root) if (data_root / "errhint_data" / "index.json").exists() else []
    if shipped:
        qs = queries(shipped, args.queries)
        if not args.cold_only:
            results["shipped"] = measure_warm(shipped, qs, pkg=data_root / "errhint_data")
        results["shipped_cold"] = measure_cold(shipped, runs=args.cold_runs, pkg_root=data_root)
        print("shipped", results.get("shipped"), results["shipped_cold"], flush=True)

    for n in [] if args.cold_only else args.sizes:
        recs = synthetic_records(n)
        results[f"synthetic_{n}"] = measure_warm(recs, queries(recs, args.queries), scan=n <= args.no_scan_above)
        print(f"synthetic {n}", results[f"synthetic_{n}"], flush=True)
    cold = synthetic_records(args.cold_size)
    results[f"synthetic_{args.cold_size}_cold"] = measure_cold(cold, runs=args.cold_runs)
    print(f"cold {args.cold_size}", results[f"synthetic_{args.cold_size}_cold"], flush=True)

    small, big = results.get(f"synthetic_{min(args.sizes)}"), results.get(f"synthetic_{max(args.sizes)}")
    if small and big:
        results["scaling_lookup_big_over_small"] = round(big["lookup_us"] / small["lookup_us"], 2)
        results["scaling_stage_big_over_small"] = round(big["stage_us"] / small["stage_us"], 2)
        print("scaling lookup", results["scaling_lookup_big_over_small"], "stage", results["scaling_stage_big_over_small"])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
