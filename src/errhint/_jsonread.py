"""JSON decoding for the lookup path without importing the ``json`` package.

Why: ``import json`` costs about 1 ms (its encoder and decoder modules and the patterns they
compile), which the first hint of a process pays whenever the program has not imported json
itself, and the lookup path only ever decodes. This runs the C scanner ``json.loads`` itself
uses (CPython's ``_json``); where that module is missing (another Python) it is
``json.loads``. Errors are ``ValueError`` either way (``json.JSONDecodeError`` is one).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~2.5 ms
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Optional, Tuple, Union

_WHITESPACE = " \t\n\r"  # what JSON allows between values


class _Options:
    """What the C scanner reads from ``json.JSONDecoder``: the defaults of ``json.loads``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__
    memo: dict = {}


def _c_scanner() -> Optional[Callable[[str, int], Any]]:
    try:
        from _json import make_scanner  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - CPython always has it
        return None
    return make_scanner(_Options())  # type: ignore[no-any-return]


_scan = _c_scanner()


def _decode(text: str, pos: int) -> Tuple[Any, int]:
    """The JSON value starting at ``pos`` and where it ends."""
    if _scan is None:  # pragma: no cover
        import json

        return json.JSONDecoder().raw_decode(text, pos)  # type: ignore[no-any-return]
    try:
        return _scan(text, pos)  # type: ignore[no-any-return]
    except StopIteration as stop:
        raise ValueError(f"Expecting value: char {stop.value}") from None


def value_at(text: str, pos: int) -> Any:
    """The JSON value starting at ``pos`` of ``text`` (what follows it is not read)."""
    return _decode(text, pos)[0]


def loads(data: Union[str, bytes]) -> Any:
    """``json.loads(data)`` for UTF-8 bytes or a str."""
    text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    value, end = _decode(text, len(text) - len(text.lstrip(_WHITESPACE)))
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"Extra data: char {end}")
    return value
