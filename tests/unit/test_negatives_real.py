"""Plain Python errors never get a hint (issue 16, item 5).

Every case raises a real exception from the standard library or a third-party package installed
with errhint's test and binding extras (pydantic, PyYAML, Jinja2, packaging, dateutil, click,
regex, rich, Pygments, psutil, sortedcontainers, traitlets). Each live exception goes to
``errhint.lookup`` with the shipped dataset, and its ``Type: message`` line to
``errhint.explain``: neither may return a match. The ordinary errors of ``test_engine.py``
are not repeated here.
"""

from __future__ import annotations

import abc
import argparse
import array
import ast
import asyncio
import base64
import bisect
import bz2
import codecs
import collections
import configparser
import copy
import csv
import dataclasses
import datetime
import decimal
import enum
import fractions
import functools
import getopt
import gzip
import hashlib
import heapq
import hmac
import importlib
import inspect
import io
import ipaddress
import itertools
import json
import lzma
import math
import operator
import os
import pathlib
import pickle
import queue
import random
import re
import secrets
import shlex
import shutil
import socket
import sqlite3
import statistics
import string
import struct
import tarfile
import textwrap
import threading
import time
import urllib.parse
import uuid
import weakref
import xml.etree.ElementTree as ET
import zipfile
import zlib
from typing import Any, Callable, Dict, Optional, Tuple

import pytest

MISSING = "/nonexistent_errhint_h16t"


class _Color(enum.Enum):
    RED = 1


@dataclasses.dataclass(frozen=True)
class _Frozen:
    shape: int = 3


class _Base(abc.ABC):
    @abc.abstractmethod
    def forward(self) -> None: ...


def _exec(code: str) -> None:
    exec(code, {})


def _mutable_default() -> None:
    @dataclasses.dataclass
    class Bad:
        dims: list = []  # noqa: RUF008


def _argparse_int() -> None:
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--hidden", type=int)
    parser.parse_args(["--hidden", "many"])


def _config_duplicate() -> None:
    configparser.ConfigParser().read_string("[model]\nlayers = 2\nlayers = 3\n")


def _closed_file() -> None:
    f = io.StringIO("x")
    f.close()
    f.read()


def _sqlite(sql: str) -> None:
    sqlite3.connect(":memory:").execute(sql)


def _pydantic_model() -> Any:
    import pydantic

    class Config(pydantic.BaseModel):
        hidden_size: int
        dropout: float

    return Config


def _click_bad_int() -> None:
    import click

    @click.command()
    @click.option("--layers", type=int)
    def main(layers: int) -> None: ...

    main.main(["--layers", "deep"], standalone_mode=False)


def _traitlets() -> None:
    import traitlets

    class Model(traitlets.HasTraits):
        size = traitlets.Int()

    Model().size = "large"


# name -> (package that must be importable or None, trigger)
CASES: Dict[str, Tuple[Optional[str], Callable[[], Any]]] = {
    # --- builtins ------------------------------------------------------------------------------
    "slice-step-zero": (None, lambda: [1, 2, 3][::0]),
    "bytes-slice-step-zero": (None, lambda: b"abc"[::0]),
    "int-base-range": (None, lambda: int("12", 1)),
    "int-float-text": (None, lambda: int("3.5")),
    "int-none": (None, lambda: int(None)),  # type: ignore[arg-type]
    "float-comma": (None, lambda: float("1,5")),
    "complex-bad": (None, lambda: complex("1+")),
    "key-error-weight": (None, lambda: {"weight": 1}["bias"]),
    "key-error-tuple": (None, lambda: {(5, 7): 1}[(7, 5)]),
    "list-index-range": (None, lambda: [1, 2, 3][10]),
    "list-pop-empty": (None, lambda: [].pop()),
    "dict-popitem-empty": (None, lambda: {}.popitem()),
    "set-remove": (None, lambda: {1}.remove(2)),
    "str-split-empty": (None, lambda: "a b".split("")),
    "str-times-float": (None, lambda: "a" * 2.5),  # type: ignore[operator]
    "format-missing-key": (None, lambda: "{shape}".format()),
    "percent-format": (None, lambda: "%d" % "x"),
    "bytes-plus-str": (None, lambda: b"a" + "b"),  # type: ignore[operator]
    "tuple-assign": (None, lambda: operator.setitem((1, 2), 0, 5)),
    "unpack-too-many": (None, lambda: _exec("a, b = [1, 2, 3]")),
    "unpack-too-few": (None, lambda: _exec("a, b, c = [1, 2]")),
    "iter-int": (None, lambda: iter(5)),  # type: ignore[call-overload]
    "len-int": (None, lambda: len(5)),  # type: ignore[arg-type]
    "hash-list": (None, lambda: hash([])),
    "max-empty": (None, lambda: max([])),
    "sum-strings": (None, lambda: sum(["a", "b"])),  # type: ignore[arg-type]
    "range-step-zero": (None, lambda: range(1, 9, 0)),
    "divmod-zero": (None, lambda: divmod(7, 0)),
    "pow-not-invertible": (None, lambda: pow(2, -1, 4)),
    "int-too-many-digits": (None, lambda: str(10**5000)),
    "float-too-large": (None, lambda: float(10**400)),
    "chr-range": (None, lambda: chr(0x110000)),
    "ord-two-chars": (None, lambda: ord("ab")),
    "fromhex": (None, lambda: bytes.fromhex("zz")),
    "to-bytes-overflow": (None, lambda: (300).to_bytes(1, "big")),
    "from-bytes-order": (None, lambda: int.from_bytes(b"a", "middle")),  # type: ignore[arg-type]
    "bytes-index": (None, lambda: b"abc"[10]),
    "unicode-encode": (None, lambda: "\u00e9".encode("ascii")),
    "getattr-shape": (None, lambda: object().shape),  # type: ignore[attr-defined]
    "setattr-int": (None, lambda: setattr(1, "dims", 2)),
    "sorted-key-int": (None, lambda: sorted([3, 1], key=5)),  # type: ignore[arg-type]
    "call-int": (None, lambda: (lambda f: f())(5)),
    "abstract-forward": (None, lambda: _Base()),  # type: ignore[abstract]
    "syntax-error": (None, lambda: compile("x = ", "<model>", "exec")),
    "indentation-error": (None, lambda: compile("if True:\nx = 1", "<model>", "exec")),
    "name-error-tensor": (None, lambda: _exec("y = weights @ inputs")),
    "unbound-local": (None, lambda: _exec("def f():\n    x += 1\nf()")),
    "assert-shape": (None, lambda: _exec("assert (5, 7) == (7, 5), 'shape mismatch: (5, 7) vs (7, 5)'")),
    "recursion-limit": (None, lambda: _exec("def f(n):\n    return f(n + 1)\nf(0)")),
    "keyboard-like-runtime": (None, lambda: _exec("raise RuntimeError('dimension mismatch in layer 3')")),
    "not-implemented": (None, lambda: _exec("raise NotImplementedError('matmul for int tensors')")),
    # --- math, numbers, decimal, fractions, statistics, random -----------------------------------
    "math-factorial-negative": (None, lambda: math.factorial(-1)),
    "math-comb-negative": (None, lambda: math.comb(2, -1)),
    "math-exp-overflow": (None, lambda: math.exp(1000)),
    "math-log-zero": (None, lambda: math.log(0)),
    "decimal-division-by-zero": (None, lambda: decimal.Decimal(1) / decimal.Decimal(0)),
    "decimal-quantize": (None, lambda: decimal.Decimal("1e30").quantize(decimal.Decimal("1e-30"))),
    "fraction-zero": (None, lambda: fractions.Fraction(1, 0)),
    "fraction-text": (None, lambda: fractions.Fraction("x/2")),
    "statistics-mean-empty": (None, lambda: statistics.mean([])),
    "statistics-stdev-one": (None, lambda: statistics.stdev([1.0])),
    "random-choice-empty": (None, lambda: random.choice([])),
    "random-sample-large": (None, lambda: random.sample([1, 2], 5)),
    "random-randrange-empty": (None, lambda: random.randrange(5, 2)),
    "secrets-randbelow-zero": (None, lambda: secrets.randbelow(0)),
    # --- text, binary formats, codecs ----------------------------------------------------------
    "json-trailing-comma": (None, lambda: json.loads('{"hidden": 1,}')),
    "json-extra-data": (None, lambda: json.loads("{} {}")),
    "json-dumps-object": (None, lambda: json.dumps(object())),
    "json-dumps-set": (None, lambda: json.dumps({1, 2})),
    "re-bad-escape": (None, lambda: re.compile(r"\q")),
    "re-nothing-to-repeat": (None, lambda: re.compile("*a")),
    "re-unterminated-set": (None, lambda: re.compile("[a-")),
    "re-invalid-group-ref": (None, lambda: re.sub("a", r"\2", "a")),
    "base64-padding": (None, lambda: base64.b64decode("abc")),
    "struct-pack-range": (None, lambda: struct.pack("<h", 70000)),
    "struct-bad-format": (None, lambda: struct.calcsize("<y")),
    "codecs-unknown": (None, lambda: codecs.lookup("no-such-encoding")),
    "memoryview-cast": (None, lambda: memoryview(b"abc").cast("i")),
    "array-bad-typecode": (None, lambda: array.array("z")),
    "array-float-in-int": (None, lambda: array.array("i", [1.5])),
    "csv-strict-quote": (None, lambda: list(csv.reader(['a,"b'], strict=True))),
    "shlex-no-closing-quote": (None, lambda: shlex.split('"abc')),
    "template-missing": (None, lambda: string.Template("$dims").substitute({})),
    "textwrap-width-zero": (None, lambda: textwrap.wrap("a b", width=0)),
    "xml-parse": (None, lambda: ET.fromstring("<layer>")),
    "ast-literal-eval": (None, lambda: ast.literal_eval("load_model()")),
    "uuid-bad": (None, lambda: uuid.UUID("xyz")),
    "ip-address-bad": (None, lambda: ipaddress.ip_address("999.1.1.1")),
    "urlsplit-ipv6": (None, lambda: urllib.parse.urlsplit("http://[::1")),
    "socket-inet-aton": (None, lambda: socket.inet_aton("x")),
    "hashlib-unknown": (None, lambda: hashlib.new("no-such-hash")),
    "hmac-no-digestmod": (None, lambda: hmac.new(b"key")),  # type: ignore[call-arg]
    # --- archives and compression --------------------------------------------------------------
    "zipfile-not-zip": (None, lambda: zipfile.ZipFile(io.BytesIO(b"not a zip archive"))),
    "tarfile-not-tar": (None, lambda: tarfile.open(fileobj=io.BytesIO(b"not a tar archive"))),
    "gzip-bad": (None, lambda: gzip.decompress(b"not gzip data")),
    "zlib-bad": (None, lambda: zlib.decompress(b"not zlib data")),
    "lzma-bad": (None, lambda: lzma.decompress(b"not lzma data")),
    "bz2-bad": (None, lambda: bz2.decompress(b"not bz2 data")),
    "pickle-garbage": (None, lambda: pickle.loads(b"garbage")),
    "pickle-lambda": (None, lambda: pickle.dumps(lambda: 0)),
    "deepcopy-generator": (None, lambda: copy.deepcopy(x for x in [])),
    # --- dates and times -----------------------------------------------------------------------
    "date-day-range": (None, lambda: datetime.date(2024, 2, 30)),
    "datetime-month-range": (None, lambda: datetime.datetime(2024, 13, 1)),
    "timedelta-overflow": (None, lambda: datetime.timedelta(days=10**10)),
    "fromisoformat": (None, lambda: datetime.datetime.fromisoformat("2024-99-01")),
    "time-strptime": (None, lambda: time.strptime("12", "%H:%M")),
    # --- files and paths -----------------------------------------------------------------------
    "path-read-missing": (None, lambda: pathlib.Path(MISSING, "config.json").read_text()),
    "path-relative-to": (None, lambda: pathlib.Path("weights/model.safetensors").relative_to("/abs")),
    "path-with-suffix": (None, lambda: pathlib.Path("model").with_suffix("safetensors")),
    "makedirs-exists": (None, lambda: os.makedirs("/")),
    "rmdir-missing": (None, lambda: os.rmdir(MISSING)),
    "shutil-copy-missing": (None, lambda: shutil.copy(MISSING, "/tmp/errhint-h16t-copy")),
    "open-missing-safetensors": (None, lambda: open(os.path.join(MISSING, "model.safetensors"), "rb")),
    "closed-file": (None, _closed_file),
    "stringio-fileno": (None, lambda: io.StringIO().fileno()),
    # --- containers, functools, itertools, collections -----------------------------------------
    "islice-negative": (None, lambda: itertools.islice([], -1)),
    "deque-maxlen": (None, lambda: collections.deque(maxlen=-1)),
    "namedtuple-duplicate": (None, lambda: collections.namedtuple("Shape", "rows rows")),
    "enum-value": (None, lambda: _Color(5)),
    "dataclass-mutable-default": (None, _mutable_default),
    "dataclass-frozen": (None, lambda: setattr(_Frozen(), "shape", 7)),
    "reduce-empty": (None, lambda: functools.reduce(operator.add, [])),
    "heappop-empty": (None, lambda: heapq.heappop([])),
    "bisect-lo-negative": (None, lambda: bisect.bisect([1], 1, lo=-1)),
    "itemgetter-range": (None, lambda: operator.itemgetter(5)([1])),
    "weakref-int": (None, lambda: weakref.ref(1)),
    "signature-bind": (None, lambda: inspect.signature(divmod).bind(1, 2, 3)),
    # --- runtime services ----------------------------------------------------------------------
    "lock-release": (None, lambda: threading.Lock().release()),
    "asyncio-run-not-coroutine": (None, lambda: asyncio.run(5)),  # type: ignore[arg-type]
    "queue-empty": (None, lambda: queue.Queue().get_nowait()),
    "import-module-missing": (None, lambda: importlib.import_module("errhint_h16t_missing_module")),
    "argparse-int": (None, _argparse_int),
    "getopt-unknown": (None, lambda: getopt.getopt(["-x"], "a")),
    "configparser-duplicate": (None, _config_duplicate),
    "configparser-no-section": (None, lambda: configparser.ConfigParser().get("model", "layers")),
    "sqlite-syntax": (None, lambda: _sqlite("SELEC 1")),
    "sqlite-no-table": (None, lambda: _sqlite("SELECT * FROM tensors")),
    # --- third-party packages --------------------------------------------------------------------
    "pydantic-int": ("pydantic", lambda: _pydantic_model()(hidden_size="big", dropout=0.1)),
    "pydantic-missing": ("pydantic", lambda: _pydantic_model()(hidden_size=7)),
    "pydantic-list": ("pydantic", lambda: __import__("pydantic").TypeAdapter(list[int]).validate_python([1, "x"])),
    "yaml-parse": ("yaml", lambda: __import__("yaml").safe_load("dims: [5, 7")),
    "yaml-constructor": ("yaml", lambda: __import__("yaml").safe_load("!!python/object:os.system {}")),
    "jinja-syntax": ("jinja2", lambda: __import__("jinja2").Template("{% if %}")),
    "jinja-undefined": (
        "jinja2",
        lambda: __import__("jinja2").Environment(undefined=__import__("jinja2").StrictUndefined)
        .from_string("{{ shape }}").render(),
    ),
    "packaging-version": ("packaging", lambda: __import__("packaging.version").version.Version("1.0.x.y")),
    "packaging-specifier": ("packaging", lambda: __import__("packaging.specifiers").specifiers.SpecifierSet("=>1.0")),
    "packaging-requirement": (
        "packaging", lambda: __import__("packaging.requirements").requirements.Requirement("candle-nn=="),
    ),
    "dateutil-parse": ("dateutil", lambda: __import__("dateutil.parser").parser.parse("not a date at all")),
    "click-bad-int": ("click", _click_bad_int),
    "regex-unterminated": ("regex", lambda: __import__("regex").compile("(?P<dims>")),
    "rich-color": ("rich", lambda: __import__("rich.color").color.Color.parse("no-such-colour")),
    "pygments-lexer": ("pygments", lambda: __import__("pygments.lexers").lexers.get_lexer_by_name("no-such-lexer")),
    "psutil-no-process": ("psutil", lambda: __import__("psutil").Process(2**22 + 12345)),
    "sortedlist-index": ("sortedcontainers", lambda: __import__("sortedcontainers").SortedList([1]).index(5)),
    "traitlets-int": ("traitlets", _traitlets),
}


def _raise(name: str) -> BaseException:
    package, trigger = CASES[name]
    if package is not None:
        pytest.importorskip(package)
    try:
        trigger()
    except BaseException as exc:  # noqa: B902 - SystemExit/KeyboardInterrupt are not raised by any case
        return exc
    raise AssertionError(f"{name}: the trigger did not raise")


def test_at_least_100_real_negatives_of_many_kinds() -> None:
    assert len(CASES) >= 100
    kinds = {type(_raise(name)).__name__ for name in CASES}
    assert len(kinds) >= 40, sorted(kinds)


@pytest.mark.parametrize("name", sorted(CASES))
def test_plain_python_error_gets_no_hint(name: str, clean_errhint: None) -> None:
    import errhint

    exc = _raise(name)
    got = errhint.lookup(exc)
    assert got == [], (name, f"{type(exc).__name__}: {exc}", [(m.record.id, m.record.error_message, m.score) for m in got])
    line = f"{type(exc).__name__}: {exc}"
    pasted = errhint.explain(line)
    assert pasted == [], (name, line, [(m.record.id, m.record.error_message, m.score) for m in pasted])
