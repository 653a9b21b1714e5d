"""Texts from a release after the dataset: top-1 of errhint on a dataset built without it.

1. Copies ``curation/`` to a temporary root and drops the newest release of candle and of
   burn from its ``sources.json`` (and from the dependency crates' ``pulledInBy``).
2. Builds that dataset with the builder (``python -m builder --root TMP ...``).
3. Takes the full shipped dataset's records whose ``versions`` hold only the dropped
   release (templates new or changed in it), and instantiates each with the builder's
   synthesised example (``builder.template.synthesize``).
4. Looks each text up with errhint on the reduced dataset (the engine with that dataset as
   the only one), as a binding user meets it: with the exception class the record names
   (``exception_type``) and that repository's binding imported, and counts as right the top-1 hints whose record has, in the
   reduced dataset, the template the text came from in an earlier release (``earlier``:
   same repository, file and function, or same error variant, a template that reads nearly
   the same and is gone from the dropped release), or the same error variant
   (``same_variant``). The share under the earlier pairing (file alone) is printed too.
   A text with no such earlier record (a message new in the release, not a reworded one)
   is reported apart: no hint is the right answer for it, and a hint is counted wrong.

    python benchmarks/bench_new_release.py --mirror-root /work/.mirror [--keep TMPDIR]
        [--from huggingface/candle=0.10.0 --from tracel-ai/burn=v0.20.0]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

NEWEST = {"huggingface/candle": None, "tracel-ai/burn": None}
"""Repositories whose newest release (and the default branch after it) is dropped; the labels
are read from sources.json."""
CHANGED = 0.6
"""How close (``difflib.SequenceMatcher`` ratio of the two templates) an earlier template
at the same place must be for a message to count as changed rather than new."""


def _records(folder: Path) -> List[dict]:
    out = []
    for path in sorted((folder / "records").glob("*.jsonl")):
        out.extend(json.loads(line)["record"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return out


def reduced_root(tmp: Path, start: Dict[str, str]) -> Dict[str, List[str]]:
    """Write the reduced curation root into ``tmp``; returns repo -> dropped labels. For a
    repository named in ``start`` that release and every later one are dropped."""
    shutil.copytree(ROOT / "curation", tmp / "curation")
    sources_path = tmp / "curation" / "sources.json"
    sources = json.loads(sources_path.read_text(encoding="utf-8"))
    dropped: Dict[str, List[str]] = {}
    for repo in NEWEST:
        entries = [s for s in sources["sources"] if s["repo"] == repo]
        # sources.json lists each repository's releases oldest first, the default branch (if
        # any) last: the newest release goes, and the branch after it (it holds the same texts)
        newest = max(i for i, s in enumerate(entries) if not s.get("branch"))
        if repo in start:
            newest = [s["label"] for s in entries].index(start[repo])
        dropped[repo] = [s["label"] for s in entries[newest:]]
        for s in entries[newest:]:
            sources["sources"].remove(s)
    sources_path.write_text(json.dumps(sources, indent=1), encoding="utf-8")
    deps_path = tmp / "curation" / "dependency_sources.json"
    deps = json.loads(deps_path.read_text(encoding="utf-8"))
    gone = {f"{repo}@{label}" for repo, labels in dropped.items() for label in labels}
    kept = []
    for entry in deps.get("sources", []):
        pulled = [p for p in entry.get("pulledInBy", []) if p not in gone]
        if entry.get("pulledInBy") and not pulled:
            continue  # a crate version only the dropped releases use
        if "pulledInBy" in entry:
            entry["pulledInBy"] = pulled
        kept.append(entry)
    deps["sources"] = kept
    deps_path.write_text(json.dumps(deps, indent=1), encoding="utf-8")
    return dropped


def build(tmp: Path, mirror_root: str) -> Path:
    out = tmp / "data"
    subprocess.run(
        [sys.executable, "-m", "builder", "--root", str(tmp), "--mirror-root", mirror_root, "--out", str(out),
         "--docs", "", "--no-timing-gate", "--quiet"],
        cwd=ROOT, check=True,
    )
    return out


def cases(full: List[dict], dropped: Dict[str, List[str]]) -> List[Tuple[dict, str]]:
    from builder.template import parse_format, synthesize

    import regex

    out = []
    for rec in full:
        labels = dropped.get(rec["repo"])
        if labels is None or not rec.get("versions") or not set(rec["versions"]) <= set(labels):
            continue
        text = synthesize(parse_format(rec["errorMessage"]))
        if regex.search(rec["messagePattern"], text, regex.DOTALL) is None:
            continue  # the builder's own example does not fit (the gate used another): not a case
        out.append((rec, text))
    return out


BINDING_OF = {"huggingface/candle": "candle", "tracel-ai/burn": "pyburn"}
"""The binding a user who meets the repository's errors has imported."""


def exception_type(rec: dict) -> str:
    """The class a binding user sees the message as: the record's ``errorClass`` when it is
    certain, else a ``PanicException`` for a panic and a ``ValueError`` otherwise."""
    if rec.get("errorClass"):
        return "pyo3_runtime.PanicException" if rec["errorClass"] == "PanicException" else rec["errorClass"]
    return "pyo3_runtime.PanicException" if rec.get("errorType") == "panic" else "ValueError"


def earlier(rec: dict, full: List[dict], dropped: List[str], reduced_ids: set, by_function: bool = True) -> List[dict]:
    """The templates ``rec``'s replaced: records of the full dataset in the same repository,
    file and enclosing function (when both records name one), or of the same error variant,
    that exist in releases before ``dropped`` but
    not in it, and read nearly the same as ``rec``'s template, character by character
    (``difflib`` ratio at least ``CHANGED``), and are in the reduced dataset. Empty for a
    message new in the release (a new site, even one worded like an old one). With
    ``by_function`` false, the file alone places a site (the pairing used up to 2026-12-04,
    which paired new functions' messages, such as ``scatter_nd not supported``, with the
    similarly worded message of another function that the release dropped)."""
    from difflib import SequenceMatcher

    variant = (rec.get("variant") or {}).get("name")
    gone = set(dropped)
    out = []
    for r in full:
        if r["repo"] != rec["repo"] or gone.intersection(r.get("versions") or ()) or r["id"] not in reduced_ids:
            continue
        same_site = r["filePath"] == rec["filePath"] and (
            not by_function or not (r.get("function") and rec.get("function")) or r["function"] == rec["function"])
        same_place = same_site or (variant and (r.get("variant") or {}).get("name") == variant)
        if same_place and SequenceMatcher(None, r["errorMessage"], rec["errorMessage"]).ratio() >= CHANGED:
            out.append(r)
    return out


def same_variant(rec: dict, top) -> bool:  # type: ignore[no-untyped-def]
    """The hint names the same error-enum variant of the same repository (its generic
    Display template: ``shape mismatch in {op}`` for a construction new in the release)."""
    variant = (rec.get("variant") or {}).get("name")
    other = (top.record.to_dict().get("variant") or {}).get("name")
    return bool(variant) and variant == other and top.record.repo == rec["repo"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror-root", required=True)
    parser.add_argument("--keep", help="use (or leave) the reduced build in this folder")
    parser.add_argument("--show", type=int, default=0, help="print this many misses")
    parser.add_argument("--from", dest="start", action="append", default=[], metavar="REPO=LABEL",
                        help="drop this release and all later ones of REPO instead of the newest")
    args = parser.parse_args()
    start = dict(item.split("=", 1) for item in args.start)
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="errhint-newrel-"))
    if not (tmp / "data" / "index.json").exists():
        if (tmp / "curation").exists():
            shutil.rmtree(tmp / "curation")
        dropped = reduced_root(tmp, start)
        build(tmp, args.mirror_root)
        (tmp / "dropped.json").write_text(json.dumps(dropped), encoding="utf-8")
    dropped = json.loads((tmp / "dropped.json").read_text(encoding="utf-8"))

    from errhint import bindings, engine

    reduced_ids = {r["id"] for r in _records(tmp / "data")}
    full = _records(ROOT / "errhint_data")
    texts = cases(full, dropped)
    engine.use(_dataset_of(tmp / "data"))
    right: Counter = Counter()
    total: Counter = Counter()
    new_total: Counter = Counter()
    new_quiet: Counter = Counter()
    new_approx: Counter = Counter()
    approx: Counter = Counter()
    misses = []
    by_file = Counter()  # pairing by file alone: [texts, right]
    for rec, text in texts:
        want = {r["id"] for r in earlier(rec, full, dropped[rec["repo"]], reduced_ids)}
        bindings.loaded = lambda repo=rec["repo"]: frozenset([BINDING_OF[repo]])
        got = engine.explain(text, exc_type=exception_type(rec))
        top = got[0] if got else None
        repo = rec["repo"]
        want_file = {r["id"] for r in earlier(rec, full, dropped[repo], reduced_ids, by_function=False)}
        if want_file:
            by_file["texts"] += 1
            by_file["right"] += top is not None and (
                top.id in want_file or bool(want_file & set(top.also)) or same_variant(rec, top))
        if not want:
            new_total[repo] += 1
            new_quiet[repo] += top is None
            new_approx[repo] += top is not None and top.kind == "approximate"
            continue
        total[repo] += 1
        if top is not None and (top.id in want or bool(want & set(top.also)) or same_variant(rec, top)):
            right[repo] += 1
            approx[repo] += top.kind == "approximate"
        else:
            misses.append((repo, text[:100], top and (top.kind, top.record.error_message[:80]),
                           sorted(r["errorMessage"][:80] for r in earlier(rec, full, dropped[repo], reduced_ids))[:2]))
    print(f"dropped: {dropped}")
    print(f"{'repository':<22}{'changed':>8}{'top-1':>8}{'share':>8}{'approximate':>13}{'new':>6}{'no hint':>9}{'approximate':>13}")
    for repo in sorted(set(total) | set(new_total)):
        share = right[repo] / total[repo] if total[repo] else 0.0
        print(f"{repo:<22}{total[repo]:>8}{right[repo]:>8}{share:>8.1%}{approx[repo]:>13}{new_total[repo]:>6}"
              f"{new_quiet[repo]:>9}{new_approx[repo]:>13}")
    n = sum(total.values())
    print(f"{'all':<22}{n:>8}{sum(right.values()):>8}{sum(right.values()) / max(1, n):>8.1%}{sum(approx.values()):>13}"
          f"{sum(new_total.values()):>6}{sum(new_quiet.values()):>9}{sum(new_approx.values()):>13}")
    print(f"paired by file alone (earlier definition): {by_file['right']} of {by_file['texts']}"
          f" ({by_file['right'] / max(1, by_file['texts']):.1%})")
    for miss in misses[: args.show]:
        print("miss:", miss)


def _dataset_of(folder: Path):  # type: ignore[no-untyped-def]
    """The engine's dataset made of one built data folder (its index and records only)."""
    from errhint import engine, indexfile, loaded_index

    def read_line(file: str, offset: int, length: int) -> dict:
        with open(folder / file, "rb") as fh:
            fh.seek(offset)
            return json.loads(fh.read(length))

    loaded = indexfile.read_index(lambda name: (folder / name).read_bytes())
    families = json.loads((folder / "families.json").read_text(encoding="utf-8"))
    return engine.Dataset([loaded_index.LoadedIndex(loaded, reader=read_line)], families=families)


if __name__ == "__main__":
    main()
