"""Error types: thiserror ``#[error]`` variants, manual ``Display`` arms, Debug-only enums, and
the construction sites that raise them.

Why variants matter: candle ≤ 0.8.1 shows Python users the *Debug* form of its error
(``UnsupportedDTypeForOp(I64, "matmul")``), and burn leaks enum Debug through ``unwrap``.
Each variant record carries its name, shape, field order and Display template, so the engine
can rebuild the Display text from a parsed Debug value.  A construction with literal payloads
(``Error::UnsupportedDTypeForOp(dt, "matmul")``) yields a specialised template with the payload
filled in; one without becomes a "raised at" location of its variant's record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from builder import guards
from builder.exprs import enclosing_open, message_expr, plain_ident
from builder.items import Structure, attribute_at, skip_attributes
from builder.rustlex import CLOSE, IDENT, NUM, OPEN, PUNCT, STR, Lexed, Token, split_top_level, type_text
from builder.template import Placeholder, Template, display_text, name_placeholders, parse_format, substitute

if TYPE_CHECKING:  # pragma: no cover
    from builder.sites import FileFacts


@dataclass
class VariantDef:
    name: str
    shape: str  # unit | tuple | struct
    fields: List[str]
    line: int
    end_line: int
    template: Optional[Template] = None  # thiserror #[error("..")]
    transparent: bool = False
    from_fields: Tuple[str, ...] = ()
    types: Tuple[str, ...] = ()
    """The Rust type of each field as written (``safetensors::SafeTensorError``)."""


@dataclass
class EnumDef:
    """An error enum, or an error struct (then it has one variant named like the struct)."""

    name: str
    line: int
    is_struct: bool
    thiserror: bool
    variants: List[VariantDef] = field(default_factory=list)
    debug_derived: bool = False


@dataclass
class ArmTemplate:
    variants: List[str]  # variant names sharing the arm ([] for a struct's single write)
    template: Template
    line: int
    end_line: int
    first: bool  # the first write of its arm (the one used as the variant's display)
    error_class: Optional[str] = None


@dataclass
class DisplayImpl:
    type_name: str
    arms: List[ArmTemplate] = field(default_factory=list)
    pyerr: bool = False
    """True for ``impl From<T> for PyErr``: the arms give the Python exception message of each
    variant, which is what a binding user reads instead of the Display text."""


@dataclass
class Construction:
    enum: str
    variant: str
    line: int
    end_line: int
    fn: Optional[str]
    payload: Dict[str, Template]
    """field ('0', 'op') → template of a literal payload."""
    has_args: bool
    guard: Optional[str] = None
    """When the construction runs (:func:`builder.guards.guard_at`)."""
    owner: Optional[str] = None
    """The impl type around ``fn``."""


# --------------------------------------------------------------------------- collection


def collect(lexed: Lexed, st: Structure, facts: "FileFacts") -> None:
    toks = lexed.tokens
    n = len(toks)
    for i in range(n):
        t = toks[i]
        if t.kind != IDENT:
            continue
        if t.text in ("enum", "struct") and i + 1 < n and toks[i + 1].kind == IDENT and not st.in_test(i):
            if i > 0 and toks[i - 1].kind == PUNCT and toks[i - 1].text in ("::", "."):
                continue
            d = _parse_type(lexed, st, i)
            if d is not None:
                facts.enums.append(d)
        elif t.text == "impl" and not st.in_test(i):
            pass
        elif i + 2 < n and toks[i + 1].kind == PUNCT and toks[i + 1].text == "::" and toks[i + 2].kind == IDENT:
            c = _construction(lexed, st, i)
            if c is not None:
                facts.constructions.append(c)
    for im in st.impls:
        if st.in_test(im.start):
            continue
        if im.trait == "Error":
            facts.error_impls.add(im.type_name)
        elif im.trait == "From" and im.type_name == "PyErr" and im.trait_args:
            d = _pyerr_conversion(lexed, st, im.trait_args[-1], im.body_start, im.body_end)
            if d.arms:
                facts.displays.append(d)
        elif im.trait in ("Display", "Debug"):
            d = _display_impl(lexed, st, im.type_name, im.body_start, im.body_end)
            if d.arms:
                (facts.displays if im.trait == "Display" else facts.debugs).append(d)


def preceding_attrs(toks: Sequence[Token], i: int) -> List[range]:
    """Attribute token ranges (inside ``#[...]``) before the item keyword at ``i``."""
    j = i - 1
    if j >= 0 and toks[j].kind == CLOSE and toks[j].text == ")" and toks[j].match > 0 and toks[toks[j].match - 1].text == "pub":
        j = toks[j].match - 2
    elif j >= 0 and toks[j].kind == IDENT and toks[j].text == "pub":
        j -= 1
    out: List[range] = []
    while j >= 1 and toks[j].kind == CLOSE and toks[j].text == "]":
        o = toks[j].match
        if o < 1 or toks[o - 1].text not in ("#", "!"):
            break
        out.append(range(o + 1, j))
        j = o - 2 if toks[o - 1].text == "#" else o - 3
    out.reverse()
    return out


def _derives(toks: Sequence[Token], attrs: Sequence[range]) -> Set[str]:
    names: Set[str] = set()
    for a in attrs:
        if len(a) and toks[a.start].text == "derive":
            names.update(toks[k].text for k in a if toks[k].kind == IDENT)
    return names


def _error_attr(toks: Sequence[Token], attrs: Sequence[range], fields: Sequence[str]) -> Tuple[Optional[Template], bool]:
    """thiserror ``#[error("..", args)]`` → (template, transparent)."""
    for a in attrs:
        if len(a) >= 2 and toks[a.start].text == "error" and toks[a.start + 1].kind == OPEN:
            open_idx = a.start + 1
            parts = split_top_level(toks, open_idx + 1, toks[open_idx].match)
            if not parts:
                return None, False
            if len(parts[0]) == 1 and toks[parts[0].start].text == "transparent":
                return None, True
            if not (len(parts[0]) == 1 and toks[parts[0].start].kind == STR):
                return None, False
            fmt = toks[parts[0].start].value or ""
            positional: List[Optional[str]] = []
            for p in parts[1:]:
                positional.append(_field_ref(toks, p))
            fmap = {f: f for f in fields}
            tpl = name_placeholders(parse_format(fmt), positional, None, fmap)
            return tpl, False
    return None, False


def _field_ref(toks: Sequence[Token], span: range) -> Optional[str]:
    """thiserror extra argument ``.0`` / ``.name`` (or ``self.name``) → the field it reads."""
    items = [toks[k] for k in span]
    if len(items) == 2 and items[0].text == "." and items[1].kind in (IDENT, NUM):
        return items[1].text
    if len(items) == 3 and items[0].text == "self" and items[1].text == "." and items[2].kind in (IDENT, NUM):
        return items[2].text
    return None


def _parse_type(lexed: Lexed, st: Structure, i: int) -> Optional[EnumDef]:
    toks = lexed.tokens
    name = toks[i + 1].text
    attrs = preceding_attrs(toks, i)
    derives = _derives(toks, attrs)
    thiserror = "Error" in derives
    is_struct = toks[i].text == "struct"
    # find the body (skip generics / where clauses)
    j = i + 2
    n = len(toks)
    while j < n and not (toks[j].kind == OPEN and toks[j].text in ("{", "(")) and not (toks[j].kind == PUNCT and toks[j].text == ";"):
        j += 1
    if is_struct:
        if not (thiserror or name.endswith(("Error", "Err"))):
            return None
        shape, fields, types = "unit", [], []
        end = j
        if j < n and toks[j].kind == OPEN:
            shape, fields, types = _fields_of(toks, j)
            end = toks[j].match
        tpl, transparent = _error_attr(toks, attrs, fields)
        v = VariantDef(name, shape, fields, lexed.line(i), lexed.line(end), tpl, transparent, types=tuple(types))
        return EnumDef(name, lexed.line(i), True, thiserror, [v], "Debug" in derives)
    if j >= n or toks[j].kind != OPEN or toks[j].text != "{":
        return None
    has_error_attrs = False
    variants: List[VariantDef] = []
    close = toks[j].match
    for part in split_top_level(toks, j + 1, close):
        k = part.start
        v_attrs: List[range] = []
        while k < part.stop:
            a = attribute_at(toks, k)
            if a is None:
                break
            v_attrs.append(a.inner)
            k = a.end + 1
        if k >= part.stop or toks[k].kind != IDENT:
            continue
        vname = toks[k].text
        shape, fields, from_fields, types = "unit", [], (), []
        end = k
        if k + 1 < part.stop and toks[k + 1].kind == OPEN and toks[k + 1].text in ("(", "{"):
            shape, fields, types = _fields_of(toks, k + 1)
            from_fields = _from_fields(toks, k + 1)
            end = toks[k + 1].match
        tpl, transparent = _error_attr(toks, v_attrs, fields)
        if tpl is not None or transparent:
            has_error_attrs = True
        variants.append(VariantDef(vname, shape, fields, lexed.line(k), lexed.line(end), tpl, transparent, from_fields, tuple(types)))
    if not (thiserror or has_error_attrs or name.endswith(("Error", "Err"))):
        return None
    return EnumDef(name, lexed.line(i), False, thiserror or has_error_attrs, variants, "Debug" in derives)


def _fields_of(toks: Sequence[Token], open_idx: int) -> Tuple[str, List[str], List[str]]:
    """(shape, field names, field types) of a ``(..)``/``{..}`` field list."""
    close = toks[open_idx].match
    parts = split_top_level(toks, open_idx + 1, close, angles=True)
    names: List[str] = []
    types: List[str] = []
    for idx, p in enumerate(parts):
        k = skip_attributes(toks, p.start, p.stop)
        while k < p.stop and toks[k].kind == IDENT and toks[k].text == "pub":
            k += 1
            if k < p.stop and toks[k].kind == OPEN and toks[k].text == "(":
                k = toks[k].match + 1
        if toks[open_idx].text == "(":
            names.append(str(idx))
            types.append(type_text(toks, range(k, p.stop)))
        elif k + 1 < p.stop and toks[k].kind == IDENT and toks[k + 1].text == ":":
            names.append(toks[k].text[2:] if toks[k].text.startswith("r#") else toks[k].text)
            types.append(type_text(toks, range(k + 2, p.stop)))
    return ("tuple" if toks[open_idx].text == "(" else "struct"), names, types


def _from_fields(toks: Sequence[Token], open_idx: int) -> Tuple[str, ...]:
    out = []
    for idx, p in enumerate(split_top_level(toks, open_idx + 1, toks[open_idx].match, angles=True)):
        for k in p:
            a = attribute_at(toks, k)
            if a is not None and any(toks[m].text in ("from", "source") for m in a.inner):
                out.append(str(idx))
                break
    return tuple(out)


# --------------------------------------------------------------------------- Display impls


def _display_impl(lexed: Lexed, st: Structure, type_name: str, body_start: int, body_end: int) -> DisplayImpl:
    toks = lexed.tokens
    out = DisplayImpl(type_name)
    fn = next((f for f in st.fns if f.name == "fmt" and body_start < f.body_start < body_end), None)
    if fn is None:
        return out
    k = fn.body_start + 1
    while k < fn.body_end:
        t = toks[k]
        if t.kind == IDENT and t.text == "match":
            m = k + 1
            mentions_self = False
            while m < fn.body_end and not (toks[m].kind == OPEN and toks[m].text == "{"):
                if toks[m].text == "self":
                    mentions_self = True
                if toks[m].kind == OPEN and toks[m].match > m:
                    m = toks[m].match
                m += 1
            if m < fn.body_end and mentions_self:
                out.arms.extend(_arms(lexed, st, m))
                return out
            k = m + 1 if m > k else k + 1
            continue
        k += 1
    # no match on self: the writes of the body describe the whole type
    for tpl, line, end_line in _writes(lexed, st, range(fn.body_start + 1, fn.body_end), _self_fields()):
        out.arms.append(ArmTemplate([], tpl, line, end_line, not out.arms))
    return out


def _prints_debug(d: DisplayImpl) -> bool:
    """Whether a Display impl only writes the value's Debug form (``{self:?}``/``{:?}`` of self)."""
    return len(d.arms) == 1 and not d.arms[0].variants and d.arms[0].template.text in ("{self:?}", "{:?}", "{self:#?}")


def _scan_to(toks: Sequence[Token], i: int, stop: int, kind: str, text: str) -> int:
    """Index of the first ``kind``/``text`` token from ``i`` at this nesting level (``stop`` if none)."""
    while i < stop and not (toks[i].kind == kind and toks[i].text == text):
        if toks[i].kind == OPEN and toks[i].match > i:
            i = toks[i].match
        i += 1
    return i


def _pyerr_conversion(lexed: Lexed, st: Structure, source_type: str, body_start: int, body_end: int) -> DisplayImpl:
    """``impl From<T> for PyErr { match .. { T::V => PyValueError::new_err("..") } }``."""
    toks = lexed.tokens
    out = DisplayImpl(source_type, pyerr=True)
    k = body_start + 1
    while k < body_end:
        if toks[k].kind == IDENT and toks[k].text == "match":
            m = _scan_to(toks, k + 1, body_end, OPEN, "{")
            if m >= body_end:
                break
            for pattern_span, body in _match_arms(toks, m):
                variants, _ = _pattern(toks, pattern_span)
                for q in body:
                    if toks[q].kind == IDENT and toks[q].text == "new_err" and q + 1 < body.stop and toks[q + 1].kind == OPEN:
                        tpl, _ = message_expr(toks, range(q + 2, toks[q + 1].match), st, q)
                        if tpl is not None and variants:
                            cls = toks[q - 2].text if q >= 2 and toks[q - 1].text == "::" else "PyException"
                            cls = cls[2:] if cls.startswith("Py") and cls[2:3].isupper() else cls
                            out.arms.append(ArmTemplate(variants, tpl, lexed.line(q), lexed.line(toks[q + 1].match), True, cls))
                        break
            break
        k += 1
    return out


class _SelfFields(dict):
    """Binding map for ``self.x`` accesses in a struct's Display (filled lazily)."""


def _self_fields() -> Dict[str, str]:
    return _SelfFields()


def _arms(lexed: Lexed, st: Structure, open_idx: int) -> List[ArmTemplate]:
    out: List[ArmTemplate] = []
    for pattern_span, body in _match_arms(lexed.tokens, open_idx):
        variants, bindings = _pattern(lexed.tokens, pattern_span)
        first = True
        for tpl, line, end_line in _writes(lexed, st, body, bindings):
            out.append(ArmTemplate(variants, tpl, line, end_line, first))
            first = False
    return out


def _match_arms(toks: Sequence[Token], open_idx: int) -> Iterator[Tuple[range, range]]:
    """(pattern span, body span) of each arm of the ``match { .. }`` block opened at ``open_idx``."""
    close = toks[open_idx].match
    i = open_idx + 1
    while i < close:
        j = _scan_to(toks, i, close, PUNCT, "=>")
        if j >= close:
            return
        b = j + 1
        if b < close and toks[b].kind == OPEN and toks[b].text == "{":
            body = range(b + 1, toks[b].match)
            nxt = toks[b].match + 1
        else:
            nxt = _scan_to(toks, b, close, PUNCT, ",")
            body = range(b, nxt)
        if nxt < close and toks[nxt].kind == PUNCT and toks[nxt].text == ",":
            nxt += 1
        yield range(i, j), body
        i = nxt


def _pattern(toks: Sequence[Token], span: range) -> Tuple[List[str], Dict[str, str]]:
    """Variant names of a match-arm pattern (``A(..) | B { .. }``) and binding → field map."""
    variants: List[str] = []
    bindings: Dict[str, str] = {}
    guard = next((k for k in span if toks[k].kind == IDENT and toks[k].text == "if"), span.stop)
    for alt in split_top_level(toks, span.start, guard, sep="|"):
        last_ident: Optional[int] = None
        k = alt.start
        while k < alt.stop:
            t = toks[k]
            if t.kind == PUNCT and t.text == "#" and k + 1 < alt.stop and toks[k + 1].text == "[" and toks[k + 1].match > k:
                k = toks[k + 1].match + 1  # an arm attribute (`#[cfg(feature = "std")] IoError(e) =>`)
                continue
            if t.kind == IDENT:
                last_ident = k
            elif t.kind == OPEN:
                break
            k += 1
        if last_ident is None:
            continue
        vname = toks[last_ident].text
        if not vname[:1].isupper():
            continue
        variants.append(vname)
        if k < alt.stop and toks[k].kind == OPEN:
            parts = split_top_level(toks, k + 1, toks[k].match)
            if toks[k].text == "(":
                for idx, p in enumerate(parts):
                    name = _binding(toks, p)
                    if name:
                        bindings[name] = str(idx)
            else:
                for p in parts:
                    items = [toks[m] for m in p]
                    items = [x for x in items if not (x.kind == IDENT and x.text in ("ref", "mut"))]
                    if len(items) == 1 and items[0].kind == IDENT:
                        bindings[items[0].text] = items[0].text
                    elif len(items) >= 3 and items[0].kind == IDENT and items[1].text == ":" and items[-1].kind == IDENT:
                        bindings[items[-1].text] = items[0].text
    return variants, bindings


def _binding(toks: Sequence[Token], span: range) -> Optional[str]:
    items = [toks[m] for m in span if not (toks[m].kind == IDENT and toks[m].text in ("ref", "mut"))]
    if len(items) == 1 and items[0].kind == IDENT and items[0].text != "_":
        return items[0].text
    return None


def _writes(lexed: Lexed, st: Structure, body: range, bindings: Dict[str, str]) -> List[Tuple[Template, int, int]]:
    """Templates written by ``write!``/``writeln!``/``write_str`` in a Display body (or the arm's
    message value when the arm just yields a literal)."""
    toks = lexed.tokens
    out: List[Tuple[Template, int, int]] = []
    self_fields = isinstance(bindings, _SelfFields)
    k = body.start
    while k < body.stop:
        t = toks[k]
        if t.kind == IDENT and t.text in ("write", "writeln") and k + 2 < body.stop + 1 and toks[k + 1].text == "!" and toks[k + 2].kind == OPEN:
            close = toks[k + 2].match
            parts = split_top_level(toks, k + 3, close)
            if len(parts) >= 2 and len(parts[1]) == 1 and toks[parts[1].start].kind == STR:
                tpl = _arm_template(toks, parts[1:], bindings, self_fields)
                if tpl is not None:
                    out.append((tpl, lexed.line(k), lexed.line(close)))
            k = close + 1
            continue
        if t.kind == IDENT and t.text in ("write_str", "pad") and k > 0 and toks[k - 1].text == "." and k + 1 < body.stop and toks[k + 1].kind == OPEN:
            close = toks[k + 1].match
            tpl, _ = message_expr(toks, range(k + 2, close), st, k)
            if tpl is not None:
                out.append((tpl, lexed.line(k), lexed.line(close)))
            k = close + 1
            continue
        k += 1
    if not out and len(body) and toks[body.start].kind == STR:
        tpl, _ = message_expr(toks, body, st, body.start)
        if tpl is not None:
            out.append((tpl, lexed.line(body.start), lexed.line(body.stop - 1)))
    return out


def _arm_template(toks: Sequence[Token], parts: Sequence[range], bindings: Dict[str, str], self_fields: bool) -> Optional[Template]:
    fmt = toks[parts[0].start].value or ""
    positional: List[Optional[str]] = []
    named: Dict[str, Optional[str]] = {}
    fmap: Dict[str, str] = dict(bindings)
    for p in parts[1:]:
        if len(p) >= 3 and toks[p.start].kind == IDENT and toks[p.start + 1].text == "=":
            named[toks[p.start].text] = _arg_ref(toks, range(p.start + 2, p.stop), fmap, self_fields)
            continue
        positional.append(_arg_ref(toks, p, fmap, self_fields))
    return name_placeholders(parse_format(fmt), positional, named, fmap)


def _arg_ref(toks: Sequence[Token], span: range, fmap: Dict[str, str], self_fields: bool) -> Optional[str]:
    if len(span) > 4 and [t.text for t in toks[span.stop - 4 : span.stop]] == [".", "to_string", "(", ")"]:
        span = range(span.start, span.stop - 4)  # `err.to_string()` prints what `err` holds
    items = [toks[k] for k in span if not (toks[k].kind == PUNCT and toks[k].text in ("&", "*"))]
    if self_fields and len(items) == 3 and items[0].text == "self" and items[1].text == "." and items[2].kind in (IDENT, NUM):
        fmap[items[2].text] = items[2].text
        return items[2].text
    return plain_ident(toks, span)


# --------------------------------------------------------------------------- constructions


def _construction(lexed: Lexed, st: Structure, i: int) -> Optional[Construction]:
    """``Enum::Variant[(..)|{..}]`` at ``i`` when it builds a value (not a pattern, not a use)."""
    toks = lexed.tokens
    n = len(toks)
    head, vname = toks[i].text, toks[i + 2].text
    if not vname[:1].isupper() or vname == head:
        return None
    if head == "Self":
        im = st.impl_at(i)
        if im is None:
            return None
        head = im.type_name
    if not head.endswith(("Error", "Err")):
        return None
    if i + 3 < n and toks[i + 3].kind == PUNCT and toks[i + 3].text in ("::", "!"):
        return None
    if i > 0 and toks[i - 1].kind == PUNCT and toks[i - 1].text == "::" and i > 1 and toks[i - 2].kind == IDENT and toks[i - 2].text[:1].isupper() and toks[i - 2].text.endswith(("Error", "Err")):
        return None  # Outer::Error::Variant is handled at its last two segments only
    if st.in_test(i) or _in_use(toks, i):
        return None
    end = i + 2
    has_args = False
    payload: Dict[str, Template] = {}
    if i + 3 < n and toks[i + 3].kind == OPEN and toks[i + 3].text in ("(", "{") and toks[i + 3].match > 0:
        open_idx = i + 3
        close = toks[open_idx].match
        if toks[open_idx].text == "{" and not _looks_like_struct_literal(toks, open_idx):
            pass  # `if e == Error::Unit { .. }`: a unit variant followed by a block
        else:
            end = close
            has_args = True
            parts = split_top_level(toks, open_idx + 1, close)
            if toks[open_idx].text == "(":
                for idx, p in enumerate(parts):
                    tpl, _ = message_expr(toks, p, st, i)
                    if tpl is not None:
                        payload[str(idx)] = tpl
            else:
                for p in parts:
                    if len(p) >= 3 and toks[p.start].kind == IDENT and toks[p.start + 1].text == ":":
                        tpl, _ = message_expr(toks, range(p.start + 2, p.stop), st, i)
                        if tpl is not None:
                            payload[toks[p.start].text] = tpl
    if _is_pattern(toks, i, end):
        return None
    fn = st.fn_at(i)
    owner = guards.owner_of(st, fn.start) if fn else None
    return Construction(head, vname, lexed.line(i), lexed.line(end), fn.name if fn else None, payload, has_args, guards.guard_at(toks, st, i), owner)


def _looks_like_struct_literal(toks: Sequence[Token], open_idx: int) -> bool:
    close = toks[open_idx].match
    if close == open_idx + 1:
        return True
    a = toks[open_idx + 1]
    b = toks[open_idx + 2] if open_idx + 2 < close else None
    if a.kind == PUNCT and a.text == "..":
        return True
    return a.kind == IDENT and (b is None or (b.kind == PUNCT and b.text in (":", ",")))


def _is_pattern(toks: Sequence[Token], start: int, end: int) -> bool:
    """A path followed by ``=>``/``|``/``=``/``if`` (possibly after closing brackets), after ``let``,
    or inside ``matches!``, is a pattern, not a construction."""
    n = len(toks)
    e = end
    for _ in range(6):
        if e + 1 >= n:
            return False
        nt = toks[e + 1]
        if nt.kind == PUNCT and nt.text in ("=>", "|", "="):
            return True
        if nt.kind == IDENT and nt.text == "if":
            return True
        if nt.kind == CLOSE:
            e += 1
            continue
        break
    p = start - 1
    while p >= 0 and toks[p].kind == PUNCT and toks[p].text in ("::", "&"):
        p -= 2 if toks[p].text == "::" else 1
    if p >= 0 and toks[p].kind == IDENT and toks[p].text in ("let", "ref"):
        return True
    o = enclosing_open(toks, start)
    if o >= 2 and toks[o - 1].text == "!" and toks[o - 2].text in ("matches", "assert_matches", "debug_assert_matches"):
        return True
    return False


def _in_use(toks: Sequence[Token], i: int) -> bool:
    """Inside a ``use ...;`` item?"""
    k = i - 1
    steps = 0
    while k >= 0 and steps < 200:
        t = toks[k]
        if t.kind == PUNCT and t.text == ";":
            return False
        if t.kind == CLOSE and t.text == "}":
            return False
        if t.kind == IDENT and t.text == "use":
            return True
        if t.kind == OPEN and t.text == "{" and not (k > 0 and toks[k - 1].text == "::"):
            return False
        k -= 1
        steps += 1
    return False


# --------------------------------------------------------------------------- snapshot linking


@dataclass
class ResolvedVariant:
    crate: str
    path: str
    enum: EnumDef
    variant: VariantDef
    display: Optional[Template]
    display_line: int
    display_end_line: int
    display_kind: str  # error_variant | display_arm | none
    display_path: str = ""
    display_class: Optional[str] = None


class EnumTable:
    """All error types of a snapshot, resolvable by (enum name, variant name, preferred crate)."""

    def __init__(self) -> None:
        self.by_name: Dict[str, List[ResolvedVariant]] = {}

    def add(self, rv: ResolvedVariant) -> None:
        self.by_name.setdefault(f"{rv.enum.name}::{rv.variant.name}", []).append(rv)

    def resolve(self, enum: str, variant: str, crate: str) -> Optional[ResolvedVariant]:
        cands = self.by_name.get(f"{enum}::{variant}")
        if not cands:
            return None
        for c in cands:
            if c.crate == crate:
                return c
        with_display = [c for c in cands if c.display is not None]
        return (with_display or cands)[0]


def variant_info(rv: ResolvedVariant) -> Dict[str, object]:
    """The record's ``variant`` object (design.md §Record fields)."""
    v = rv.variant
    tpl = rv.display
    debug_fields = {p.field for p in (tpl.placeholders if tpl else []) if p.debug and p.field is not None}
    return {
        "enum": rv.enum.name,
        "name": v.name,
        "shape": v.shape,
        "fields": [
            {"name": f, "debug": f in debug_fields, "type": v.types[k] if k < len(v.types) else None}
            for k, f in enumerate(v.fields)
        ],
        "display": display_text(tpl) if tpl is not None else None,
        "transparent": v.transparent,
    }


def build_table(files: Sequence[Tuple[str, str, "FileFacts"]], error_impls: Set[str]) -> Tuple[EnumTable, List[Tuple[str, str, DisplayImpl]]]:
    """(path, crate, facts) of every file → the enum table (with manual Display arms attached)."""
    table = EnumTable()
    displays: Dict[Tuple[str, str], DisplayImpl] = {}
    display_files: Dict[Tuple[str, str], str] = {}
    debugs: Dict[Tuple[str, str], Tuple[str, DisplayImpl]] = {}
    conversions: Dict[Tuple[str, str], Tuple[str, ArmTemplate]] = {}
    for path, crate, facts in files:
        for d in facts.displays:
            if d.pyerr:
                for arm in d.arms:
                    for vn in arm.variants:
                        conversions.setdefault((crate, vn), (path, arm))
                continue
            key = (crate, d.type_name)
            if key not in displays:
                displays[key] = d
                display_files[key] = path
        for d in facts.debugs:
            debugs.setdefault((crate, d.type_name), (path, d))
    # a Display that prints the Debug form (``write!(f, "{self:?}")``), or none at all, shows
    # what a hand-written ``impl Debug`` writes: its arms stand in for the Display's
    for key, (path, d) in debugs.items():
        if key not in displays or _prints_debug(displays[key]):
            displays[key] = d
            display_files[key] = path
    used_displays: List[Tuple[str, str, DisplayImpl]] = []
    for path, crate, facts in files:
        for e in facts.enums:
            if e.is_struct and not (e.thiserror or e.name in error_impls or (crate, e.name) in displays):
                continue
            d = displays.get((crate, e.name))
            arm_for: Dict[str, ArmTemplate] = {}
            if d is not None and not e.thiserror:
                for arm in d.arms:
                    if not arm.first:
                        continue
                    names = arm.variants or ([e.name] if e.is_struct else [v.name for v in e.variants])
                    for vn in names:
                        arm_for.setdefault(vn, arm)
                used_displays.append((display_files[(crate, e.name)], crate, d))
            for v in e.variants:
                dpath = path
                conv = conversions.get((crate, v.name))
                if conv is not None:
                    # the binding turns this variant into a Python exception with its own text
                    dpath, arm = conv
                    disp, line, end, kind = arm.template, arm.line, arm.end_line, "pyerr"
                elif v.template is not None:
                    disp, line, end, kind = v.template, v.line, v.end_line, "error_variant"
                elif v.name in arm_for:
                    arm = arm_for[v.name]
                    disp, line, end, kind = arm.template, arm.line, arm.end_line, "display_arm"
                    dpath = display_files[(crate, e.name)]
                else:
                    disp, line, end, kind = None, v.line, v.end_line, "none"
                cls = conv[1].error_class if conv is not None else None
                table.add(ResolvedVariant(crate, path, e, v, disp, line, end, kind, dpath, cls))
    return table, used_displays


def link_construction(c: Construction, table: EnumTable, crate: str) -> Optional[Tuple[ResolvedVariant, Optional[Template], str, Optional[str]]]:
    """Resolve a construction: (variant, template, kind, reason) or None if not an error type."""
    rv = table.resolve(c.enum, c.variant, crate)
    if rv is None:
        return None
    v = rv.variant
    disp = rv.display
    passthrough = disp is not None and disp.is_passthrough()
    kind = "msg" if v.name == "Msg" else "variant_construction"
    if rv.display_kind == "pyerr":
        return rv, disp, "pyerr", None
    if v.transparent:
        return rv, None, kind, "transparent"
    if disp is None:
        # Debug-only: users read `Variant("...")` / `Variant { field: "...", .. }`
        lits = [c.payload[f] for f in v.fields if f in c.payload]
        if not lits:
            return rv, None, kind, "debug-only"
        if len(v.fields) == 1 and lits[0].literal_chars() >= 8:
            return rv, lits[0], kind, None  # the payload alone matches both the Debug and the raw text
        return rv, debug_form(v, c.payload), kind, None
    printed = {p.field for p in disp.placeholders if p.field is not None}
    if any(f in c.payload for f in printed):
        return rv, substitute(disp, c.payload), kind, None
    if passthrough:
        return rv, None, kind, "wrapper"
    return rv, disp, kind, None


def debug_form(v: VariantDef, payload: Dict[str, Template]) -> Template:
    """The derived-Debug text of a construction: ``Name("lit", {f1:?})`` or ``Name { a: "lit", b: {b:?} }``.

    String payloads print quoted and escaped; other fields become Debug placeholders.
    """
    pieces: List[object] = []
    if v.shape == "struct":
        pieces.append(v.name + " { ")
    else:
        pieces.append(v.name + "(")
    for k, f in enumerate(v.fields):
        if k:
            pieces.append(", ")
        if v.shape == "struct":
            pieces.append(f + ": ")
        if f in payload:
            pieces.append('"')
            for p in payload[f].pieces:
                if isinstance(p, str):
                    pieces.append(p.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n"))
                else:
                    pieces.append(p)
            pieces.append('"')
        else:
            pieces.append(Placeholder(arg=f if not f.isdigit() else "", spec="?", group="f" + f if f.isdigit() else f, field=f))
    pieces.append(" }" if v.shape == "struct" else ")")
    merged: List[object] = []
    for p in pieces:
        if isinstance(p, str) and merged and isinstance(merged[-1], str):
            merged[-1] = merged[-1] + p
        else:
            merged.append(p)
    from builder.template import renumber

    return renumber(Template(tuple(merged), True))  # type: ignore[arg-type]
