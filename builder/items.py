"""Item structure on the token stream: attributes, test-only items, functions and impl blocks.

Site extraction needs three facts about a token: is it inside test-only code (``#[cfg(test)]``,
``#[test]``...), which function encloses it (used to describe the site), and which ``impl``
block encloses it (``Self::Variant`` resolution, ``impl Display for X``).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Set, Tuple

from builder.rustlex import CLOSE, IDENT, OPEN, PUNCT, STR, Token, split_top_level, type_text

TEST_ATTRS = {"test", "rstest", "test_case", "wasm_bindgen_test", "quickcheck", "proptest"}
ITEM_KEYWORDS = {"fn", "mod", "impl", "struct", "enum", "trait", "use", "const", "static", "type", "union", "macro_rules", "extern", "let"}


@dataclass
class Attr:
    """``#[...]`` attribute: token span of its bracket group and the tokens inside."""

    start: int  # index of '#'
    end: int  # index of the closing ']'
    inner: range  # tokens between the brackets


@dataclass
class FnRange:
    name: str
    start: int  # index of 'fn'
    body_start: int
    body_end: int
    params: Tuple[Tuple[str, str], ...] = ()
    """(name, type text) of the parameters, ``self`` excluded (a pattern parameter is named '')."""
    method: bool = False
    """True when the first parameter is ``self`` (called as ``x.name(..)``)."""


@dataclass
class ImplRange:
    trait: Optional[str]
    type_name: str
    start: int
    body_start: int
    body_end: int
    trait_args: Tuple[str, ...] = ()
    """Identifiers inside the trait's generic arguments (``From<TensorError>`` → TensorError)."""


@dataclass
class Structure:
    """What items.analyze finds in one file."""

    test_ranges: List[Tuple[int, int]] = field(default_factory=list)
    test_mods: List[str] = field(default_factory=list)
    """Names of ``#[cfg(test)] mod name;`` declarations (their files are excluded)."""
    fns: List[FnRange] = field(default_factory=list)
    impls: List[ImplRange] = field(default_factory=list)
    _test_starts: List[int] = field(default_factory=list)

    def in_test(self, index: int) -> bool:
        pos = bisect.bisect_right(self._test_starts, index) - 1
        return pos >= 0 and self.test_ranges[pos][0] <= index <= self.test_ranges[pos][1]

    def fn_at(self, index: int) -> Optional[FnRange]:
        best: Optional[FnRange] = None
        for f in self.fns:
            if f.body_start <= index <= f.body_end and (best is None or f.body_start >= best.body_start):
                best = f
        return best

    def impl_at(self, index: int) -> Optional[ImplRange]:
        best: Optional[ImplRange] = None
        for im in self.impls:
            if im.body_start <= index <= im.body_end and (best is None or im.body_start >= best.body_start):
                best = im
        return best


def attribute_at(toks: Sequence[Token], i: int) -> Optional[Attr]:
    """The attribute starting at ``toks[i] == '#'`` (outer or inner), if any."""
    if not (toks[i].kind == PUNCT and toks[i].text == "#"):
        return None
    j = i + 1
    if j < len(toks) and toks[j].kind == PUNCT and toks[j].text == "!":
        j += 1
    if j < len(toks) and toks[j].kind == OPEN and toks[j].text == "[" and toks[j].match > j:
        return Attr(i, toks[j].match, range(j + 1, toks[j].match))
    return None


def skip_attributes(toks: Sequence[Token], i: int, stop: int) -> int:
    """Index of the first token at or after ``i`` (below ``stop``) that is not part of a leading attribute."""
    while i < stop:
        attr = attribute_at(toks, i)
        if attr is None:
            break
        i = attr.end + 1
    return i


def is_test_attr(toks: Sequence[Token], attr: Attr) -> bool:
    """``#[cfg(test)]``, ``#[cfg(all(test, ...))]``, ``#[test]``, ``#[tokio::test]``, ... (not ``any``/``not``)."""
    inner = [toks[k] for k in attr.inner]
    if not inner:
        return False
    names = [t.text for t in inner if t.kind == IDENT]
    if inner[0].text == "cfg" and len(inner) >= 3:
        body = [t.text for t in inner[2:-1]]
        if body == ["test"]:
            return True
        if body[:3] == ["all", "(", "test"]:
            return True
        return False
    # #[test], #[tokio::test], #[rstest], #[test_case(..)]
    head: List[str] = []
    for t in inner:
        if t.kind == OPEN:
            break
        if t.kind == IDENT:
            head.append(t.text)
    return bool(head) and head[-1] in TEST_ATTRS and names[0] != "cfg_attr"


def item_end(toks: Sequence[Token], start: int) -> int:
    """Index of the last token of the item (or statement) starting at ``start``.

    Skips leading attributes; ends at a top-level ``;`` or at the close of the first top-level
    ``{}`` block (for ``const``/``static``/``let`` the block is part of the expression).
    """
    n = len(toks)
    i = skip_attributes(toks, start, n)
    expr_item = i < n and toks[i].kind == IDENT and toks[i].text in ("const", "static", "let")
    angle = 0
    while i < n:
        t = toks[i]
        if t.kind == OPEN and t.match > i:
            if t.text == "{" and not expr_item:
                return t.match
            i = t.match + 1
            continue
        if t.kind == CLOSE:
            return i - 1
        if t.kind == PUNCT:
            if t.text == ";":
                return i
            if not expr_item:
                angle += {"<": 1, ">": -1, ">>": -2, "<<": 2}.get(t.text, 0)
            if t.text == "," and not expr_item and angle <= 0:
                # an attributed field/arm inside a list ends at its comma
                return i - 1
        i += 1
    return n - 1


def analyze(toks: Sequence[Token]) -> Structure:
    """Find test-only ranges, functions and impl blocks of a file."""
    st = Structure()
    n = len(toks)
    i = 0
    while i < n:
        t = toks[i]
        if t.kind == PUNCT and t.text == "#":
            attr = attribute_at(toks, i)
            if attr is not None:
                if is_test_attr(toks, attr) and not _is_inner(toks, i):
                    end = item_end(toks, i)
                    st.test_ranges.append((i, end))
                    mod_name = _declared_mod(toks, attr.end + 1, end)
                    if mod_name:
                        st.test_mods.append(mod_name)
                    i = end + 1
                    continue
                if is_test_attr(toks, attr) and _is_inner(toks, i):
                    # #![cfg(test)] at the top of a file: the whole file is test code
                    st.test_ranges.append((0, n - 1))
                    break
                i = attr.end + 1
                continue
        if t.kind == IDENT and t.text == "fn" and i + 1 < n and toks[i + 1].kind == IDENT:
            body = _body_after(toks, i + 2)
            if body is not None:
                params, method = fn_params(toks, i + 2, body)
                st.fns.append(FnRange(toks[i + 1].text, i, body, toks[body].match, params, method))
        elif t.kind == IDENT and t.text == "impl" and (i == 0 or toks[i - 1].text not in ("&", "->", "(", ",", "<", ":", "=")):
            imp = _impl_header(toks, i)
            if imp is not None:
                st.impls.append(imp)
        i += 1
    st.test_ranges.sort()
    st._test_starts = [a for a, _ in st.test_ranges]
    return st


def _is_inner(toks: Sequence[Token], i: int) -> bool:
    return i + 1 < len(toks) and toks[i + 1].kind == PUNCT and toks[i + 1].text == "!"


def _declared_mod(toks: Sequence[Token], start: int, end: int) -> Optional[str]:
    """``mod name;`` between start and end (after attributes and visibility)."""
    i = start
    while i <= end and i < len(toks):
        attr = attribute_at(toks, i)
        if attr is not None:
            i = attr.end + 1
            continue
        t = toks[i]
        if t.kind == IDENT and t.text == "mod" and i + 2 <= end + 1 and i + 2 < len(toks):
            if toks[i + 1].kind == IDENT and toks[i + 2].kind == PUNCT and toks[i + 2].text == ";":
                return toks[i + 1].text
            return None
        if t.kind == IDENT and t.text in ("pub",):
            i += 1
            if i < len(toks) and toks[i].kind == OPEN and toks[i].text == "(":
                i = toks[i].match + 1
            continue
        return None
    return None


def fn_params(toks: Sequence[Token], start: int, body: int) -> Tuple[Tuple[Tuple[str, str], ...], bool]:
    """Parameters of a fn signature (tokens from after its name to its body): (name, type) pairs
    without ``self``, and whether there is a ``self`` receiver."""
    i = start
    while i < body and not (toks[i].kind == OPEN and toks[i].text == "("):
        i += 1
    if i >= body or toks[i].match < 0:
        return (), False
    out: List[Tuple[str, str]] = []
    method = False
    for n, part in enumerate(split_top_level(toks, i + 1, toks[i].match, angles=True)):
        k = skip_attributes(toks, part.start, part.stop)
        colon = next((c for c in range(k, part.stop) if toks[c].kind == PUNCT and toks[c].text == ":"), None)
        names = [toks[c].text for c in range(k, colon if colon is not None else part.stop) if toks[c].kind == IDENT and toks[c].text not in ("mut", "ref")]
        if n == 0 and names == ["self"]:
            method = True
            continue
        if colon is None:
            continue
        name = names[0] if len(names) == 1 and colon - k <= 2 else ""
        out.append((name, type_text(toks, range(colon + 1, part.stop))))
    return tuple(out), method


def _body_after(toks: Sequence[Token], i: int) -> Optional[int]:
    """Index of the ``{`` opening a fn body after its signature, or None for a declaration."""
    n = len(toks)
    while i < n:
        t = toks[i]
        if t.kind == OPEN:
            if t.text == "{":
                return i if t.match > i else None
            if t.match > i:
                i = t.match + 1
                continue
        if t.kind == PUNCT and t.text == ";":
            return None
        if t.kind == CLOSE:
            return None
        i += 1
    return None


def _impl_header(toks: Sequence[Token], i: int) -> Optional[ImplRange]:
    """Parse ``impl<..> [Trait for] Type<..> [where ..] {`` starting at ``toks[i] == 'impl'``."""
    n = len(toks)
    j = i + 1
    angle = 0
    header: List[Tuple[int, Token]] = []
    while j < n:
        t = toks[j]
        if t.kind == OPEN:
            if t.text == "{" and angle <= 0:
                break
            if t.match > j:
                j = t.match + 1
                continue
        if t.kind == PUNCT:
            if t.text == "<":
                angle += 1
            elif t.text == ">":
                angle -= 1
            elif t.text == ">>":
                angle -= 2
            elif t.text == "<<":
                angle += 2
            elif t.text == ";":
                return None
        if t.kind == CLOSE:
            return None
        header.append((angle, t))
        j += 1
    if j >= n or toks[j].match < 0:
        return None
    # strip a where clause
    cut = len(header)
    for k, (depth, t) in enumerate(header):
        if depth == 0 and t.kind == IDENT and t.text == "where":
            cut = k
            break
    header = header[:cut]
    trait_part: List[Tuple[int, Token]] = []
    type_part = header
    for k, (depth, t) in enumerate(header):
        if depth == 0 and t.kind == IDENT and t.text == "for":
            trait_part, type_part = header[:k], header[k + 1 :]
            break
    type_name = _last_ident(type_part)
    if type_name is None:
        return None
    trait = _last_ident(trait_part) if trait_part else None
    args = tuple(t.text for depth, t in trait_part if depth >= 1 and t.kind == IDENT)
    return ImplRange(trait, type_name, i, j, toks[j].match, args)


def _last_ident(part: Sequence[Tuple[int, Token]]) -> Optional[str]:
    names = [t.text for depth, t in part if depth == 0 and t.kind == IDENT and t.text not in ("dyn", "mut", "const", "unsafe")]
    return names[-1] if names else None


def string_tokens(toks: Sequence[Token], span: range) -> List[int]:
    return [k for k in span if toks[k].kind == STR]


def excluded_module_files(path: str, mods: Sequence[str]) -> Set[str]:
    """Files that hold the ``#[cfg(test)] mod name;`` modules declared in ``path``."""
    if not mods:
        return set()
    directory, _, filename = path.rpartition("/")
    stem = filename[:-3] if filename.endswith(".rs") else filename
    base = directory if stem in ("mod", "lib", "main") else (directory + "/" + stem if directory else stem)
    out: Set[str] = set()
    for m in mods:
        prefix = f"{base}/{m}" if base else m
        out.add(prefix + ".rs")
        out.add(prefix + "/mod.rs")
    return out
