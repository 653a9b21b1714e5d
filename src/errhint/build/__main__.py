"""``python -m errhint.build``."""

import sys

from errhint.build.cli import main

sys.exit(main())
