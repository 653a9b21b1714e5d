"""An independent count of coverage: the literal error texts ``builder/literals.py`` finds in
each pinned candle/burn release, and the share a shipped record's pattern matches.

A text is instantiated with the builder's example values (``builder.template.synthesize``);
it counts as matched when a shipped pattern of its repository matches it anywhere (or, for a
literal that is the payload of a named variant, ``Variant("text")``, its Debug form), or when a
record's template is the literal itself or ends with ``: `` and the literal (an error whose
Display wraps the text, e.g. burn-store's ``I/O error: {}`` around ``Offset overflow: ..``, is
covered by the record of the wrapped form). Texts
with fewer than 8 literal characters are counted apart (the build ships no pattern that
short). Not a build gate yet: the shares are below the issue's 95% for some releases.

    python benchmarks/bench_literal_coverage.py --mirror-root /work/.mirror [--labels 0.4.2 v0.18.0] [--show N]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import floor_cases  # noqa: E402
from bench_floor import PlainSearch  # noqa: E402
from builder import literals as lit  # noqa: E402
from builder.merge import MIN_LITERAL_CHARS  # noqa: E402
from builder.sources import load_sources, mirror_for, read_snapshot  # noqa: E402
from builder.template import parse_format, synthesize  # noqa: E402

FRAMEWORKS = ("huggingface/candle", "tracel-ai/burn")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror-root", required=True)
    parser.add_argument("--labels", nargs="*", help="only these release labels")
    parser.add_argument("--show", type=int, default=0, help="print this many unmatched texts per release")
    args = parser.parse_args()
    by_repo = defaultdict(list)
    for rec in floor_cases.shipped_records():
        by_repo[rec["repo"]].append(rec)
    searchers = {}
    messages: dict = {}
    print(f"{'repository':<20}{'release':>9}{'texts':>7}{'short':>7}{'matched':>9}{'share':>8}")
    for src in load_sources(ROOT / "curation" / "sources.json"):
        if src.repo not in FRAMEWORKS or (args.labels and src.label not in args.labels):
            continue
        files = read_snapshot(mirror_for(Path(args.mirror_root), src), src)
        found = lit.literals([(path, text) for path, (_, text) in files.rust.items()])
        search = searchers.setdefault(src.repo, PlainSearch(by_repo[src.repo]))
        seen, short, matched, missed = set(), 0, 0, []
        for item in found:
            if item.text in seen:
                continue
            seen.add(item.text)
            template = parse_format(item.text)
            if template.literal_chars() < MIN_LITERAL_CHARS:
                short += 1
                continue
            example = synthesize(template)
            debug = f'{item.variant}("{example}")' if item.variant else None
            wrapped = any(message == item.text or message.endswith(": " + item.text)
                          for message in messages.setdefault(src.repo, [
                              str(rec.get("errorMessage") or "") for rec in by_repo[src.repo]]))
            if search.top(example) is not None or (debug is not None and search.top(debug) is not None) or wrapped:
                matched += 1
            else:
                missed.append(item)
        n = len(seen) - short
        print(f"{src.repo:<20}{src.label:>9}{n:>7}{short:>7}{matched:>9}{matched / max(1, n):>8.1%}")
        for item in missed[: args.show]:
            print(f"    {item.path}:{item.line} [{item.kind}] {item.text[:100]!r}")


if __name__ == "__main__":
    main()
