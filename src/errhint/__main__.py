"""``python -m errhint`` runs the command line."""

from errhint.cli import main

raise SystemExit(main())
