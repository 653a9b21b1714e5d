"""Constants several modules share; imports nothing, so the hooks and the CLI can use it freely."""

NOTE_MARKER = "errhint:"
"""The first text of every note and line errhint adds to an error's output; errhint skips
notes that start with it when it reads an exception or a log."""

VERBOSITIES = ("brief", "full")
"""The verbosity levels a hint is rendered at."""

NAMED_GROUP = r"\(\?P<([A-Za-z_][A-Za-z0-9_]*)>"
"""Regex source matching where a named group opens in a record's pattern; group 1 is its name."""
