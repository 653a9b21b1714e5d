"""Malformed ``.safetensors`` files loaded for real through ``candle.utils.load_safetensors``.

Each trigger writes one small file into the directory it is given (the test's tmp_path) and
loads it. candle 0.4.2 reads the file with ``safetensors`` 0.4.1 (the binary embeds the
path of safetensors-0.4.1), whose ``SafeTensorError`` has a Display that prints its Debug
form, so the ValueError reads ``SafeTensor(HeaderTooSmall)``. The conversion into candle's
error goes through ``#[from]`` without ``.bt()``: no ``WithBacktrace`` wrapper here even
with RUST_BACKTRACE=1. The ``template`` of a safetensors site is the message written for
that variant at the newest safetensors revision (from 0.5 on, Display has real text);
``variant`` names the enum variant the Debug form shows.

``get(name)`` on a missing tensor (``TensorNotFound``) cannot be reached: candle-nn 0.4.2's
Python API only loads whole files into a dict, so a missing name is a plain KeyError.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any, List, Optional

from _site import Site

ST = "huggingface/safetensors"
ST_FILE = "safetensors/src/tensor.rs"


def _load(path: Path):  # type: ignore[no-untyped-def]
    import candle

    return candle.utils.load_safetensors(str(path))


def _write(tmp: Path, name: str, header: Any, data: bytes = b"", *, declared: Optional[int] = None) -> Path:
    """Write ``<u64 header length><header><data>``; ``declared`` overrides the length field."""
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    path = tmp / f"{name}.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw) if declared is None else declared) + raw + data)
    return path


def _tensor(dtype: str, shape: List[int], start: int, end: int) -> Any:
    return {"t": {"dtype": dtype, "shape": shape, "data_offsets": [start, end]}}


def _too_small(tmp: Path):  # type: ignore[no-untyped-def]
    path = tmp / "too_small.safetensors"
    path.write_bytes(b"\x01\x02\x03")
    return _load(path)


CASES: List[Site] = [
    Site(
        "header-too-small", _too_small,
        ST, "header too small", ST_FILE, "ValueError", variant="HeaderTooSmall", needs_tmp=True,
    ),
    Site(
        "header-too-large", lambda tmp: _load(_write(tmp, "too_large", b"{}", declared=200_000_000)),
        ST, "header too large", ST_FILE, "ValueError", variant="HeaderTooLarge", needs_tmp=True,
    ),
    Site(
        "header-length-past-end", lambda tmp: _load(_write(tmp, "bad_length", b"{}", declared=1000)),
        ST, "invalid header length", ST_FILE, "ValueError", variant="InvalidHeaderLength", needs_tmp=True,
    ),
    Site(
        "header-not-utf8", lambda tmp: _load(_write(tmp, "not_utf8", b"\xff\xfe{}")),
        ST, "invalid UTF-8 in header: {error}", ST_FILE, "ValueError", variant="InvalidHeader", needs_tmp=True,
    ),
    Site(
        "header-not-json", lambda tmp: _load(_write(tmp, "not_json", b"{not json")),
        ST, "invalid JSON in header: {error}", ST_FILE, "ValueError",
        variant="InvalidHeaderDeserialization", needs_tmp=True,
    ),
    Site(
        "header-unknown-dtype", lambda tmp: _load(_write(tmp, "bad_dtype", _tensor("F99", [2], 0, 8), b"\0" * 8)),
        ST, "invalid JSON in header: {error}", ST_FILE, "ValueError",
        variant="InvalidHeaderDeserialization", needs_tmp=True,
    ),
    Site(
        "data-not-covered", lambda tmp: _load(_write(tmp, "incomplete", _tensor("F32", [2], 0, 8), b"\0" * 12)),
        ST, "incomplete metadata, file not fully covered", ST_FILE, "ValueError",
        variant="MetadataIncompleteBuffer", needs_tmp=True,
    ),
    Site(
        "offsets-not-contiguous",
        lambda tmp: _load(_write(tmp, "bad_offset", _tensor("F32", [2], 4, 12), b"\0" * 12)),
        ST, "invalid offset for tensor `{name}`", ST_FILE, "ValueError", {"name": "t"},
        variant="InvalidOffset", needs_tmp=True,
    ),
    Site(
        "shape-does-not-fit-offsets",
        lambda tmp: _load(_write(tmp, "invalid_info", _tensor("F32", [3], 0, 8), b"\0" * 8)),
        ST, "invalid shape, data type, or offset for tensor", ST_FILE, "ValueError",
        variant="TensorInvalidInfo", needs_tmp=True,
    ),
    Site(
        "shape-overflows",
        lambda tmp: _load(_write(tmp, "overflow", _tensor("F32", [2**62, 2**62], 0, 8), b"\0" * 8)),
        ST, "overflow computing buffer size from shape and/or element type", ST_FILE, "ValueError",
        variant="ValidationOverflow", needs_tmp=True,
    ),
    Site(
        "bool-dtype-unsupported-by-candle",
        lambda tmp: _load(_write(tmp, "bool", _tensor("BOOL", [2], 0, 2), b"\0" * 2)),
        "huggingface/candle", "unsupported safetensor dtype {0:?}", "candle-core/src/safetensors.rs",
        "ValueError", {"f0": "BOOL"}, variant="UnsupportedSafeTensorDtype",
        display="unsupported safetensor dtype BOOL", needs_tmp=True, wrapped=False,
    ),
]
