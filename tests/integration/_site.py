"""The shape of one integration case: a real binding call and the upstream site it must hit.

Kept apart from the case lists so the subprocess runner, the tests and the docs generator
share one definition. Nothing here imports a binding: a case list is importable even where
the binding is not installed (the tests then skip with a reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional, Union

Trigger = Union[Callable[[], object], Callable[[Path], object]]


@dataclass(frozen=True)
class Site:
    """One real error, the call that raises it, and the error site that produced it.

    ``template`` is the message as written at the site (the thiserror ``#[error]`` string,
    the ``bail!``/``panic!`` format string, the PyErr literal, burn's ``TensorError``
    description). ``file_path`` is where the site is at the pinned revision (candle
    cd29c7cc = 0.4.2, burn v0.18.0, wrap-burn v0.1.7, safetensors v0.4.2); the dataset
    stores the path at the newest revision that has the template, so tests treat it as
    a secondary fact. ``captures`` are values the message carries and the match must
    expose, either as a capture or as literal text the matched record already fixed
    (a construction-site record such as ``... for op matmul``).
    """

    id: str
    trigger: Trigger
    repo: str
    template: str
    file_path: str
    exc_type: str
    captures: Mapping[str, str] = field(default_factory=dict)
    variant: Optional[str] = None
    display: Optional[str] = None
    needs_tmp: bool = False
    wrapped: Optional[bool] = None
    """For candle ValueErrors: whether the site adds a backtrace (``.bt()``), so that
    RUST_BACKTRACE=1 shows ``WithBacktrace { .. }``. None when not applicable."""


_MISSING = {
    "candle": "candle-nn==0.4.2 is not installed (pip install 'errhint[bindings]'; wheels exist for Linux x86_64 only)",
    "pyburn": "pyburn==0.1.7 is not installed (pip install 'errhint[bindings]'; wheels exist for CPython 3.11 on Linux x86_64 only)",
}


def require_binding(module: str) -> None:
    """Skip the calling test module, with the reason and the install command, when a binding is absent."""
    import pytest

    pytest.importorskip(module, reason=_MISSING[module])
