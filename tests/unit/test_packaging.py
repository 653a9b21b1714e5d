"""The wheel carries the library, py.typed and every data file; the data also reads from a zip."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Callable, List

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    (path,) = out.glob("errhint-*.whl")
    return path


def _names(wheel: Path) -> List[str]:
    with zipfile.ZipFile(wheel) as zf:
        return zf.namelist()


@pytest.mark.slow
def test_wheel_contains_library_and_typing_marker(wheel: Path) -> None:
    names = _names(wheel)
    assert "errhint/__init__.py" in names and "errhint/py.typed" in names
    assert "errhint/engine.py" in names and any(n.startswith("errhint/hooks/") for n in names)


def test_wheel_contains_every_manifest_file(wheel: Path) -> None:
    names = set(_names(wheel))
    manifest = json.loads((ROOT / "errhint_data" / "manifest.json").read_text())
    for required in ("errhint_data/__init__.py", "errhint_data/manifest.json", "errhint_data/index.json", "errhint_data/families.json"):
        assert required in names
    for name in manifest["files"]:
        assert f"errhint_data/{name}" in names, name
    assert not any(n.startswith(("curation/", "tests/")) for n in names)


def test_wheel_leaves_the_builder_out(wheel: Path) -> None:
    names = _names(wheel)
    assert not any(n.startswith(("builder/", "errhint/build/")) for n in names), [n for n in names if "build" in n]


def test_wheel_declares_console_script_and_pytest_plugin(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        ep = next(zf.read(n).decode() for n in zf.namelist() if n.endswith("entry_points.txt"))
    assert "errhint = errhint.cli:main" in ep
    assert "[pytest11]" in ep and "errhint.hooks.pytest_plugin" in ep


def test_data_reads_from_a_zip_import(wheel: Path, run_python: Callable) -> None:
    """A wheel is a zip: put it on sys.path as-is, so files can only be read through importlib_resources."""
    code = (
        f"import sys; sys.path.insert(0, {str(wheel)!r})\n"
        "import errhint, errhint_data\n"
        "assert errhint.__file__.startswith(" + repr(str(wheel)) + "), errhint.__file__\n"
        "ms = errhint.explain('WithBacktrace { inner: UnsupportedDTypeForOp(I64, \"matmul\"), backtrace: <disabled> }')\n"
        "print(len(errhint.load_dataset()), ms[0].message if ms else None)\n"
    )
    proc = run_python(code, env={"PYTHONPATH": ""})
    assert proc.returncode == 0, proc.stderr
    count, message = proc.stdout.strip().split(" ", 1)
    assert int(count) > 100
    assert "matmul" in message
