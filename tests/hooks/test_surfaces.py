"""Every surface, proven in a real interpreter: the hint appears once, the rest is unchanged.

Each program runs twice, with errhint and with ``ERRHINT=0``; the only difference allowed
is one contiguous block of lines starting with ``errhint:`` that holds the test dataset's
hint, and the exit status must be the same.
"""

from __future__ import annotations

import subprocess
import sys
from typing import List, Optional

import pytest

from hooks_support import (  # noqa: F401
    MARK,
    PANIC_MARK,
    PANIC_PRELUDE,
    Runner,
    added_lines,
    hint_data,
    internal_error_lines,
    run,
)


def compare(run: Runner, code: str, *, stream: str = "stderr", mark: str = MARK, env: Optional[dict] = None,
            args: Optional[List[str]] = None) -> List[str]:
    """Run ``code`` with and without errhint; return errhint's added block (checked)."""
    on = run(code, env=env, args=args)
    off = run(code, env={**(env or {}), "ERRHINT": "0"}, args=args)
    assert on.returncode == off.returncode, (on.stderr, off.stderr)
    assert internal_error_lines(on.stderr) == [], on.stderr
    other = "stdout" if stream == "stderr" else "stderr"
    assert added_lines(getattr(on, other), getattr(off, other)) == []
    block = added_lines(getattr(on, stream), getattr(off, stream))
    assert block and block[0].startswith("errhint:"), (getattr(on, stream), block)
    text = "\n".join(block)
    assert text.count(mark) == 1, text
    return block


def test_main_thread_uncaught(run: Runner) -> None:
    compare(run, """
        errhint.install()
        def forward():
            raise ValueError(MSG)
        forward()
    """)


def test_main_thread_chained_to_a_previous_hook(run: Runner) -> None:
    """The hook installed before errhint still runs, and sees the note."""
    block = compare(run, """
        import traceback
        def previous(t, v, tb):
            sys.stderr.write("PREVIOUS HOOK\\n")
            traceback.print_exception(t, v, tb)
        sys.excepthook = previous
        errhint.install()
        raise ValueError(MSG)
    """)
    assert block


def test_thread_panic_exception(run: Runner) -> None:
    compare(run, PANIC_PRELUDE + """
errhint.install()
import threading
def work():
    raise PanicException(PANIC)
t = threading.Thread(target=work, name="worker")
t.start(); t.join()
print("main continues")
""", mark=PANIC_MARK)


def test_thread_of_a_threading_imported_after_install(run: Runner) -> None:
    """install() does not import threading; importing it later installs the thread surface."""
    compare(run, """
        errhint.install()
        print("threading loaded by install:", "threading" in sys.modules)
        import threading
        def work():
            raise ValueError(MSG)
        t = threading.Thread(target=work, name="worker")
        t.start(); t.join()
        print("main continues")
    """)
    out = run("errhint.install()\nprint('threading' in sys.modules)\n").stdout
    assert out.strip() == "False"


def test_unraisable_in_del(run: Runner) -> None:
    compare(run, """
        errhint.install()
        class Holder:
            def __del__(self):
                raise ValueError(MSG)
        h = Holder()
        del h
        print("still running")
    """)


def test_asyncio_task_never_retrieved(run: Runner) -> None:
    compare(run, """
        import asyncio, gc
        errhint.install()
        async def step():
            raise ValueError(MSG)
        async def main():
            asyncio.ensure_future(step())
            await asyncio.sleep(0.01)
        asyncio.run(main())
        gc.collect()
        print("done")
    """)


def test_asyncio_run_propagates(run: Runner) -> None:
    compare(run, """
        import asyncio
        errhint.install()
        async def main():
            await asyncio.sleep(0)
            raise ValueError(MSG)
        asyncio.run(main())
    """)


def test_logging_exception(run: Runner) -> None:
    compare(run, """
        import logging
        errhint.install()
        logging.basicConfig(format="%(levelname)s %(name)s %(message)s")
        log = logging.getLogger("app.model")
        try:
            raise ValueError(MSG)
        except ValueError:
            log.exception("forward failed")
    """)


def test_logging_configured_before_install(run: Runner) -> None:
    compare(run, """
        import logging
        logging.basicConfig()
        log = logging.getLogger("app")
        errhint.install()
        try:
            raise ValueError(MSG)
        except ValueError as e:
            log.error("failed", exc_info=e)
    """)


def test_logging_imported_after_install(run: Runner) -> None:
    """errhint does not import logging itself (3 ms); it hooks it when the program does."""
    compare(run, """
        errhint.install()
        assert "logging" not in sys.modules
        import logging
        logging.basicConfig()
        try:
            raise ValueError(MSG)
        except ValueError:
            logging.getLogger("app").exception("failed")
    """)


def test_pool_error_reraised_in_parent(run: Runner) -> None:
    compare(run, """
        import multiprocessing as mp
        def work(x):
            raise ValueError(MSG)
        if __name__ == "__main__":
            errhint.install()
            with mp.get_context("fork").Pool(1) as pool:
                pool.map(work, [1])
    """)


def test_pool_error_matched_through_the_remote_traceback_only(run: Runner) -> None:
    """The parent's exception says nothing useful; only the worker's traceback text (the
    RemoteTraceback cause) carries candle's message, and that is what gets matched."""
    block = compare(run, """
        import multiprocessing as mp
        class WorkerFailed(Exception):
            def __reduce__(self):
                return (WorkerFailed, ("worker failed",))
        def work(x):
            raise WorkerFailed(MSG)
        if __name__ == "__main__":
            errhint.install()
            with mp.get_context("fork").Pool(1) as pool:
                pool.map(work, [1])
    """)
    assert block


def test_process_child_fork_inherits_install(run: Runner) -> None:
    compare(run, """
        import multiprocessing as mp
        errhint.install()
        def work():
            raise ValueError(MSG)
        if __name__ == "__main__":
            p = mp.get_context("fork").Process(target=work)
            p.start(); p.join()
            print("exitcode", p.exitcode)
    """)


def test_process_child_install_before_multiprocessing_import(run: Runner) -> None:
    """errhint does not import multiprocessing itself; it hooks it when it is imported later."""
    compare(run, """
        errhint.install()
        assert "multiprocessing" not in sys.modules
        import multiprocessing as mp
        def work():
            raise ValueError(MSG)
        if __name__ == "__main__":
            p = mp.get_context("fork").Process(target=work)
            p.start(); p.join()
    """)


def test_process_child_spawn_with_env_install(run: Runner) -> None:
    """spawn children re-import the main module: maybe_install_from_env() there, ERRHINT_INSTALL=1."""
    compare(run, """
        import multiprocessing as mp
        from errhint.hooks.runner import maybe_install_from_env
        maybe_install_from_env()
        def work():
            raise ValueError(MSG)
        if __name__ == "__main__":
            p = mp.get_context("spawn").Process(target=work)
            p.start(); p.join()
            print("exitcode", p.exitcode)
    """, env={"ERRHINT_INSTALL": "1"})


def test_process_child_spawn_initializer_for_pool_children(run: Runner) -> None:
    """A Pool's initializer installs errhint in each worker; a worker-side log.exception is hinted."""
    compare(run, """
        import logging, multiprocessing as mp
        from errhint.hooks.runner import maybe_install_from_env
        def work(x):
            logging.basicConfig()
            try:
                raise ValueError(MSG)
            except ValueError:
                logging.getLogger("worker").exception("in worker")
            return x
        if __name__ == "__main__":
            with mp.get_context("spawn").Pool(1, initializer=maybe_install_from_env) as pool:
                print(pool.map(work, [1]))
    """, env={"ERRHINT_INSTALL": "1"})


def test_verbosity_from_env(run: Runner) -> None:
    code = """
        errhint.install()
        raise ValueError(MSG)
    """
    brief = compare(run, code)
    full = compare(run, code, env={"ERRHINT_VERBOSITY": "full"})
    assert len(full) > len(brief)


def test_install_options_reach_the_hooks(run: Runner) -> None:
    brief = compare(run, "errhint.install()\nraise ValueError(MSG)\n")
    full = compare(run, "errhint.install(verbosity='full')\nraise ValueError(MSG)\n")
    assert len(full) > len(brief)


def test_repos_option_restricts(run: Runner) -> None:
    proc = run("errhint.install(repos=['tracel-ai/burn'])\nraise ValueError(MSG)\n")
    assert MARK not in proc.stderr and proc.returncode == 1


def test_errhint_0_disables_everything(run: Runner) -> None:
    proc = run("""
        import threading
        print(errhint.install())
        with errhint.guard():
            try:
                raise ValueError(MSG)
            except ValueError as e:
                print(getattr(e, "__notes__", None))
        raise ValueError(MSG)
    """, env={"ERRHINT": "0"})
    assert proc.stdout.splitlines() == ["[]", "None"]
    assert MARK not in proc.stderr


def test_no_color_on_pipes_and_with_no_color(run: Runner) -> None:
    """errhint's self-printed hints (unraisable) carry no escape codes on a pipe."""
    proc = run("""
        errhint.install()
        class H:
            def __del__(self):
                raise ValueError(MSG)
        H()
    """)
    assert MARK in proc.stderr and "\\x1b[" not in proc.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
@pytest.mark.parametrize("no_color", [False, True])
def test_color_only_on_a_tty(run: Runner, tmp_path, hint_data, no_color: bool) -> None:
    import os
    import pty

    from hooks_support import PRELUDE, base_env

    script = tmp_path / "tty.py"
    script.write_text(PRELUDE + "errhint.install()\nclass H:\n    def __del__(self):\n        raise ValueError(MSG)\nH()\n")
    env = base_env(ERRHINT_DATA=str(hint_data))
    if no_color:
        env["NO_COLOR"] = "1"
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    text = b"".join(chunks).decode("utf-8", "replace")
    assert MARK in text
    assert ("\x1b[" in text) is (not no_color)


def test_rich_installed_before_keeps_working_and_shows_the_hint(run: Runner) -> None:
    pytest.importorskip("rich", reason="rich is optional")
    proc = run("""
        import rich.traceback
        rich.traceback.install(width=200)
        errhint.install()
        raise ValueError(MSG)
    """, env={"COLUMNS": "200"})
    assert "Traceback" in proc.stderr and "╭" in proc.stderr, "rich rendered the traceback"
    assert proc.stderr.count(MARK) == 1, proc.stderr
    assert proc.returncode == 1


def test_rich_installed_after_then_install_again(run: Runner) -> None:
    """rich replaces the hook without chaining; a second install() wraps rich, uninstall restores it."""
    pytest.importorskip("rich", reason="rich is optional")
    proc = run("""
        import rich.traceback
        errhint.install()
        rich.traceback.install(width=200)
        rich_hook = sys.excepthook
        errhint.install()
        print(sys.excepthook.previous is rich_hook, file=sys.stderr)
        raise ValueError(MSG)
    """, env={"COLUMNS": "200"})
    assert proc.stderr.startswith("True") and "╭" in proc.stderr
    assert proc.stderr.count(MARK) == 1, proc.stderr
