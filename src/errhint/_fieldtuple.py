"""Tuples with named fields, declared by their ``__new__``: ``collections.namedtuple``
without its ``eval``.

Why: ``namedtuple()`` compiles each class's ``__new__`` from generated source when the
defining module is imported (about 65 us a class); the ten value classes of the lookup path
cost about 0.6 ms at the first hint of a process. Here ``__new__`` is written in the class,
compiled with its module, and the field names are read from its parameters. Fields are read
through the same C accessor ``namedtuple`` uses.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~2.5 ms
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, Tuple, TypeVar

    T = TypeVar("T", bound="FieldTuple")

try:
    from _collections import _tuplegetter
except ImportError:  # pragma: no cover - what collections itself falls back to
    from operator import itemgetter as _itemgetter

    def _tuplegetter(index: int, doc: Any) -> Any:  # type: ignore[misc]
        return property(_itemgetter(index), doc=doc)


class FieldTuple(tuple):
    """Subclass it and define ``__new__(cls, field, ..., field=default)`` returning
    ``tuple.__new__(cls, (field, ...))`` in parameter order; the parameters name the fields."""

    __slots__ = ()
    _fields: Tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        code = cls.__new__.__code__
        cls._fields = tuple(code.co_varnames[1 : code.co_argcount])
        for index, name in enumerate(cls._fields):
            setattr(cls, name, _tuplegetter(index, f"Field {index}: {name}"))

    def _replace(self: T, **changes: Any) -> T:
        values = [changes.pop(name, value) for name, value in zip(self._fields, self)]
        if changes:
            raise ValueError(f"got unexpected field names: {sorted(changes)!r}")
        return type(self)(*values)

    def _asdict(self) -> Dict[str, Any]:
        return dict(zip(self._fields, self))

    def __getnewargs__(self) -> Tuple[Any, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return f"{type(self).__name__}({inner})"
