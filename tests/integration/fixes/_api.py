"""Does a piece of Python code name only what the installed binding has?

Used by the harness in the script's own process, where the binding is imported and the failing
frame's namespace is at hand. ``unknown_names(code, binding, namespace)`` parses the code with
``ast`` and returns every attribute it names that does not exist:

* a chain rooted at a name bound in ``namespace`` (``x.transpose``, ``candle.nn.Linear``,
  ``TensorPy.ones``) is resolved on the real object, attribute by attribute (submodules of
  ``candle`` are imported on the way);
* any other attribute (a method called on a call's result, ``x.t().matmul``; or a name the
  namespace does not hold, as in a hint's prose code span) must be an attribute of one of the
  binding's public classes or modules (``API_ROOTS``);
* a called bare name must be a builtin, bound in the namespace or in the code itself, or (prose
  such as ``squeeze(1)``) a method of the binding;
* chains rooted at a standard-library module (``os.path.exists``) are resolved on that module;
  dunder attributes are Python's and not checked.

Code that does not parse as Python is reported by ``looks_like_rust`` or ignored (prose spans
such as ``[.., m, k]`` parse as lists and name nothing).
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import re
import sys
from typing import Any, Dict, Iterable, List, Optional, Set

API_ROOTS = {
    "candle": (
        "candle", "candle.Tensor", "candle.QTensor", "candle.DType", "candle.nn", "candle.nn.Module",
        "candle.nn.Linear", "candle.nn.Embedding", "candle.nn.LayerNorm", "candle.nn.Sequential",
        "candle.nn.ModuleList", "candle.nn.ModuleDict", "candle.functional", "candle.utils",
    ),
    "pyburn": (
        "pyburn", "pyburn.ndarray", "pyburn.ndarray.ndarray_tensor", "pyburn.ndarray.ndarray_tensor.TensorPy",
        "pyburn.ndarray.ndarray_tensor.TensorPy.TensorTwo", "pyburn.ndarray.ndarray_tensor.Distribution",
        "pyburn.ndarray.ndarray_nn", "pyburn.ndarray.ndarray_nn.conv", "pyburn.ndarray.ndarray_nn.attention",
        "pyburn.ndarray.ndarray_nn.transformer", "pyburn.ndarray.ndarray_nn.gru", "pyburn.ndarray.ndarray_nn.loss",
        "pyburn.ndarray.ndarray_nn.Initializer", "pyburn.ndarray.ndarray_nn.PaddingConfig2dPy",
    ),
}
_RUST = re.compile(r"::<|::\w|\blet\s+\w|\.unwrap\(\)|\?;|&\[|\bfn\s+\w|\bimpl\b|\bvec!\[")
_SPAN = re.compile(r"``([^`]+)``|`([^`\n]+)`")


def _resolve(dotted: str) -> Any:
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, name in enumerate(parts[1:], start=1):
        if not hasattr(obj, name):
            obj = importlib.import_module(".".join(parts[: i + 1]))
        else:
            obj = getattr(obj, name)
    return obj


@functools.lru_cache(maxsize=None)
def surface(binding: str) -> Set[str]:
    """Every public attribute name of the binding's modules and classes (``API_ROOTS``)."""
    names: Set[str] = set()
    for dotted in API_ROOTS[binding]:
        try:
            obj = _resolve(dotted)
        except (ImportError, AttributeError):
            continue
        names.update(n for n in dir(obj) if not n.startswith("__"))
    if binding == "candle":  # attributes set in __init__ (``layer.weight``, ``layer.bias``)
        import candle.nn

        for layer in (candle.nn.Linear(1, 1), candle.nn.Embedding(1, 1), candle.nn.LayerNorm(1)):
            names.update(n for n in vars(layer) if not n.startswith("_"))
            names.update(getattr(layer, "_buffers", {}))  # parameters live there (``weight``, ``bias``)
    return names


def looks_like_rust(code: str) -> bool:
    """Rust syntax that a Python user cannot run (``::<2>``, ``let x``, ``.unwrap()``, ``?;``)."""
    return bool(_RUST.search(code))


def code_spans(text: str) -> List[str]:
    """The backtick code spans of a hint text."""
    return [a or b for a, b in _SPAN.findall(text or "")]


def _chain(node: ast.AST) -> Optional[List[str]]:
    """``a.b.c`` as ["a", "b", "c"]; None when the chain does not start at a plain name."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def _bound_in_code(tree: ast.AST) -> Set[str]:
    bound: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound


def _check_chain(parts: List[str], namespace: Dict[str, Any], known: Set[str]) -> List[str]:
    root = parts[0]
    parts = [p for p in parts if not p.startswith("__")]  # dunders (``type(x).__name__``) are Python's
    if root in namespace or root in ("candle", "pyburn") or root in sys.stdlib_module_names:
        try:
            obj = namespace[root] if root in namespace else importlib.import_module(root)
        except ImportError:
            return [".".join(parts)]
        for i, name in enumerate(parts[1:], start=1):
            if hasattr(obj, name):
                obj = getattr(obj, name)
                continue
            try:  # a submodule not imported yet (candle.nn)
                obj = importlib.import_module(".".join(parts[: i + 1]))
            except ImportError:
                return [".".join(parts[: i + 1])]
        return []
    return [f"{root}.{name}" for name in parts[1:] if name not in known]


def unknown_names(code: str, binding: str, namespace: Optional[Dict[str, Any]] = None) -> List[str]:
    """Attributes and called names in ``code`` that the installed binding does not have.

    Raises ``SyntaxError`` when ``code`` is not Python.
    """
    tree = ast.parse(code)
    namespace = dict(namespace or {})
    known = surface(binding)
    bound = _bound_in_code(tree) | set(namespace) | set(dir(builtins))
    missing: List[str] = []
    chained: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in chained:
            parts = _chain(node)
            inner = node.value
            while isinstance(inner, ast.Attribute):
                chained.add(id(inner))
                inner = inner.value
            if parts is not None:
                missing += _check_chain(parts, namespace, known)
            elif node.attr not in known and not node.attr.startswith("__"):
                missing.append(f"<expr>.{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            # ``squeeze(1)`` in prose names a method of the binding: fine when it has one
            if node.func.id not in bound and node.func.id not in known:
                missing.append(node.func.id)
    return sorted(set(missing))


def python_spans(texts: Iterable[str]) -> List[str]:
    """The code spans of ``texts`` that are Python code naming something (calls or attributes)."""
    found = []
    for text in texts:
        for span in code_spans(text):
            try:
                tree = ast.parse(span.strip())
            except SyntaxError:
                continue
            if any(isinstance(n, (ast.Attribute, ast.Call)) for n in ast.walk(tree)):
                found.append(span.strip())
    return found
