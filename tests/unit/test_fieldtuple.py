"""_fieldtuple.py: namedtuple-like value classes declared by their ``__new__``."""

from __future__ import annotations

import copy
import pickle
from collections import namedtuple

import pytest

from errhint._fieldtuple import FieldTuple


class Point(FieldTuple):
    __slots__ = ()

    def __new__(cls, x: int, y: int, label: str = "p") -> "Point":
        return tuple.__new__(cls, (x, y, label))


Reference = namedtuple("Reference", "x y label", defaults=("p",))


def test_behaves_like_the_namedtuple_it_replaces() -> None:
    p, r = Point(1, y=2), Reference(1, y=2)
    assert Point._fields == Reference._fields == ("x", "y", "label")
    assert (p.x, p.y, p.label) == (r.x, r.y, r.label) and p == r == (1, 2, "p")
    assert p._replace(label="q") == r._replace(label="q") and type(p._replace(x=5)) is Point
    assert p._asdict() == r._asdict() and repr(p) == "Point(x=1, y=2, label='p')"
    with pytest.raises(ValueError):
        p._replace(z=1)
    with pytest.raises(TypeError):
        Point(1)  # a field without default is required
    with pytest.raises(AttributeError):
        p.x = 3  # type: ignore[misc]
    assert not hasattr(p, "__dict__")


def test_copies_and_pickles() -> None:
    p = Point(1, 2, "z")
    assert copy.copy(p) == p and copy.deepcopy(p) == p
    assert pickle.loads(pickle.dumps(p)) == p and type(pickle.loads(pickle.dumps(p))) is Point
