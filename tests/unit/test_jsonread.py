"""_jsonread.py: json.loads without importing json, for the lookup path."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errhint._jsonread import loads

ROOT = Path(__file__).resolve().parents[2]

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(values, st.sampled_from(["", " ", "\n", " \t\r\n "]))
def test_same_values_as_json_loads(value: Any, space: str) -> None:
    text = space + json.dumps(value, ensure_ascii=False) + space
    assert loads(text) == json.loads(text)
    assert loads(text.encode("utf-8")) == value


def test_constants_and_numbers_as_json_reads_them() -> None:
    got = loads('[NaN, Infinity, -Infinity, 1.5e3, 10, "\\u00e9\\n"]')
    assert math.isnan(got[0]) and got[1:3] == [math.inf, -math.inf] and got[3:] == [1500.0, 10, "\u00e9\n"]
    assert type(got[4]) is int and type(got[3]) is float


@pytest.mark.parametrize("bad", ["", "   ", "[1,", "{} x", '"\\x"', "{'a': 1}", "[1] [2]", b"\xff"])
def test_malformed_input_is_a_value_error(bad: Any) -> None:
    with pytest.raises(ValueError):
        loads(bad)


def test_the_lookup_path_does_not_import_json() -> None:
    code = (
        "import sys, errhint\n"
        "m = errhint.explain('unsupported dtype I64 for op matmul', exc_type='ValueError')\n"
        "print(bool(m), 'json' in sys.modules)\n"
    )
    env = {"PYTHONPATH": f"{ROOT / 'src'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.split() == ["True", "False"], out.stderr


def test_without_the_c_scanner_it_is_json_loads() -> None:
    code = (
        "import sys\nsys.modules['_json'] = None  # as on a Python without CPython's accelerator\n"
        "from errhint import _jsonread\n"
        "print(_jsonread._scan is None, _jsonread.loads(b' [1, {\"a\": null}] ') == [1, {'a': None}])\n"
        "try:\n    _jsonread.loads('[1,')\nexcept ValueError:\n    print('ValueError')\n"
    )
    env = {"PYTHONPATH": f"{ROOT / 'src'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.split() == ["True", "True", "ValueError"], out.stderr
