"""``import errhint`` stays light: no heavy modules, no data reads, no hooks."""

from __future__ import annotations

import json
from typing import Callable

PROBE = r"""
import sys, json, threading
opened = []
sys.addaudithook(lambda ev, args: opened.append(str(args[0])) if ev == "open" and "errhint_data" in str(args[0]) else None)
hooks = (sys.excepthook, threading.excepthook, sys.unraisablehook)
import errhint
print(json.dumps({
    "heavy": sorted(m for m in ("pydantic", "regex", "importlib_resources", "importlib.metadata", "errhint.engine", "errhint.schema") if m in sys.modules),
    "opened": opened,
    "hooks_unchanged": hooks == (sys.excepthook, threading.excepthook, sys.unraisablehook),
    "public": sorted(errhint.__all__),
}))
"""


def test_import_is_light_and_installs_nothing(run_python: Callable) -> None:
    proc = run_python(PROBE)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["heavy"] == []
    assert out["opened"] == []
    assert out["hooks_unchanged"] is True


def test_public_names_resolve_lazily(run_python: Callable) -> None:
    proc = run_python(
        "import errhint, sys\n"
        "names = ['lookup','explain','Match','load_dataset','DatasetError','configure','install','uninstall','guard']\n"
        "print(all(callable(getattr(errhint, n)) for n in names))\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"


def test_unknown_attribute_is_an_attribute_error(run_python: Callable) -> None:
    proc = run_python("import errhint\ntry:\n    errhint.nope\nexcept AttributeError as e:\n    print('ok', e)\n")
    assert proc.stdout.startswith("ok")
