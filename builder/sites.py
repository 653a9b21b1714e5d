"""Error sites found on the token stream of one Rust file.

Kinds (``siteKind``): ``bail``, ``msg`` (``Error::msg``, ``.context``), ``panic``,
``unimplemented``, ``todo``, ``unreachable``, ``assert``/``assert_eq`` (with a message),
``expect``, ``tensor_check`` (burn's ``TensorError::new(..).details(..)``), ``pyerr`` (PyO3),
``io_error`` and ``string_error``.  Error-enum definitions and constructions are in
:mod:`builder.enums`; Python ``raise`` in :mod:`builder.pysites`.

A site without a usable literal is still returned (with ``template=None`` and a ``reason``), so
that the coverage table can say what was left out and why.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from builder import enums as enums_mod
from builder import guards
from builder import sinks as sinks_mod
from builder.exprs import enclosing_open, format_args, message_expr
from builder.items import Structure, analyze
from builder.rustlex import IDENT, OPEN, PUNCT, STR, Lexed, Token, lex, split_top_level
from builder.template import Template

FORMAT_MACROS: Dict[str, Tuple[str, int]] = {
    "bail": ("bail", 0),
    "anyhow": ("msg", 0),
    "format_err": ("msg", 0),
    "panic": ("panic", 0),
    "unimplemented": ("unimplemented", 0),
    "todo": ("todo", 0),
    "unreachable": ("unreachable", 0),
    "assert": ("assert", 1),
    "debug_assert": ("assert", 1),
    "assert_eq": ("assert_eq", 2),
    "assert_ne": ("assert_eq", 2),
    "debug_assert_eq": ("assert_eq", 2),
    "debug_assert_ne": ("assert_eq", 2),
}

PANIC_KINDS = {"panic", "unimplemented", "todo", "unreachable", "assert", "assert_eq", "expect", "tensor_check"}
"""Kinds whose runtime form is a Rust panic (errorType ``panic``); the rest are returned errors."""

# methods whose argument is an error message only when it is a literal
_LITERAL_ONLY_METHODS = {"context": "msg", "with_context": "msg", "ok_or": "string_error", "ok_or_else": "string_error", "map_err": "string_error"}


@dataclass
class Site:
    """One error site (file-relative: path/crate are set by the snapshot scan)."""

    kind: str
    line: int
    end_line: int
    template: Optional[Template]
    reason: Optional[str] = None
    fn: Optional[str] = None
    tail: Optional[Template] = None
    error_class: Optional[str] = None
    variant: Optional[Dict[str, object]] = None
    variant_key: str = ""
    tags: Tuple[str, ...] = ()
    op_param: Optional[str] = None
    """tensor_check: the parameter holding the operation name (resolved from callers)."""
    path: str = ""
    crate: str = ""
    definition: bool = False
    """True for the place a message is defined (an error-enum variant, a ``From<E> for PyErr``
    arm): its record links there and lists the raising sites in ``raisedAt``."""
    debug: bool = False
    """``debug_assert*!``: fires only in debug builds (not in the released wheels)."""
    helper: Optional[str] = None
    """For a call passing its message to a helper function: that function (a message sink)."""
    sink: Optional["sinks_mod.SinkParam"] = None
    """Set when this site's message is a string parameter of its function (a message sink)."""
    guard: Optional[str] = None
    """When the site runs: a clause after "when" (:mod:`builder.guards`), or None."""
    owner: Optional[str] = None
    """The type of the ``impl`` block around ``fn`` (``Tensor`` for ``Tensor::matmul``)."""

    @property
    def function(self) -> Optional[str]:
        """``Type::fn`` (or ``fn`` outside an impl block)."""
        return guards.qualified(self.owner, self.fn)

    @property
    def has_literal(self) -> bool:
        return self.template is not None


@dataclass
class FileFacts:
    """Everything the builder needs from one file; cached by blob sha across versions."""

    sites: List[Site] = field(default_factory=list)
    enums: List["enums_mod.EnumDef"] = field(default_factory=list)
    displays: List["enums_mod.DisplayImpl"] = field(default_factory=list)
    debugs: List["enums_mod.DisplayImpl"] = field(default_factory=list)
    """Hand-written ``impl Debug`` bodies (read where ``Display`` prints ``{self:?}``)."""
    error_impls: Set[str] = field(default_factory=set)
    constructions: List["enums_mod.Construction"] = field(default_factory=list)
    check_callers: Dict[str, Set[str]] = field(default_factory=dict)
    """burn: ``TensorCheck::fn_name`` → operation names passed by its callers."""
    test_mods: List[str] = field(default_factory=list)
    lines: int = 0
    calls: List["sinks_mod.Call"] = field(default_factory=list)
    """Calls passing a literal message (or their caller's string parameter) to some function."""
    fn_defs: Counter = field(default_factory=Counter)
    """Names of the functions defined in the file (outside tests), with their counts."""


def analyze_file(source: str) -> FileFacts:
    """Lex one file and extract its sites, error types and constructions."""
    lexed = lex(source)
    toks = lexed.tokens
    st = analyze(toks)
    facts = FileFacts(test_mods=list(st.test_mods), lines=lexed.line_count)
    facts.sites = find_sites(lexed, st)
    facts.check_callers = check_callers(toks, st)
    enums_mod.collect(lexed, st, facts)
    facts.calls = sinks_mod.calls(lexed, st)
    facts.fn_defs = Counter(f.name for f in st.fns if not st.in_test(f.start))
    return facts


def _site(lexed: Lexed, st: Structure, kind: str, i: int, end: int, tpl: Optional[Template], reason: Optional[str], span: Optional[range] = None, **kw: object) -> Site:
    """A site at token ``i``; ``span`` is its message expression, to tell whether the message is
    a parameter of the enclosing function (which then is a message sink)."""
    fn = st.fn_at(i)
    sink = sinks_mod.sink_of(lexed.tokens, span, st, i, tpl) if (span is not None or tpl is not None) else None
    if "guard" not in kw:
        kw["guard"] = guards.guard_at(lexed.tokens, st, i)
    owner = guards.owner_of(st, fn.start) if fn else None
    return Site(kind=kind, line=lexed.line(i), end_line=lexed.line(end), template=tpl, reason=None if tpl else (reason or "variable"), fn=fn.name if fn else None, sink=sink, owner=owner, **kw)  # type: ignore[arg-type]


def find_sites(lexed: Lexed, st: Structure) -> List[Site]:
    toks = lexed.tokens
    n = len(toks)
    out: List[Site] = []
    for i in range(n):
        t = toks[i]
        if t.kind != IDENT:
            continue
        nxt = toks[i + 1] if i + 1 < n else None
        if nxt is None:
            continue
        # ---- macros: name!(..)
        if nxt.kind == PUNCT and nxt.text == "!" and i + 2 < n and toks[i + 2].kind == OPEN and t.text in FORMAT_MACROS:
            if st.in_test(i) or (i > 0 and toks[i - 1].text == "macro_rules"):
                continue
            kind, msg_pos = FORMAT_MACROS[t.text]
            open_idx = i + 2
            close = toks[open_idx].match
            parts = split_top_level(toks, open_idx + 1, close)
            debug = t.text.startswith("debug_")
            guard = guards.assert_guard(toks, t.text, parts[:msg_pos]) if kind in ("assert", "assert_eq") else None
            extra = {"guard": guard} if kind in ("assert", "assert_eq") else {}
            if len(parts) <= msg_pos:
                out.append(_site(lexed, st, kind, i, close, None, "bare", debug=debug, **extra))
                continue
            first = parts[msg_pos]
            if len(first) == 1 and toks[first.start].kind == STR:
                tpl, reason = format_args(toks, parts[msg_pos:])
            else:
                tpl, reason = message_expr(toks, first, st, i)
                if tpl is not None and len(parts) > msg_pos + 1:
                    tpl, reason = None, "expression"
                elif tpl is not None:
                    # `bail!(msg)` with a let-resolved literal: braces of a plain literal stay text
                    pass
            out.append(_site(lexed, st, kind, i, close, tpl, reason, span=first, debug=debug, **extra))
            continue
        prev = toks[i - 1] if i > 0 else None
        # ---- .expect(..) and literal-only methods
        if prev is not None and prev.kind == PUNCT and prev.text == "." and nxt.kind == OPEN and nxt.text == "(":
            if t.text == "expect":
                if st.in_test(i):
                    continue
                close = nxt.match
                tpl, reason = message_expr(toks, range(i + 2, close), st, i)
                out.append(_site(lexed, st, "expect", i, close, tpl, reason, span=range(i + 2, close)))
                continue
            if t.text in _LITERAL_ONLY_METHODS:
                close = nxt.match
                tpl, _ = message_expr(toks, range(i + 2, close), st, -1)
                if tpl is not None and not st.in_test(i):
                    out.append(_site(lexed, st, _LITERAL_ONLY_METHODS[t.text], i, close, tpl, None))
                continue
            continue
        # ---- Err("..") / Err(format!(..))
        if t.text == "Err" and nxt.kind == OPEN and nxt.text == "(" and not (prev is not None and prev.text in ("::", ".")):
            close = nxt.match
            if _followed_by_pattern_token(toks, close):
                continue
            tpl, _ = message_expr(toks, range(i + 2, close), st, -1)
            if tpl is not None and not st.in_test(i):
                out.append(_site(lexed, st, "string_error", i, close, tpl, None))
            continue
        # ---- Path::fn(..) forms
        if nxt.kind == PUNCT and nxt.text == "::" and i + 3 < n and toks[i + 2].kind == IDENT:
            fname = toks[i + 2].text
            site = _path_call(lexed, st, i, t.text, fname)
            if site is not None:
                out.append(site)
    return out


def _followed_by_pattern_token(toks: Sequence[Token], close: int) -> bool:
    if close + 1 >= len(toks):
        return False
    nt = toks[close + 1]
    return nt.kind == PUNCT and nt.text in ("=>", "|", "=") or (nt.kind == IDENT and nt.text == "if")


def _path_call(lexed: Lexed, st: Structure, i: int, head: str, fname: str) -> Optional[Site]:
    """``TensorError::new``, ``PyErr::new::<T, _>``, ``T::new_err``, ``io::Error::new``, ``Error::msg``, ..."""
    toks = lexed.tokens
    n = len(toks)
    j = i + 3  # token after `head :: fname`
    if head == "TensorError" and fname == "new" and j < n and toks[j].kind == OPEN:
        if st.in_test(i):
            return None
        close = toks[j].match
        tpl, reason = message_expr(toks, range(j + 1, close), st, i)
        tail: Optional[Template] = None
        end = close
        if close + 3 < n and toks[close + 1].text == "." and toks[close + 2].text == "details" and toks[close + 3].kind == OPEN:
            dclose = toks[close + 3].match
            tail, _ = message_expr(toks, range(close + 4, dclose), st, i)
            end = dclose
        op_lit, op_param = _register_op(toks, i)
        site = _site(lexed, st, "tensor_check", i, end, tpl, reason, span=range(j + 1, close), tail=tail, op_param=op_param)
        if op_lit:
            site.tags = (op_lit,)
        return site
    if head == "PyErr" and fname == "new" and j < n and toks[j].text == "::":
        # PyErr::new::<PyValueError, _>(msg)
        k = j + 1
        if k < n and toks[k].text == "<":
            cls = None
            m = k + 1
            while m < n and toks[m].text not in (",", ">"):
                if toks[m].kind == IDENT:
                    cls = toks[m].text
                m += 1
            while m < n and toks[m].text != ">" and toks[m].text != ">>":
                m += 1
            m += 1
            if m < n and toks[m].kind == OPEN and not st.in_test(i):
                close = toks[m].match
                tpl, reason = message_expr(toks, range(m + 1, close), st, i)
                return _site(lexed, st, "pyerr", i, close, tpl, reason, span=range(m + 1, close), error_class=python_class(cls or "PyException"))
        return None
    if fname == "new_err" and j < n and toks[j].kind == OPEN:
        if st.in_test(i):
            return None
        close = toks[j].match
        tpl, reason = message_expr(toks, range(j + 1, close), st, i)
        if tpl is None and reason == "expression":
            tpl, reason = _tuple_message(toks, j, close, st, i)
        return _site(lexed, st, "pyerr", i, close, tpl, reason, span=range(j + 1, close), error_class=python_class(head))
    if head == "Error" and fname == "msg" and j < n and toks[j].kind == OPEN:
        close = toks[j].match
        tpl, reason = message_expr(toks, range(j + 1, close), st, i)
        if tpl is None or st.in_test(i):
            return None
        return _site(lexed, st, "msg", i, close, tpl, reason)
    if head == "Error" and fname in ("new", "other") and j < n and toks[j].kind == OPEN and i >= 2 and toks[i - 1].text == "::" and toks[i - 2].text == "io":
        close = toks[j].match
        parts = split_top_level(toks, j + 1, close)
        msg_part = parts[-1] if parts else range(j + 1, close)
        tpl, _ = message_expr(toks, msg_part, st, -1)
        if tpl is None or st.in_test(i) or (fname == "new" and len(parts) < 2):
            return None
        return _site(lexed, st, "io_error", i, close, tpl, None)
    if fname == "custom" and head.endswith("Error") and j < n and toks[j].kind == OPEN:
        close = toks[j].match
        tpl, _ = message_expr(toks, range(j + 1, close), st, -1)
        if tpl is None or st.in_test(i):
            return None
        return _site(lexed, st, "string_error", i, close, tpl, None)
    return None


def _tuple_message(toks: Sequence[Token], open_idx: int, close: int, st: Structure, i: int) -> Tuple[Optional[Template], Optional[str]]:
    """``new_err(("msg",))`` style arguments: the first tuple element."""
    if toks[open_idx + 1].kind == OPEN and toks[open_idx + 1].text == "(":
        inner = toks[open_idx + 1]
        parts = split_top_level(toks, open_idx + 2, inner.match)
        if parts:
            return message_expr(toks, parts[0], st, i)
    return None, "expression"


def python_class(rust_name: str) -> str:
    """``PyValueError`` → ``ValueError`` (the class a Python user catches)."""
    if rust_name.startswith("Py") and len(rust_name) > 2 and rust_name[2].isupper():
        return rust_name[2:]
    return rust_name


def _register_op(toks: Sequence[Token], i: int) -> Tuple[Optional[str], Optional[str]]:
    """For ``check.register(OP, TensorError::new(..))``: (literal OP, or the parameter name)."""
    open_idx = enclosing_open(toks, i)
    if open_idx < 1 or toks[open_idx - 1].text != "register":
        return None, None
    parts = split_top_level(toks, open_idx + 1, toks[open_idx].match)
    if len(parts) < 2:
        return None, None
    op = parts[0]
    if len(op) == 1 and toks[op.start].kind == STR:
        return toks[op.start].value, None
    if len(op) == 1 and toks[op.start].kind == IDENT:
        return None, toks[op.start].text
    return None, None


def check_callers(toks: Sequence[Token], st: Structure) -> Dict[str, Set[str]]:
    """burn operation names reaching each ``TensorCheck`` function.

    ``TensorCheck::fn_name[::<..>]("Op", ..)`` gives ``fn_name → {"Op"}``; a call that forwards
    its caller's parameter (``.binary_ops_device(ops, ..)`` inside ``binary_ops_ew``) gives the
    pseudo entry ``"<-fn_name" → {"caller"}``, resolved by :func:`resolve_check_ops`.
    """
    out: Dict[str, Set[str]] = {}
    n = len(toks)
    for i in range(n - 3):
        if toks[i].kind == PUNCT and toks[i].text in (".", "::") and toks[i + 1].kind == IDENT and toks[i + 2].kind == OPEN and toks[i + 2].text == "(":
            parts = split_top_level(toks, i + 3, toks[i + 2].match)
            if parts and len(parts[0]) == 1 and toks[parts[0].start].kind == IDENT and toks[parts[0].start].text in ("ops", "op", "op_name", "operation"):
                fn = st.fn_at(i)
                if fn is not None and fn.name != toks[i + 1].text:
                    out.setdefault("<-" + toks[i + 1].text, set()).add(fn.name)
        if toks[i].kind == IDENT and toks[i].text == "TensorCheck" and toks[i + 1].text == "::" and toks[i + 2].kind == IDENT:
            fname = toks[i + 2].text
            j = i + 3
            if j < n and toks[j].text == "::":
                depth = 0
                j += 1
                while j < n:
                    if toks[j].text == "<":
                        depth += 1
                    elif toks[j].text == ">":
                        depth -= 1
                        if depth <= 0:
                            j += 1
                            break
                    elif toks[j].text == ">>":
                        depth -= 2
                        if depth <= 0:
                            j += 1
                            break
                    j += 1
            if j < n and toks[j].kind == OPEN and toks[j].text == "(":
                parts = split_top_level(toks, j + 1, toks[j].match)
                if parts and len(parts[0]) == 1 and toks[parts[0].start].kind == STR:
                    out.setdefault(fname, set()).add(toks[parts[0].start].value or "")
    return out


def resolve_check_ops(merged: Dict[str, Set[str]]) -> Dict[str, Set[str]]:
    """Propagate operation names along forwarding calls (see :func:`check_callers`)."""
    ops = {k: set(v) for k, v in merged.items() if not k.startswith("<-")}
    edges = {k[2:]: v for k, v in merged.items() if k.startswith("<-")}
    for _ in range(8):
        changed = False
        for callee, callers in edges.items():
            for caller in callers:
                new = ops.get(caller, set()) - ops.get(callee, set())
                if new:
                    ops.setdefault(callee, set()).update(new)
                    changed = True
        if not changed:
            break
    return ops
