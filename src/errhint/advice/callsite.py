"""The failing statement of the user's code, read from a live exception's traceback.

``find(exc)`` walks the traceback to the innermost frame of *user* code (not errhint, not the
binding packages ``candle``/``pyburn``, not the standard library), reads that frame's source
through ``linecache`` and parses it with ``ast``.  The ``CallSite`` it returns holds the
statement, the failing expression (located by the frame's instruction position where Python
records one, else by the method name), and read-only access to the frame's names.  It holds
the frame only while the lookup runs: nothing of it is put into a ``Match``.
"""

from __future__ import annotations

import ast
import builtins
import copy
import linecache
import os
import sys
import threading

from typing import Any, Dict, Iterable, List, Optional, Tuple

from errhint.bindings import MODULES as BINDING_PACKAGES
MAX_SOURCE = 256_000
"""Characters of a source file that are parsed; a bigger file gives no call site (parsing
it would hold an exception hook too long)."""

_MISSING = object()
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)


_STDLIB = os.path.dirname(os.__file__) + os.sep
"""The standard library's folder: where ``os.py`` is (its compiled modules, in ``lib-dynload``
under it, have no Python frames)."""


def _is_user_frame(frame: Any) -> bool:
    """Whether a frame runs the user's code: not errhint, not a binding package, not the
    standard library."""
    name = frame.f_globals.get("__name__", "")
    if not isinstance(name, str):
        return False
    top = name.split(".", 1)[0]
    filename = frame.f_code.co_filename
    if top in BINDING_PACKAGES or top == "errhint" or filename.startswith("<frozen"):
        return False
    return not (filename.startswith(_STDLIB) and "site-packages" not in filename)


class CallSite:
    """The statement that raised, in one frame of user code.

    ``stmt`` is the parsed statement, ``node`` the expression in it that raised (a call or an
    operator; None when it cannot be told), ``deeper`` the binding frames between it and the
    error (``candle.nn`` Python code called by the statement: the failing op is inside them).
    """

    def __init__(self, frame: Any, stmt: ast.stmt, node: Optional[ast.expr], deeper: Tuple[str, ...]) -> None:
        self._frame = frame
        self.stmt = stmt
        self.node = node
        self._node = node
        self.deeper = deeper

    def reset(self) -> None:
        """Forget the expression a family picked (each family starts from the recorded one)."""
        self.node = self._node

    # ----------------------------------------------------------------- the frame's names

    def lookup(self, name: str) -> Any:
        """The value of a plain name in the frame (locals, globals, builtins) or ``_MISSING``."""
        frame = self._frame
        for scope in (frame.f_locals, frame.f_globals):
            if name in scope:
                return scope[name]
        return getattr(builtins, name, _MISSING)

    def has(self, name: str) -> bool:
        return self.lookup(name) is not _MISSING

    def value(self, expr: ast.expr) -> Any:
        """The value of a name or a chain of plain attributes (``self.w``) without running
        code: attributes are read from instance dictionaries only. ``_MISSING`` otherwise."""
        if isinstance(expr, ast.Name):
            return self.lookup(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.value(expr.value)
            if base is _MISSING:
                return _MISSING
            try:
                return vars(base).get(expr.attr, _MISSING)
            except TypeError:
                return _MISSING
        return _MISSING

    def _tensor(self, expr: ast.expr) -> Any:
        """The candle tensor a name holds, or None (not a name, unknown, or not a tensor)."""
        value = self.value(expr)
        tensor_type = getattr(sys.modules.get("candle"), "Tensor", None)
        if value is _MISSING or tensor_type is None or not isinstance(value, tensor_type):
            return None
        return value

    def tensor_shape(self, expr: ast.expr) -> Optional[List[int]]:
        """The shape of a candle tensor held by a name (None when unknown)."""
        tensor = self._tensor(expr)
        try:
            return None if tensor is None else [int(d) for d in tensor.shape]
        except Exception:
            return None

    def tensor_dtype(self, expr: ast.expr) -> Optional[str]:
        """The dtype name (``F32``) of a candle tensor held by a name (None when unknown)."""
        tensor = self._tensor(expr)
        try:
            return None if tensor is None else str(tensor.dtype).upper()
        except Exception:
            return None

    # ----------------------------------------------------------------- rewriting

    def rewrite(self, new_expr: str, imports: Iterable[str] = (), target: Optional[ast.expr] = None) -> Optional[str]:
        """The statement with ``target`` (default: ``node``) replaced by ``new_expr`` (Python
        source), plus an ``import`` line for each module in ``imports`` the frame does not name."""
        target = self.node if target is None else target
        if target is None:
            return None
        try:
            replacement = ast.parse(new_expr, mode="eval").body
        except SyntaxError:
            return None
        stmt = copy.deepcopy(self.stmt)
        done = []

        class Swap(ast.NodeTransformer):
            def generic_visit(self, node: ast.AST) -> ast.AST:
                if not done and _same(node, target):
                    done.append(True)
                    return replacement
                return super().generic_visit(node)

        stmt = Swap().visit(stmt)
        if not done:
            return None
        lines = [f"import {m}" for m in imports if not self.has(m)]
        lines.append(ast.unparse(stmt))
        return "\n".join(lines)


def _same(a: ast.AST, b: ast.AST) -> bool:
    return type(a) is type(b) and all(
        getattr(a, k, None) == getattr(b, k, None) for k in ("lineno", "col_offset", "end_lineno", "end_col_offset")
    )


def source(expr: ast.expr) -> str:
    """An expression as source that can take ``.method()`` after it (parenthesised if needed)."""
    text = ast.unparse(expr)
    if isinstance(expr, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)):
        return text
    return f"({text})"


_TREES: "dict[str, Tuple[Optional[ast.Module], Dict[int, Optional[ast.stmt]]]]" = {}
_MAX_TREES = 8
_TREES_LOCK = threading.Lock()


def _statement_at(text: str, line: int) -> Optional[ast.stmt]:
    """The innermost simple statement spanning ``line`` of the source ``text`` (None when it
    does not parse), from a small cache of parsed files and the statements asked of them (an
    error repeated in a loop parses and searches its file once). Trees are never changed
    (rewrites work on copies)."""
    with _TREES_LOCK:
        entry = _TREES.get(text)
    if entry is None:
        try:
            tree: Optional[ast.Module] = ast.parse(text)
        except (SyntaxError, ValueError):
            tree = None
        entry = (tree, {})
        with _TREES_LOCK:
            if len(_TREES) >= _MAX_TREES:
                _TREES.pop(next(iter(_TREES)), None)
            _TREES[text] = entry
    tree, statements = entry
    if tree is None:
        return None
    if line not in statements:
        statements[line] = _statement(tree, line)
    return statements[line]


def _statement(tree: ast.AST, line: int) -> Optional[ast.stmt]:
    """The innermost simple statement spanning ``line``; only nodes that span it are visited."""
    best = None
    stack = [tree]
    while stack:
        for child in ast.iter_child_nodes(stack.pop()):
            start = getattr(child, "lineno", None)
            if start is not None and not start <= line <= (getattr(child, "end_lineno", None) or start):
                continue
            if isinstance(child, _SIMPLE) and (best is None or child.lineno >= best.lineno):
                best = child
            stack.append(child)
    return best


def _position(tb: Any) -> Optional[Tuple[int, int, int, int]]:
    positions = getattr(tb.tb_frame.f_code, "co_positions", None)
    if positions is None or tb.tb_lasti < 0:
        return None
    try:
        for n, pos in enumerate(positions()):
            if n == tb.tb_lasti // 2:
                return pos if None not in pos else None
    except Exception:
        return None
    return None


def _node_at(stmt: ast.stmt, pos: Optional[Tuple[int, int, int, int]]) -> Optional[ast.expr]:
    if pos is None:
        return None
    line, end_line, col, end_col = pos
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Call, ast.BinOp, ast.Compare, ast.Subscript)) and (
            node.lineno, node.end_lineno, node.col_offset, node.end_col_offset) == (line, end_line, col, end_col):
            return node
    return None


def find(exc: BaseException) -> Optional[CallSite]:
    """The call site of ``exc`` in user code, or None (no traceback, no source, no parse)."""
    tb = getattr(exc, "__traceback__", None)
    user = None
    deeper: List[str] = []
    count = 0
    while tb is not None and count < 500:
        count += 1
        frame = tb.tb_frame
        if _is_user_frame(frame):
            user, deeper = tb, []
        elif user is not None:
            name = frame.f_globals.get("__name__", "")
            if isinstance(name, str) and name.split(".", 1)[0] in BINDING_PACKAGES:
                deeper.append(f"{name}.{frame.f_code.co_name}")
        tb = tb.tb_next
    if user is None:
        return None
    frame = user.tb_frame
    filename, line = frame.f_code.co_filename, user.tb_lineno
    lines = linecache.getlines(filename, frame.f_globals)
    text = "".join(lines)
    if not text or len(text) > MAX_SOURCE:
        return None
    stmt = _statement_at(text, line)
    if stmt is None:
        return None
    return CallSite(frame, stmt, _node_at(stmt, _position(user)), tuple(deeper))


def calls(site: CallSite, method: str) -> List[ast.Call]:
    """Calls ``<expr>.method(...)`` in the statement, innermost last."""
    return [n for n in ast.walk(site.stmt)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method]


def failing_call(site: CallSite, methods: Iterable[str]) -> Optional[ast.Call]:
    """The failing call when it is ``<expr>.m(...)`` with ``m`` in ``methods`` (the recorded
    position first; else the only such call of the statement)."""
    names = set(methods)
    node = site.node
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node if node.func.attr in names else None
    if node is not None:
        return None
    found = [c for m in names for c in calls(site, m)]
    if len(found) == 1:
        site.node = found[0]
        return found[0]
    return None


def failing_function_call(site: CallSite, qualified: str) -> Optional[ast.Call]:
    """The failing call when it is ``module.fn(...)`` (``candle.cat``) or ``fn(...)`` bound to it."""
    module, _, fn = qualified.rpartition(".")
    node = site.node
    cands = [node] if node is not None else [n for n in ast.walk(site.stmt) if isinstance(n, ast.Call)]
    found = []
    for n in cands:
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        if isinstance(f, ast.Attribute) and f.attr == fn and isinstance(f.value, ast.Name):
            mod = site.lookup(f.value.id)
            if getattr(mod, "__name__", None) == module:
                found.append(n)
        elif isinstance(f, ast.Name) and f.id == fn:
            obj = site.lookup(fn)
            if getattr(obj, "__module__", None) in (module, module + "." + module.split(".")[-1]) or obj is getattr(sys.modules.get(module), fn, None):
                found.append(n)
    if len(found) == 1:
        site.node = found[0]
        return found[0]
    return None


def failing_binop(site: CallSite) -> Optional[ast.BinOp]:
    node = site.node
    if isinstance(node, ast.BinOp):
        return node
    if node is not None:
        return None
    found = [n for n in ast.walk(site.stmt) if isinstance(n, ast.BinOp)]
    if len(found) == 1:
        site.node = found[0]
        return found[0]
    return None
