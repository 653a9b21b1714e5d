"""Where errhint meets exceptions: one small module per surface, each installable alone.

Importing this package (or any module in it) installs nothing; ``errhint.install()`` and
``errhint.guard()`` are the entry points. Every hook chains to the one it replaced and
contains its own failures (see ``_safe``).
"""
