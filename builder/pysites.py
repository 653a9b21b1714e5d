"""``raise X("...")`` in the bindings' Python sources, read with :mod:`ast`.

Messages are plain strings, f-strings, ``"...".format(..)`` or ``"..." % (..)``; each becomes a
template whose placeholders are named after the interpolated variable (or attribute).  PyO3
``PyErr::new``/``new_err`` calls on the Rust side are in :mod:`builder.sites`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import List, Optional, Tuple

from builder.sites import Site
from builder.template import Piece, Placeholder, Template, name_placeholders, parse_format, plain


def python_sites(source: str) -> List[Site]:
    """Every ``raise`` of a call with a message in a module (syntax errors give no sites)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out: List[Site] = []
    _walk(tree, None, None, None, out)
    return out


def _walk(node: ast.AST, fn: Optional[str], owner: Optional[str], guard: Optional[str], out: List[Site]) -> None:
    """Sites under ``node``; ``guard`` is the clause of the innermost ``if`` around them."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _walk(child, child.name, owner, None, out)
            continue
        if isinstance(child, ast.ClassDef):
            _walk(child, None, child.name, None, out)
            continue
        if isinstance(child, ast.If):
            _walk(child.test, fn, owner, guard, out)
            for stmt in child.body:
                _walk_one(stmt, fn, owner, if_clause(child.test, False), out)
            for stmt in child.orelse:
                _walk_one(stmt, fn, owner, if_clause(child.test, True), out)
            continue
        if isinstance(child, ast.Raise) and child.exc is not None:
            site = _raise_site(child, fn)
            if site is not None:
                out.append(replace(site, guard=guard, owner=owner if fn else None))
        _walk(child, fn, owner, guard, out)


def _walk_one(stmt: ast.stmt, fn: Optional[str], owner: Optional[str], guard: Optional[str], out: List[Site]) -> None:
    """Like :func:`_walk` for one statement (itself included, not only its children)."""
    holder = ast.Module(body=[stmt], type_ignores=[])
    _walk(holder, fn, owner, guard, out)


_WORDS = {ast.NotEq: "{a} differs from {b}", ast.Eq: "{a} equals {b}", ast.Lt: "{a} is less than {b}",
          ast.LtE: "{a} is at most {b}", ast.Gt: "{a} is greater than {b}", ast.GtE: "{a} is at least {b}"}
_NEGATE = {ast.NotEq: ast.Eq, ast.Eq: ast.NotEq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
           ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
MAX_EXPR = 80


def if_clause(test: ast.expr, negate: bool) -> Optional[str]:
    """The clause after "when" for an ``if`` test (its ``else`` branch when ``negate``)."""
    if negate and isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _NEGATE:
        test = ast.Compare(left=test.left, ops=[_NEGATE[type(test.ops[0])]()], comparators=test.comparators)
        negate = False
    elif negate and isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negate = test.operand, False
    code = ast.unparse(test)
    if negate:
        code = f"not ({code})" if not isinstance(test, (ast.Name, ast.Attribute, ast.Call)) else f"not {code}"
    if len(code) > MAX_EXPR or "`" in code:
        return None
    words = ""
    if not negate and isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _WORDS:
        a, b = ast.unparse(test.left), ast.unparse(test.comparators[0])
        words = _WORDS[type(test.ops[0])].format(a=f"`{a}`", b=f"`{b}`")
    return f"`{code}`" + (f" ({words})" if words else "")


def _raise_site(node: ast.Raise, fn: Optional[str]) -> Optional[Site]:
    exc = node.exc
    if not isinstance(exc, ast.Call):
        return None
    cls = _name(exc.func)
    if cls is None:
        return None
    line = node.lineno
    end = getattr(node, "end_lineno", line) or line
    if not exc.args:
        return Site("python_raise", line, end, None, "bare", fn=fn, error_class=cls)
    tpl, reason = message_template(exc.args[0])
    return Site("python_raise", line, end, tpl, reason if tpl is None else None, fn=fn, error_class=cls)


def _name(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _expr_name(node: ast.AST) -> Optional[str]:
    """Group name for an interpolated expression: the variable, attribute or called name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id in ("str", "repr", "type", "len") and node.args:
            inner = _expr_name(node.args[0])
            return inner if node.func.id != "type" else (inner + "_type" if inner else None)
        return _name(node.func)
    if isinstance(node, ast.Subscript):
        return _expr_name(node.value)
    return None


def message_template(node: ast.AST) -> Tuple[Optional[Template], Optional[str]]:
    """Template of a Python message expression, or (None, reason)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return plain(node.value), None
    if isinstance(node, ast.JoinedStr):
        pieces: List[Piece] = []
        names: List[Optional[str]] = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                pieces.append(v.value)
            elif isinstance(v, ast.FormattedValue):
                spec = "?" if v.conversion == ord("r") else ""
                name = _expr_name(v.value)
                pieces.append(Placeholder(arg=name or "", spec=spec))
                if not name:
                    names.append(None)
        return name_placeholders(Template(tuple(pieces), False), names), None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        base = node.func.value
        if isinstance(base, ast.Constant) and isinstance(base.value, str):
            fmt = re.sub(r"\{([^{}:!]*)(![rsa])?(:[^{}]*)?\}", lambda m: "{" + m.group(1) + (":?" if m.group(2) == "!r" else "") + "}", base.value)
            positional = [_expr_name(a) for a in node.args]
            named = {k.arg: _expr_name(k.value) for k in node.keywords if k.arg}
            tpl = name_placeholders(parse_format(fmt), positional, named)
            return Template(tpl.pieces, False), None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
        args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        names = [_expr_name(a) for a in args]
        pieces = []
        last = 0
        text = node.left.value
        for m in re.finditer(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrfixXeEgGc%]", text):
            if m.group().endswith("%") and m.group() == "%%":
                continue
            pieces.append(text[last : m.start()])
            pieces.append(Placeholder(arg="", spec="?" if m.group().endswith("r") else ""))
            last = m.end()
        pieces.append(text[last:])
        return name_placeholders(Template(tuple(p for p in pieces if p != ""), False), names), None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        operands = _flatten_add(node)
        if any(isinstance(o, ast.Constant) and isinstance(o.value, str) for o in operands):
            pieces: List[Piece] = []
            for o in operands:
                if isinstance(o, ast.Constant) and isinstance(o.value, str):
                    pieces.append(o.value)
                else:
                    sub, _ = message_template(o) if isinstance(o, (ast.JoinedStr, ast.Call, ast.BinOp)) else (None, None)
                    if sub is not None and not (isinstance(o, ast.Call) and _name(o.func) in ("str", "repr")):
                        pieces.extend(sub.pieces)
                    else:
                        pieces.append(Placeholder(arg=_expr_name(o) or ""))
            names = [None if not (isinstance(p, Placeholder) and p.arg) else p.arg for p in pieces if isinstance(p, Placeholder) and not p.arg]
            return name_placeholders(Template(tuple(_join(pieces)), False), names), None
    if isinstance(node, ast.Name):
        return None, "variable"
    return None, "expression"


def _flatten_add(node: ast.AST) -> List[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _flatten_add(node.left) + _flatten_add(node.right)
    return [node]


def _join(pieces: List[Piece]) -> List[Piece]:
    out: List[Piece] = []
    for p in pieces:
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] += p
        elif p != "":
            out.append(p)
    return out
