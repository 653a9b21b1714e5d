"""``errhint scan`` on logs holding the real texts of the bindings: one finding per error,
right line numbers, streaming output, flat reading of awkward lines.

The error texts are produced by really calling candle-nn 0.4.2 and pyburn 0.1.7
(``realtext_support``) with ``RUST_BACKTRACE`` 0 and 1; the shipped dataset explains them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest
from cli_support import child_env, shipped_cli  # noqa: F401 (fixtures)
from realtext_support import real_error_texts

from errhint.cli import _logstream

NOISE = "2024-05-01 10:00:00 INFO step 7 loss=0.4123 lr=3.0e-4\n"


def _texts(bt: str) -> Dict[str, str]:
    found = real_error_texts(bt)
    if not found:
        pytest.skip("candle-nn and pyburn are not importable")
    return found


def _log_of(texts: List[str]) -> Tuple[str, List[int]]:
    """A log of noise and ``texts``; the 1-based line where each text's error starts."""
    out, starts, line = [], [], 1
    for text in texts:
        out.append(NOISE)
        line += 1
        lead = len(text) - len(text.lstrip("\n"))
        starts.append(line + lead)
        out.append(text)
        line += text.count("\n")
    out.append(NOISE)
    return "".join(out), starts


@pytest.mark.parametrize("bt", ["0", "1"])
def test_every_real_error_is_one_finding_at_its_first_line(shipped_cli: Callable[..., Any], tmp_path: Path, bt: str) -> None:
    texts = _texts(bt)
    names = sorted(texts)
    log, starts = _log_of([texts[n] for n in names])
    path = tmp_path / "train.log"
    path.write_text(log, encoding="utf-8")
    res = shipped_cli("scan", "--json", str(path))
    doc = res.json()
    assert res.code == 0
    assert [f["line"] for f in doc["findings"]] == starts  # a panic, its backtrace and its traceback: one
    assert all(f["matches"] for f in doc["findings"])
    assert doc["files"] == [{"path": str(path), "lines": log.count("\n"), "findings": len(names)}]
    burn = [f for n, f in zip(names, doc["findings"]) if n.startswith("burn-")]
    assert burn and all(f["kind"] == "panic" and f["excType"] == "PanicException" for f in burn)


def test_a_panic_and_the_traceback_of_another_panic_are_two_findings(shipped_cli: Callable[..., Any], tmp_path: Path) -> None:
    texts = _texts("0")
    add, total = texts["burn-add-shape"], texts["burn-sum-dim"]
    log = NOISE + add[: add.index("Traceback")] + NOISE + NOISE + total[total.index("Traceback") :]
    path = tmp_path / "two.log"
    path.write_text(log, encoding="utf-8")
    doc = shipped_cli("scan", "--json", str(path)).json()
    assert [f["kind"] for f in doc["findings"]] == ["panic", "traceback"]
    first, second = (f["matches"][0]["message"] for f in doc["findings"])
    assert first.startswith("Add:") and "incompatible shapes" in first
    assert second.startswith("Sum:") and "aggregate" in second


def test_carriage_returns_are_not_line_breaks(shipped_cli: Callable[..., Any], tmp_path: Path) -> None:
    bars = "".join(f"\r{p}%|{'#' * (p // 10):<10}| {p}/100" for p in range(0, 101, 1))
    text = _texts("0")["candle-matmul-i64"]
    path = tmp_path / "bars.log"
    path.write_text(NOISE + bars + "\n" + NOISE + text, encoding="utf-8")
    doc = shipped_cli("scan", "--json", str(path)).json()
    assert [f["line"] for f in doc["findings"]] == [4]
    assert doc["files"][0]["lines"] == 3 + text.count("\n")


def test_binary_and_over_long_lines_are_skipped(shipped_cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_logstream, "MAX_LINE", 4096)
    text = _texts("0")["candle-matmul-i64"]
    long_line = "UnsupportedDTypeForOp(I64, \"matmul\") " * 400  # 15 KB: over the limit, though it holds an error
    path = tmp_path / "odd.log"
    path.write_bytes(b"\x00\x01ValueError: UnsupportedDTypeForOp(I64, \"matmul\")\x00\n" + long_line.encode() + b"\n" + text.encode())
    doc = shipped_cli("scan", "--json", str(path)).json()
    assert [f["line"] for f in doc["findings"]] == [3]
    assert doc["files"][0]["lines"] == 2 + text.count("\n")


def test_a_line_longer_than_a_chunk_with_a_marker_inside_is_skipped(shipped_cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_logstream, "MAX_LINE", 1000)
    monkeypatch.setattr(_logstream, "CHUNK", 256)
    text = _texts("0")["candle-matmul-i64"]
    huge = "x" * 300 + "Traceback (most recent call last): " + "y" * 50000  # runs over many chunks
    reads: List[int] = []
    real_more = _logstream.LogReader._more

    def more(self: Any, *, drop: bool) -> bool:
        reads.append(len(self.buf))
        return real_more(self, drop=drop)

    monkeypatch.setattr(_logstream.LogReader, "_more", more)
    path = tmp_path / "huge.log"
    path.write_text(NOISE + huge + "\n" + NOISE + text, encoding="utf-8")
    doc = shipped_cli("scan", "--json", str(path)).json()
    assert [f["line"] for f in doc["findings"]] == [4]
    assert doc["files"][0]["lines"] == 3 + text.count("\n")
    assert max(reads) < 4 * 1000  # the endless line was never held whole


def test_small_chunks_give_the_same_findings(shipped_cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts("1")
    log, starts = _log_of([texts[n] for n in sorted(texts)])
    path = tmp_path / "chunks.log"
    path.write_text(log, encoding="utf-8")
    monkeypatch.setattr(_logstream, "CHUNK", 97)  # blocks and markers cut across every read
    doc = shipped_cli("scan", "--json", str(path)).json()
    assert [f["line"] for f in doc["findings"]] == starts


def test_json_document_has_the_documented_keys(shipped_cli: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "one.log"
    path.write_text(NOISE + _texts("0")["candle-matmul-i64"], encoding="utf-8")
    doc = shipped_cli("scan", "--json", str(path)).json()
    assert set(doc) == {"files", "findings", "summary", "count"} and doc["count"] == 1
    assert set(doc["findings"][0]) == {"file", "line", "endLine", "kind", "excType", "excerpt", "matches"}
    assert set(doc["summary"][0]) == {"id", "repo", "errorMessage", "count"}
    empty = tmp_path / "empty.log"
    empty.write_text(NOISE, encoding="utf-8")
    assert shipped_cli("scan", "--json", str(empty)).json() == {
        "findings": [], "files": [{"path": str(empty), "lines": 1, "findings": 0}], "summary": [], "count": 0,
    }


def test_a_finding_is_printed_before_the_log_ends() -> None:
    """Streaming: the first finding reaches stdout while the writer still holds the pipe open."""
    text = _texts("0")["candle-matmul-i64"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "errhint", "scan", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=child_env(shipped=True), cwd=os.path.dirname(__file__) or ".",
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((NOISE + text + NOISE).encode())
        proc.stdin.flush()
        first = proc.stdout.readline().decode()  # blocks until scan prints; the pipe is still open
        assert first.startswith("-:2: ValueError: UnsupportedDTypeForOp(I64")
        assert proc.poll() is None
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=120)
    assert proc.returncode == 0


def test_head_gets_its_line_and_scan_exits_quietly(tmp_path: Path) -> None:
    text = _texts("0")["candle-matmul-i64"]
    path = tmp_path / "many.log"
    path.write_text((NOISE * 50 + text) * 400, encoding="utf-8")
    start = time.perf_counter()
    proc = subprocess.run(
        f"{sys.executable} -m errhint scan {path} | head -1",
        shell=True, capture_output=True, text=True, env=child_env(shipped=True), cwd=str(tmp_path),
    )
    took = time.perf_counter() - start
    assert proc.stdout.startswith(f"{path}:51: ValueError")
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr
    full = subprocess.run([sys.executable, "-m", "errhint", "scan", "--summary-only", str(path)],
                          capture_output=True, text=True, env=child_env(shipped=True), cwd=str(tmp_path))
    assert "400 errors with hints" in full.stdout
    assert took < 60


def test_without_ahocorasick_rs_the_regex_fallback_finds_the_same_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python 3.9 (no ahocorasick-rs wheel): the trie-shaped regex gives the automaton's hits."""
    from errhint import engine

    texts = _texts("1")
    log, _ = _log_of([texts[n] for n in sorted(texts)])
    data = (log + "INFO unsupported dtype U8 for op conv2d was logged\n").encode()
    terms = _logstream.dataset_terms(engine.dataset())
    fast = _logstream.Prefilter(terms).hits(data, 0)
    monkeypatch.setitem(sys.modules, "ahocorasick_rs", None)  # import fails
    slow = _logstream.Prefilter(terms).hits(data, 0)
    assert slow == fast and len(fast) > 28


def test_progress_line_on_a_terminal_for_big_files(shipped_cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from errhint.cli import scan

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    path = tmp_path / "p.log"
    path.write_text(NOISE * 2000 + _texts("0")["candle-matmul-i64"], encoding="utf-8")
    monkeypatch.setattr(scan._Progress, "MIN_SIZE", 1000)
    monkeypatch.setattr(_logstream, "CHUNK", 20000)
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    res = shipped_cli("scan", "--summary-only", str(path))
    assert res.code == 0
    shown = term.getvalue()
    assert f"\rscanning {path}: 100%" in shown and f"\rscanning {path}: 0%" not in shown.split("100%")[-1]
    assert shown.endswith("\r\x1b[K")  # cleared at the end
    monkeypatch.setattr(scan._Progress, "MIN_SIZE", 10 ** 12)
    term.seek(0)
    term.truncate()
    shipped_cli("scan", "--summary-only", str(path))
    assert "scanning" not in term.getvalue()  # small files: no progress line


def test_parallel_parts_find_every_term_even_across_a_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """A big buffer is searched in parts on several threads: every occurrence the single search
    finds is found, also one that straddles a cut between parts, and hits stay in order."""
    pytest.importorskip("ahocorasick_rs")
    terms = ["panicked at ", "shape mismatch in matmul", "Traceback (most recent call last):"]
    monkeypatch.setattr(_logstream, "SPLIT_AT", 1 << 10)
    monkeypatch.setattr(_logstream, "_workers", lambda: 3)
    filler = b"step 17 loss 0.25 lr 3e-4\n" * 400  # 10,400 bytes
    data = bytearray(filler * 3)
    size = len(data)
    for cut in (size // 3, 2 * size // 3):  # a term across each cut of the three parts
        data[cut - 5:cut - 5 + len(b"shape mismatch in matmul")] = b"shape mismatch in matmul"
    data[100:112] = b"panicked at "
    data[-40:-6] = b"Traceback (most recent call last):"
    data = bytes(data)
    parallel = _logstream.Prefilter(terms).hits(data, 0)
    monkeypatch.setattr(_logstream, "_workers", lambda: 1)
    single = _logstream.Prefilter(terms).hits(data, 0)
    assert len(single) == 4
    assert set(single) <= set(parallel) and parallel == sorted(parallel)
    monkeypatch.setattr(_logstream, "_workers", lambda: 3)
    assert _logstream.Prefilter(terms).hits(data, 500) == [h for h in single if h >= 500]
