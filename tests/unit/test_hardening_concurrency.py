"""Hardening: lookups and install/uninstall from many threads at once.

* 32 threads calling ``lookup`` at the same moment in a fresh process load the dataset once
  (the loaders are slowed down so that a missing lock would show) and all get one answer;
* warm lookups from many threads give the answers a single thread gives;
* ``install``/``uninstall`` racing from several threads never wrap a hook twice, always reach
  the previous hook exactly once per call, and end with every hook restored.
"""

from __future__ import annotations

import io
import json
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest

from engine_support import installed_candle_dataset
from hooks_support import install_from_threads
from errhint import engine, regexrun

MATCHING = 'WithBacktrace { inner: UnsupportedDTypeForOp(I64, "matmul"), backtrace: <disabled> }'

COLD_SCRIPT = r"""
import json, sys, threading, time
import errhint.data as data  # light: the engine itself is imported by the threads
import errhint.userdata as userdata

calls = {"shipped_index": 0, "user_index": 0}
real_index, real_extra = data.shipped_index, userdata.user_index

def slow(name, real):
    def wrapper(*args, **kwargs):
        calls[name] += 1
        time.sleep(0.05)  # widen the window a missing lock would leave open
        return real(*args, **kwargs)
    return wrapper

data.shipped_index = slow("shipped_index", real_index)
userdata.user_index = slow("user_index", real_extra)

N = 32
barrier = threading.Barrier(N)
answers, errors = [None] * N, []

def work(k):
    try:
        barrier.wait()
        import errhint
        exc = ValueError(sys.argv[1])
        answers[k] = [[m.record.id, m.score, m.message] for m in errhint.lookup(exc)]
    except BaseException as e:
        errors.append(repr(e))

threads = [threading.Thread(target=work, args=(k,)) for k in range(N)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps({"calls": calls, "answers": answers, "errors": errors, "engine": "errhint.engine" in sys.modules}))
"""


def test_cold_process_32_threads_load_once_and_agree(run_python: Callable[..., Any], tmp_path: Path, make_record: Callable[..., Dict[str, Any]]) -> None:
    user = tmp_path / "user.jsonl"
    rec = make_record(id="00000000000000ee")
    user.write_text(json.dumps({"record": rec, "datasetVersion": "t"}) + "\n")
    code = COLD_SCRIPT.replace("sys.argv[1]", repr(MATCHING))
    proc = run_python(code, env={"ERRHINT_DATA": str(user), "ERRHINT_DEBUG": "1"})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["errors"] == []
    assert out["calls"] == {"shipped_index": 1, "user_index": 1}
    answers = out["answers"]
    assert answers[0], "the shipped dataset should explain the candle message"
    assert all(a == answers[0] for a in answers)


@pytest.fixture
def fixture_dataset() -> Any:
    yield from installed_candle_dataset()


MESSAGES = [
    MATCHING,
    "shape mismatch in matmul, lhs: [2, 3], rhs: [4, 2]",
    'ShapeMismatchBinaryOp { lhs: [2, 3], rhs: [4, 2], op: "add" }',
    "unsupported dtype F16 for op conv2d",
    "list index out of range",
    "",
]


def _answer(text: str) -> List[Tuple[str, float, str]]:
    return [(m.record.id, m.score, m.message) for m in engine.lookup(ValueError(text))]


def test_warm_lookups_from_many_threads_match_one_thread(fixture_dataset: Any) -> None:
    expected = {text: _answer(text) for text in MESSAGES}
    assert expected[MATCHING] and not expected["list index out of range"]  # the mix has hits and misses
    regexrun._compiled.clear()  # the threads also race on compiling patterns
    got: List[Tuple[str, Any]] = []
    errors: List[str] = []
    barrier = threading.Barrier(16)

    def work(k: int) -> None:
        try:
            barrier.wait()
            for i in range(60):
                text = MESSAGES[(i + k) % len(MESSAGES)]
                got.append((text, _answer(text)))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(got) == 16 * 60
    assert all(answer == expected[text] for text, answer in got)


# --------------------------------------------------------------------------- install / uninstall


@pytest.fixture
def counting_hooks(monkeypatch: pytest.MonkeyPatch) -> Dict[str, Any]:
    """Plain counting functions as the previous sys/threading/unraisable hooks, restored afterwards."""
    counts = {"excepthook": 0, "threading": 0, "unraisable": 0}
    lock = threading.Lock()

    def counter(name: str) -> Callable[..., None]:
        def hook(*args: Any) -> None:
            with lock:
                counts[name] += 1
        return hook

    originals = {
        "excepthook": counter("excepthook"),
        "threading": counter("threading"),
        "unraisable": counter("unraisable"),
        "factory": logging.getLogRecordFactory(),
    }
    monkeypatch.setattr(sys, "excepthook", originals["excepthook"])
    monkeypatch.setattr(threading, "excepthook", originals["threading"])
    monkeypatch.setattr(sys, "unraisablehook", originals["unraisable"])
    return {"counts": counts, "originals": originals}


def _previous_is_original(current: Any, original: Any) -> bool:
    """``current`` is the original hook, or one errhint wrapper directly around it."""
    return current is original or getattr(current, "previous", None) is original


def test_install_uninstall_race(counting_hooks: Dict[str, Any], fixture_dataset: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import errhint
    from errhint.hooks import install as install_mod

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    originals, counts = counting_hooks["originals"], counting_hooks["counts"]
    stop = threading.Event()
    errors: List[str] = []
    violations: List[str] = []
    fired = {"n": 0}

    def toggler(k: int) -> None:
        try:
            for i in range(40):
                errhint.install()
                if (i + k) % 3:
                    errhint.install()  # idempotent: installing twice equals once
                errhint.uninstall()
        except BaseException as e:
            errors.append(f"toggler: {e!r}")

    def firer() -> None:
        """Uncaught-exception reports while hooks come and go: each reaches the original once."""
        try:
            while not stop.is_set():
                exc = ValueError(MATCHING)
                sys.excepthook(ValueError, exc, None)
                fired["n"] += 1
        except BaseException as e:
            errors.append(f"firer: {e!r}")

    def sampler() -> None:
        while not stop.is_set():
            if not _previous_is_original(sys.excepthook, originals["excepthook"]):
                violations.append(repr(sys.excepthook))
            if not _previous_is_original(threading.excepthook, originals["threading"]):
                violations.append(repr(threading.excepthook))
            time.sleep(0)

    togglers = [threading.Thread(target=toggler, args=(k,)) for k in range(6)]
    others = [threading.Thread(target=firer), threading.Thread(target=sampler)]
    for t in others + togglers:
        t.start()
    for t in togglers:
        t.join()
    stop.set()
    for t in others:
        t.join()

    assert errors == []
    assert violations == []
    assert install_mod.installed() == []
    assert sys.excepthook is originals["excepthook"]
    assert threading.excepthook is originals["threading"]
    assert sys.unraisablehook is originals["unraisable"]
    assert logging.getLogRecordFactory() is originals["factory"]
    assert fired["n"] > 0 and counts["excepthook"] == fired["n"]  # never swallowed, never doubled


def test_install_race_then_hooks_work(counting_hooks: Dict[str, Any], fixture_dataset: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """After many threads install at once, one wrapper per hook is in place and it hints."""
    import errhint

    install_from_threads(8)
    try:
        originals = counting_hooks["originals"]
        assert getattr(sys.excepthook, "previous", None) is originals["excepthook"]
        assert getattr(threading.excepthook, "previous", None) is originals["threading"]
        exc = ValueError(MATCHING)
        monkeypatch.setattr(sys, "stderr", io.StringIO())
        sys.excepthook(ValueError, exc, None)
        notes = [n for n in getattr(exc, "__notes__", []) if n.startswith("errhint:")]
        assert len(notes) >= 1 and "matmul" in notes[0]
        assert counting_hooks["counts"]["excepthook"] == 1
    finally:
        errhint.uninstall()
    assert sys.excepthook is counting_hooks["originals"]["excepthook"]
