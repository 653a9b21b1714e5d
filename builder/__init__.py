"""The dataset builder: mines error sites from pinned candle/burn sources into ``errhint_data/``.

Never imported by the runtime (``import errhint`` stays light); run it as
``python -m builder --mirror-root MIRRORS --out errhint_data``.
"""

from __future__ import annotations

from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    """Build the dataset; ``argv`` as for ``python -m builder``.  Returns an exit code."""
    from builder.cli import main as _main

    return _main(argv)
