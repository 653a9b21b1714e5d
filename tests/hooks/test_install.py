"""install()/uninstall() etiquette: idempotent, exact restore, pass-through when superseded."""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any, Iterator, List, Tuple

import pytest

import errhint
from errhint import config
from errhint.hooks import install as inst
from errhint.hooks._chain import Chained
from hooks_support import CANDLE_TEXT, MARK, Runner, candle_error, fake_engine, hint_data, install_from_threads, run  # noqa: F401


def current_hooks() -> Tuple[Any, ...]:
    return (sys.excepthook, threading.excepthook, sys.unraisablehook, logging.getLogRecordFactory(), tuple(sys.meta_path))


@pytest.fixture
def pristine(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tuple[Any, ...]]:
    monkeypatch.delenv("ERRHINT", raising=False)
    config.reset()
    before = current_hooks()
    yield before
    inst.uninstall()
    config.reset()
    sys.excepthook, threading.excepthook, sys.unraisablehook = before[:3]
    logging.setLogRecordFactory(before[3])
    sys.meta_path[:] = list(before[4])


def test_public_names() -> None:
    assert errhint.install is inst.install and errhint.uninstall is inst.uninstall


def test_install_wraps_each_hook_once(pristine: Tuple[Any, ...]) -> None:
    names = errhint.install()
    assert {"excepthook", "threads", "unraisable", "logging", "asyncio", "processes"} <= set(names)
    assert isinstance(sys.excepthook, Chained) and sys.excepthook.previous is pristine[0]
    assert isinstance(threading.excepthook, Chained) and threading.excepthook.previous is pristine[1]
    assert isinstance(sys.unraisablehook, Chained) and sys.unraisablehook.previous is pristine[2]


def test_install_twice_equals_once(pristine: Tuple[Any, ...]) -> None:
    errhint.install()
    after_first = current_hooks()
    errhint.install()
    assert current_hooks() == after_first


def test_uninstall_restores_exactly(pristine: Tuple[Any, ...]) -> None:
    errhint.install()
    errhint.install()
    errhint.uninstall()
    assert current_hooks() == pristine
    assert inst.installed() == []


def test_reinstall_after_uninstall(pristine: Tuple[Any, ...]) -> None:
    errhint.install()
    errhint.uninstall()
    errhint.install()
    assert isinstance(sys.excepthook, Chained) and sys.excepthook.previous is pristine[0]
    errhint.uninstall()
    assert current_hooks() == pristine


def test_superseded_hook_is_left_alone(pristine: Tuple[Any, ...], fake_engine: List[Any]) -> None:
    errhint.install()
    ours = sys.excepthook
    seen: List[Any] = []

    def other_tool(t: Any, v: Any, tb: Any) -> None:  # e.g. a tool installed after errhint that chains
        seen.append(v)
        ours(t, v, tb)

    sys.excepthook = other_tool
    original_previous = ours.previous
    calls: List[Any] = []
    ours.previous = lambda *a: calls.append(a)  # observe the chain without printing
    errhint.uninstall()
    assert sys.excepthook is other_tool
    exc = candle_error()
    sys.excepthook(type(exc), exc, exc.__traceback__)
    assert seen == [exc] and len(calls) == 1
    assert getattr(exc, "__notes__", None) is None, "the left-behind wrapper is a silent pass-through"
    assert fake_engine == []
    ours.previous = original_previous


def test_errhint_0_installs_nothing(pristine: Tuple[Any, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRHINT", "0")
    assert errhint.install() == []
    assert current_hooks() == pristine


def test_surface_subset(pristine: Tuple[Any, ...]) -> None:
    assert errhint.install(surfaces=["threads"]) == ["threads"]
    assert sys.excepthook is pristine[0] and isinstance(threading.excepthook, Chained)


def test_unknown_surface(pristine: Tuple[Any, ...]) -> None:
    with pytest.raises(ValueError, match="nope"):
        errhint.install(surfaces=["excepthook", "nope"])
    assert current_hooks() == pristine


def test_options_configure(pristine: Tuple[Any, ...]) -> None:
    errhint.install(verbosity="full", limit=2, repos=["huggingface/candle"])
    opts = config.current()
    assert (opts.verbosity, opts.limit, opts.repos) == ("full", 2, ("huggingface/candle",))


def test_misspelt_option_installs_nothing(pristine: Tuple[Any, ...]) -> None:
    with pytest.raises(TypeError):
        errhint.install(verbosty="full")
    assert current_hooks() == pristine


def test_concurrent_installs_wrap_once(pristine: Tuple[Any, ...]) -> None:
    install_from_threads(8)
    assert isinstance(sys.excepthook, Chained) and sys.excepthook.previous is pristine[0]
    assert inst.installed().count("excepthook") == 1


def test_importing_every_hooks_module_installs_nothing(run: Runner) -> None:
    proc = run("""
        import logging, threading
        before = (sys.excepthook, threading.excepthook, sys.unraisablehook, logging.getLogRecordFactory(), list(sys.meta_path))
        import errhint.hooks.install, errhint.hooks.excepthook, errhint.hooks.threads, errhint.hooks.unraisable
        import errhint.hooks.asyncio_hook, errhint.hooks.logging_hook, errhint.hooks.processes, errhint.hooks.ipython
        import errhint.hooks.guard, errhint.hooks.runner
        after = (sys.excepthook, threading.excepthook, sys.unraisablehook, logging.getLogRecordFactory(), list(sys.meta_path))
        print(before == after, "multiprocessing" in sys.modules, "IPython" in sys.modules)
    """)
    assert proc.stdout.split() == ["True", "False", "False"], proc.stderr


def test_install_twice_prints_one_hint(run: Runner) -> None:
    proc = run("errhint.install()\nerrhint.install(verbosity='brief')\nraise ValueError(MSG)\n")
    assert proc.stderr.count(MARK) == 1 and proc.returncode == 1


def test_uninstall_in_a_program_removes_hints(run: Runner) -> None:
    proc = run("errhint.install()\nerrhint.uninstall()\nraise ValueError(MSG)\n")
    assert MARK not in proc.stderr and proc.returncode == 1


def test_uninstall_before_lazy_imports_leaves_nothing(run: Runner) -> None:
    """Surfaces waiting for logging/multiprocessing to be imported are withdrawn cleanly."""
    proc = run("""
        meta = list(sys.meta_path)
        errhint.install()
        assert "logging" not in sys.modules and "multiprocessing" not in sys.modules
        errhint.uninstall()
        import logging, multiprocessing.util
        print(list(sys.meta_path) == meta, logging.getLogRecordFactory() is logging.LogRecord,
              len(multiprocessing.util._afterfork_registry) == 0, sys.excepthook is sys.__excepthook__)
    """)
    assert proc.stdout.split() == ["True"] * 4, proc.stderr


def test_install_outside_a_shell_imports_only_what_it_hooks(run_python: Any) -> None:
    """Outside IPython the ipython surface is not installed and its module is not imported;
    threading, logging and multiprocessing wait until the program imports them."""
    proc = run_python(
        "import sys, errhint\n"
        "print(errhint.install())\n"
        "print(sorted(m for m in ('errhint.hooks.ipython', 'threading', 'logging', 'multiprocessing', 'json') if m in sys.modules))\n"
    )
    assert proc.returncode == 0, proc.stderr
    installed, loaded = proc.stdout.splitlines()
    assert "'ipython'" not in installed and "'excepthook'" in installed and "'threads'" in installed
    assert loaded == "[]"


def test_a_hint_imports_only_what_its_family_needs(run_python: Any) -> None:
    """A dtype hint with fix code reads the user's statement (``ast``) but neither imports
    ``inspect`` (only the settings family reads signatures) nor ``sysconfig`` (the standard
    library's folder is where ``os`` is)."""
    proc = run_python(
        "import sys, errhint\n"
        "def f():\n"
        "    raise ValueError('WithBacktrace { inner: UnsupportedDTypeForOp(I64, \"matmul\"), backtrace: <disabled> }')\n"
        "try:\n"
        "    f()\n"
        "except ValueError as e:\n"
        "    found = errhint.lookup(e)\n"
        "print(bool(found) and found[0].record.id != '')\n"
        "print(sorted(m for m in ('ast', 'inspect', 'sysconfig') if m in sys.modules))\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["True", "['ast']"], proc.stdout + proc.stderr
