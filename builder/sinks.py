"""Helper functions that raise the message they are given ("message sinks"), and their calls.

burn's ``check_nonzero(stride, "stride must be non-zero")`` panics with its second argument
(``.expect(msg)``); candle-pyo3's ``handle_duplicates(.., "cannot specify multiple dtypes")``
raises it as a ``ValueError``.  The text users read is written at the *call*, so the site
miner alone finds only a variable message.  A function whose string parameter flows into a
panic/assert/bail/new_err/expect/format message is a sink; each call in the same crate that
passes a literal (or ``format!``) for that parameter is an error site of its own: kind, Python
class and debug-ness of the sink's site, file and line of the call.  A function that passes
its own string parameter on to a sink is a sink too.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from builder import guards
from builder.exprs import chain_only, let_value, message_expr, strip_refs
from builder.items import FnRange, Structure
from builder.rustlex import IDENT, OPEN, PUNCT, STR, Lexed, Token, split_top_level
from builder.template import Placeholder, Template, fill_group

STR_TYPE = re.compile(
    r"^(?:&(?:'\w+ )?(?:mut )?(?:str|String)|String|Cow<'\w+, str>"
    r"|impl (?:Into<String>|AsRef<str>|ToString|(?:std::)?(?:fmt::)?Display|Into<Cow<'\w+, str>>))$"
)
"""Parameter types whose value can be the message text."""

MESSAGE_PARAM = re.compile(r"(?:^|_)(?:msg|message|err|error|reason|context|description|desc|text|hint|explanation)(?:$|_)")
"""Names of parameters that hold (part of) a message.  A parameter printed *inside* a message,
such as ``{name}`` in ``cannot find tensor {name}``, is a value, not a message: its callers pass
tensor names, and the record's group already matches every one of them."""

_NOT_CALLS = {"if", "while", "match", "return", "for", "loop", "in", "as", "let", "fn", "move", "unsafe", "async", "await", "where", "impl"}
_MESSAGE_MACROS = {"format", "concat", "format_args"}
MAX_FORWARD_ROUNDS = 4


@dataclass(frozen=True)
class SinkParam:
    """A site whose message is (or contains) a string parameter of its enclosing function."""

    fn: str
    method: bool
    index: int
    """Position of the parameter among a call's arguments (the ``self`` receiver excluded)."""
    group: str
    """The placeholder of ``template`` that a caller's argument replaces."""
    template: Template


@dataclass(frozen=True)
class Call:
    """A call that passes a literal message (or forwards its caller's string parameter)."""

    callee: str
    method: bool
    literals: Tuple[Tuple[int, Template], ...]
    forwards: Tuple[Tuple[int, str, int], ...]
    """(argument position, caller's parameter name, that parameter's index)."""
    line: int
    end_line: int
    fn: Optional[str]
    caller_method: bool
    owner: Optional[str] = None
    """The impl type around the calling function (``Conv2dConfig`` for ``Conv2dConfig::init``)."""


def _str_params(fn: Optional[FnRange]) -> Dict[str, int]:
    if fn is None:
        return {}
    return {name: k for k, (name, ty) in enumerate(fn.params) if name and STR_TYPE.match(ty)}


def _param_ident(toks: Sequence[Token], span: range, params: Dict[str, int]) -> Optional[str]:
    """The parameter a message expression is (``msg``, ``&msg``, ``msg.to_string()``), if any."""
    while len(span) and toks[span.stop - 1].kind == PUNCT and toks[span.stop - 1].text == ",":
        span = range(span.start, span.stop - 1)
    span = strip_refs(toks, span)
    if not len(span) or toks[span.start].kind != IDENT or toks[span.start].text not in params:
        return None
    return toks[span.start].text if chain_only(toks, span.start + 1, span.stop) else None


def sink_of(toks: Sequence[Token], span: Optional[range], st: Structure, index: int, tpl: Optional[Template]) -> Optional[SinkParam]:
    """The sink a site at token ``index`` makes of its function (``span``: the message expression).

    The message must be the parameter itself, or a format string printing a parameter named
    like a message (:data:`MESSAGE_PARAM`)."""
    fn = st.fn_at(index)
    params = _str_params(fn)
    if fn is None or not params:
        return None
    if tpl is None:
        name = _param_ident(toks, span, params) if span is not None else None
        if name is None or let_value(toks, name, index, st) is not None:
            return None
        return SinkParam(fn.name, fn.method, params[name], name, Template((Placeholder(arg=name, group=name),), True))
    whole = len(tpl.pieces) == 1
    for p in tpl.placeholders:
        base = re.sub(r"_\d+$", "", p.group)
        if base in params and (whole or MESSAGE_PARAM.search(base)) and p.arg in ("", base) and let_value(toks, base, index, st) is None:
            return SinkParam(fn.name, fn.method, params[base], p.group, tpl)
    return None


def calls(lexed: Lexed, st: Structure) -> List[Call]:
    """Calls ``name(..)``/``x.name(..)``/``path::name::<T>(..)`` passing a message literal (or the
    caller's own string parameter) as an argument."""
    toks = lexed.tokens
    n = len(toks)
    out: List[Call] = []
    for i in range(1, n - 1):
        t = toks[i]
        if t.kind != IDENT or t.text in _NOT_CALLS or not (t.text[:1].islower() or t.text[:1] == "_"):
            continue
        j = i + 1
        if toks[j].kind == PUNCT and toks[j].text == "::" and j + 1 < n and toks[j + 1].text == "<":
            depth, j = 0, j + 1
            while j < n:
                depth += {"<": 1, ">": -1, ">>": -2}.get(toks[j].text, 0)
                j += 1
                if depth <= 0:
                    break
        if j >= n or not (toks[j].kind == OPEN and toks[j].text == "(") or toks[j].match < 0:
            continue
        prev = toks[i - 1]
        if prev.kind == IDENT and prev.text == "fn" or st.in_test(i):
            continue
        close = toks[j].match
        fn = st.fn_at(i)
        params = _str_params(fn)
        literals: List[Tuple[int, Template]] = []
        forwards: List[Tuple[int, str, int]] = []
        for pos, part in enumerate(split_top_level(toks, j + 1, close)):
            first = toks[part.start]
            if first.kind == STR or (first.kind == IDENT and first.text in _MESSAGE_MACROS and part.start + 1 < part.stop and toks[part.start + 1].text == "!"):
                tpl, _ = message_expr(toks, part)
                if tpl is not None:
                    literals.append((pos, tpl))
                continue
            name = _param_ident(toks, part, params) if params else None
            if name is not None and let_value(toks, name, i, st) is None:
                forwards.append((pos, name, params[name]))
        if literals or forwards:
            out.append(
                Call(
                    t.text,
                    prev.kind == PUNCT and prev.text == ".",
                    tuple(literals),
                    tuple(forwards),
                    lexed.line(i),
                    lexed.line(close),
                    fn.name if fn else None,
                    bool(fn and fn.method),
                    guards.owner_of(st, fn.start) if fn else None,
                )
            )
    return out


# --------------------------------------------------------------------------- snapshot level


_Key = Tuple[str, str, bool]  # crate, fn name, method


STD_METHODS = {"expect", "expect_err", "context", "with_context", "map_err", "ok_or", "ok_or_else", "unwrap_or", "unwrap_or_else", "unwrap", "into", "from", "to_string"}
"""Method names of Option/Result/anyhow: a ``.expect("..")`` call is a site of its own, whatever
other ``expect`` method a crate defines (cubecl's comptime ``Option`` has one)."""


def _table(sites: Sequence[Any]) -> Dict[_Key, List[Any]]:
    table: Dict[_Key, List[Any]] = {}
    for s in sites:
        sp = s.sink
        if sp is not None and not (sp.method and sp.fn in STD_METHODS):
            table.setdefault((s.crate, sp.fn, sp.method), []).append(s)
    return table


def _targets(table: Dict[_Key, List[Any]], defs: Counter, crate: str, path: str, call: Call) -> List[Any]:
    """The sink sites a call reaches: the callee's sink sites in the same file, else the callee's
    sink sites in the crate when every function of that name there is a sink of one file."""
    cands = table.get((crate, call.callee, call.method), [])
    if not cands:
        return []
    local = [s for s in cands if s.path == path]
    if local:
        return local
    files = {s.path for s in cands}
    if len(files) == 1 and defs[(crate, call.callee)] <= len({(s.path, s.sink.fn) for s in cands}):
        return cands
    return []


def helper_sites(files: Sequence[Tuple[str, str, Any]], sites: Sequence[Any]) -> List[Any]:
    """New sites, one per (call passing a literal, sink site of the callee).

    ``files``: (path, crate, facts) with ``facts.calls`` and ``facts.fn_defs``; ``sites``: the
    snapshot's sites (path and crate set) -- those with a ``sink`` define the sinks.
    """
    defs: Counter = Counter()
    for _, crate, facts in files:
        for name, k in facts.fn_defs.items():
            defs[(crate, name)] += k
    sink_sites = [s for s in sites if s.sink is not None]
    for _ in range(MAX_FORWARD_ROUNDS):
        table = _table(sink_sites)
        known = {(s.crate, s.path, s.sink.fn, s.sink.index, s.line, s.kind) for s in sink_sites}
        added = []
        for path, crate, facts in files:
            for call in facts.calls:
                if not call.forwards or call.fn is None:
                    continue
                for target in _targets(table, defs, crate, path, call):
                    for pos, _name, pidx in call.forwards:
                        if pos != target.sink.index or call.fn == call.callee:
                            continue
                        key = (crate, path, call.fn, pidx, target.line, target.kind)
                        if key in known:
                            continue
                        known.add(key)
                        sp = SinkParam(call.fn, call.caller_method, pidx, target.sink.group, target.sink.template)
                        # the guard is the innermost function's, not the forwarding helper's
                        added.append(replace(target, path=path, crate=crate, sink=sp, guard=None))
        if not added:
            break
        sink_sites += added
    table = _table(sink_sites)
    out: List[Any] = []
    for path, crate, facts in files:
        for call in facts.calls:
            if not call.literals:
                continue
            for target in _targets(table, defs, crate, path, call):
                sp = target.sink
                for pos, arg in call.literals:
                    if pos != sp.index:
                        continue
                    out.append(
                        replace(
                            target,
                            line=call.line,
                            end_line=call.end_line,
                            template=fill_group(sp.template, sp.group, arg),
                            reason=None,
                            fn=call.fn,
                            owner=call.owner,
                            path=path,
                            crate=crate,
                            variant=None,
                            variant_key="",
                            op_param=None,
                            definition=False,
                            sink=None,
                            helper=sp.fn,
                        )
                    )
    return out
