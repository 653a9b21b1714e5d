"""What a family module receives (``Context``) and returns (``Advice``).

A family module exposes ``advise(ctx) -> Optional[Advice]``: None when the error is not its
family or its values do not say enough.  Every number in the text it returns comes from
``ctx.values`` (the user's error) or is computed from them.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple


PYTHON = "python"
RUST = "rust"


class Advice:
    """Computed ``cause`` and ``fix`` sentences, and ``code``: a runnable rewrite of the
    failing statement (Python) or None.  ``language`` is the language of the code spans;
    ``record_fix`` False when the record's first fix is about another check than the one
    these values failed (it is then not shown beside this fix)."""

    __slots__ = ("cause", "fix", "code", "language", "record_fix")

    def __init__(self, cause: str, fix: str, code: Optional[str], language: str, record_fix: bool = True) -> None:
        self.cause = cause
        self.fix = fix
        self.code = code
        self.language = language
        self.record_fix = record_fix

    def __repr__(self) -> str:
        return (f"Advice(cause={self.cause!r}, fix={self.fix!r}, code={self.code!r}, language={self.language!r}, "
                f"record_fix={self.record_fix!r})")


class Context:
    """One match's facts: typed ``values``, the clean ``message``, the record's ``repo`` and
    ``variant`` name, the caller's ``binding`` (``candle``, ``pyburn``, None for Rust text),
    and ``site``: the failing statement (only for a live exception)."""

    __slots__ = ("values", "message", "repo", "variant", "binding", "site")

    def __init__(
        self, values: Mapping[str, Any], message: str, repo: str, variant: Optional[str],
        binding: Optional[str], site: Optional[Any] = None,
    ) -> None:
        self.values = values
        self.message = message
        self.repo = repo
        self.variant = variant
        self.binding = binding
        self.site = site

    @property
    def language(self) -> str:
        return RUST if self.binding is None else PYTHON

    @property
    def op(self) -> str:
        op = self.values.get("op")
        return op if isinstance(op, str) else ""

    def shape(self, name: str) -> Optional[list]:
        value = self.values.get(name)
        return value if isinstance(value, list) else None

    def candle_shapes(self, op: str) -> Optional[Tuple[list, list]]:
        """The ``lhs`` and ``rhs`` shapes of a candle error about ``op`` (None otherwise)."""
        lhs, rhs = self.shape("lhs"), self.shape("rhs")
        if self.op != op or self.repo != "huggingface/candle" or lhs is None or rhs is None:
            return None
        return lhs, rhs

    def says(self, cause: str, fix: str) -> "Advice":
        """Advice in words only (no code)."""
        return Advice(cause, fix, None, self.language)

    def int(self, name: str) -> Optional[int]:
        value = self.values.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def code(self, python: str, rust: str) -> str:
        """The code span for the caller's language."""
        return f"`{rust}`" if self.binding is None else f"`{python}`"


def const_int(node: Any) -> Optional[int]:
    """An int literal (``3``, ``-1``) of the user's source, else None."""
    import ast

    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = const_int(node.operand)
        return None if inner is None else -inner
    return None
