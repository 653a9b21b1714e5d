"""``errhint run`` (``errhint.hooks.runner``): same traceback and exit status as ``python script.py``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from hooks_support import MARK, PRELUDE, added_lines, base_env, hint_data  # noqa: F401


def write(tmp_path: Path, body: str, name: str = "script.py") -> Path:
    path = tmp_path / name
    path.write_text(PRELUDE + body, encoding="utf-8")
    return path


def python(args: List[str], tmp_path: Path, data: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=str(tmp_path),
                          env=base_env(ERRHINT_DATA=str(data), **env), timeout=120)


RUNNER = ["-m", "errhint.hooks.runner"]


def test_traceback_matches_plain_python_plus_hint(tmp_path: Path, hint_data: Path) -> None:
    script = write(tmp_path, "def forward():\n    raise ValueError(MSG)\nforward()\n")
    plain = python([str(script)], tmp_path, hint_data)
    ran = python(RUNNER + [str(script)], tmp_path, hint_data)
    assert ran.returncode == plain.returncode == 1
    block = added_lines(ran.stderr, plain.stderr)
    assert block[0].startswith("errhint:") and "\n".join(block).count(MARK) == 1, ran.stderr
    assert "runpy" not in ran.stderr and "runner.py" not in ran.stderr


def test_relative_script_path_prints_like_python(tmp_path: Path, hint_data: Path) -> None:
    write(tmp_path, "raise ValueError(MSG)\n", name="rel.py")
    plain = python(["rel.py"], tmp_path, hint_data)
    ran = python(RUNNER + ["rel.py"], tmp_path, hint_data)
    assert added_lines(ran.stderr, plain.stderr)[0].startswith("errhint:")


def test_argv_and_main_name(tmp_path: Path, hint_data: Path) -> None:
    script = write(tmp_path, "print(__name__, sys.argv[1:], sys.argv[0].endswith('script.py'))\n")
    ran = python(RUNNER + [str(script), "a", "--b"], tmp_path, hint_data)
    assert ran.stdout.strip() == "__main__ ['a', '--b'] True", ran.stderr


@pytest.mark.parametrize("code,status", [("sys.exit(3)", 3), ("sys.exit(0)", 0), ("sys.exit('bye')", 1)])
def test_exit_status_is_kept(tmp_path: Path, hint_data: Path, code: str, status: int) -> None:
    script = write(tmp_path, code + "\n")
    plain = python([str(script)], tmp_path, hint_data)
    ran = python(RUNNER + [str(script)], tmp_path, hint_data)
    assert ran.returncode == plain.returncode == status
    assert ran.stderr == plain.stderr


def test_children_inherit_errhint_install(tmp_path: Path, hint_data: Path) -> None:
    script = write(tmp_path, """
import os, multiprocessing as mp
from errhint.hooks.runner import maybe_install_from_env
maybe_install_from_env()
def work():
    raise ValueError(MSG)
if __name__ == "__main__":
    print("ERRHINT_INSTALL =", os.environ.get("ERRHINT_INSTALL"))
    p = mp.get_context("spawn").Process(target=work)
    p.start(); p.join()
""")
    plain = python([str(script)], tmp_path, hint_data)
    ran = python(RUNNER + [str(script)], tmp_path, hint_data)
    assert "ERRHINT_INSTALL = 1" in ran.stdout and MARK not in plain.stderr
    assert ran.stderr.count(MARK) == 1, ran.stderr


def test_module_mode(tmp_path: Path, hint_data: Path) -> None:
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(PRELUDE + "raise ValueError(MSG)\n")
    ran = subprocess.run([sys.executable, *RUNNER, "-m", "mypkg"], capture_output=True, text=True, cwd=str(tmp_path),
                         env=base_env(ERRHINT_DATA=str(hint_data), PYTHONPATH=base_env()["PYTHONPATH"] + ":" + str(tmp_path)),
                         timeout=120)
    assert ran.returncode == 1 and ran.stderr.count(MARK) == 1, ran.stderr


def test_usage_without_target(tmp_path: Path, hint_data: Path) -> None:
    ran = python(RUNNER, tmp_path, hint_data)
    assert ran.returncode == 2 and "usage: errhint run" in ran.stderr


def test_maybe_install_from_env_is_inert_without_the_variable(tmp_path: Path, hint_data: Path) -> None:
    script = write(tmp_path, "from errhint.hooks.runner import maybe_install_from_env\n"
                             "print(maybe_install_from_env(), sys.excepthook is sys.__excepthook__)\n")
    assert python([str(script)], tmp_path, hint_data).stdout.split() == ["False", "True"]
    assert python([str(script)], tmp_path, hint_data, ERRHINT_INSTALL="1").stdout.split() == ["True", "False"]
