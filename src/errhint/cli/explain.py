"""``errhint explain [TEXT]``: hints for one error message or one pasted traceback.

The text goes to ``errhint.engine.explain`` as is; the engine owns every bit of parsing
(traceback tails, Rust Debug forms, panic prefixes, burn reports).
"""

from __future__ import annotations

import argparse
from typing import Any, List, Optional

from errhint.cli._common import EXIT_NOTHING, EXIT_OK, Output, add_command, lookup_kwargs, read_text_input, verbosity


def register(sub: Any) -> None:
    p = add_command(sub, "explain", run, help="hints for an error message or a pasted traceback (stdin when no TEXT)",
                    description="Explain one error: a message, or a whole pasted traceback. Reads stdin when no TEXT "
                    "is given. Exit 0 when a hint was found, 1 when none.", options=("base", "data", "match"))
    p.add_argument("text", nargs="*", metavar="TEXT", help="the message (several words are joined); '-' or none: stdin")
    p.add_argument("--type", dest="exc_type", metavar="NAME", help="the exception type, e.g. PanicException or ValueError")


def run(args: argparse.Namespace, out: Output) -> int:
    text = read_text_input(list(args.text))
    matches = explain_text(text, exc_type=args.exc_type, args=args)
    if out.json_mode:
        out.emit_json({"matches": [m.to_dict() for m in matches], "count": len(matches)})
        return EXIT_OK if matches else EXIT_NOTHING
    if not matches:
        import sys

        sys.stderr.write("errhint: no known candle or burn error in this text\n")
        return EXIT_NOTHING
    render_matches(out, matches, verbosity(args))
    return EXIT_OK


def explain_text(text: str, *, exc_type: Optional[str], args: argparse.Namespace) -> List[Any]:
    from errhint import engine

    return list(engine.explain(text, exc_type=exc_type, **lookup_kwargs(args)))


def render_matches(out: Output, matches: List[Any], level: str) -> None:
    """Each match as the engine renders it, separated by a blank line."""
    for i, m in enumerate(matches):
        if i:
            out.line()
        out.line(m.render(level, color=out.color).rstrip("\n"))
