"""Rebuilding the Display message of a Rust error from its Debug form.

candle's Python errors show the Debug form of an error value
(``UnsupportedDTypeForOp(I64, "matmul")``) where records hold the Display message
(``unsupported dtype I64 for op matmul``). The index's variant templates say how each variant
displays; this module fills them with the values of a parsed Debug form (``rustdebug``).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from errhint import rustfmt
from errhint.bindings import REPOS as BINDING_REPOS
from errhint.loaded_index import VariantInfo
from errhint.rustdebug import Value

MAX_VARIANT_DEPTH = 4
MAX_RENDERINGS = 3

_EMPTY: Mapping[str, str] = MappingProxyType({})

Templates = Callable[[str], Sequence[VariantInfo]]

def no_templates(_name: str) -> Sequence[VariantInfo]:
    """A template lookup that knows no variant."""
    return ()


STD_TEMPLATES: Mapping[str, Tuple[VariantInfo, ...]] = MappingProxyType(
    {
        # std::io::Error's Debug forms, which candle's transparent ``Io`` variant shows.
        "Os": (VariantInfo("rust-lang/rust", "io::Error", "Os", "struct",
                           (("code", False), ("kind", True), ("message", False)), "{message} (os error {code})", False),),
        "Custom": (VariantInfo("rust-lang/rust", "io::Error", "Custom", "struct",
                               (("kind", True), ("error", False)), "{error}", False),),
        "Error": (VariantInfo("rust-lang/rust", "io::Error", "Error", "struct",
                              (("kind", True), ("message", False)), "{message}", False),),
    }
)
"""Display templates of std types whose Debug form reaches Python inside candle errors."""


def with_std(templates: Templates) -> Templates:
    """``templates`` plus the std fallbacks, used only when the dataset knows no variant."""

    def lookup(name: str) -> Sequence[VariantInfo]:
        return templates(name) or STD_TEMPLATES.get(name, ())

    return lookup




def render_display(
    template: str, values: Mapping[str, Value], templates: Templates, depth: int = 0,
    enums: Mapping[str, Optional[str]] = _EMPTY,
) -> Optional[str]:
    """Rebuild a thiserror/Display message from ``template`` and the Debug field values.

    ``{f}`` takes the value's Display (a string unquoted, a nested variant rebuilt in turn),
    ``{f:?}`` keeps its Debug text.  None when a placeholder names an unknown field.
    ``enums``: field name -> the enum its type names, to read a nested variant with.
    """
    out: List[str] = []
    for literal, name, debug in _template_parts(template):
        if name is None:
            out.append(literal)
            continue
        value = values.get(name)
        if value is None:
            return None
        out.append(value.raw if debug else display_of(value, templates, depth + 1, want=enums.get(name)))
    return "".join(out)


_PARTS: Dict[str, Tuple[Tuple[str, Optional[str], bool], ...]] = {}
_MAX_PARTS = 4096


def _template_parts(template: str) -> Tuple[Tuple[str, Optional[str], bool], ...]:
    """``template`` split once into (literal text, None, False) and (\"\", field name,
    Debug?) parts, positional ``{}`` numbered; cached per template (a record's text, not a
    message): every Debug form of the same variant re-reads the same template."""
    parts = _PARTS.get(template)
    if parts is not None:
        return parts
    pieces = rustfmt.parse(template)
    out = [
        (piece, None, False) if name is None else ("", name, piece.debug)  # type: ignore[union-attr]
        for piece, name in zip(pieces, rustfmt.field_names(pieces))
    ]
    parts = tuple(out)
    if len(_PARTS) < _MAX_PARTS:
        _PARTS[template] = parts
    return parts


def _compatible(info: VariantInfo, value: Value) -> bool:
    shape = value.shape if value.kind == "variant" else "unit"
    if info.shape != shape:
        return False
    if not info.fields:
        return True
    names = {name for name, _ in info.fields}
    if shape == "struct":
        return {k for k, _ in value.fields} <= names
    if shape == "tuple":
        return len(value.items) == len(info.fields)
    return True


_ENUMS: Dict[VariantInfo, Mapping[str, Optional[str]]] = {}


def _enums(info: VariantInfo) -> Mapping[str, Optional[str]]:
    """Field name -> enum its type names; cached per template (read on every rebuild)."""
    if not info.types:
        return _EMPTY
    try:
        found = _ENUMS.get(info)
    except TypeError:  # a hand-built template with list fields: not hashable, not cached
        return {name: info.field_enum(name) for name, _ in info.fields}
    if found is None:
        found = {name: info.field_enum(name) for name, _ in info.fields}
        if len(_ENUMS) < _MAX_PARTS:
            _ENUMS[info] = found
    return found


def renderings(
    value: Value, templates: Templates, depth: int = 0, nested: bool = False, want: Optional[str] = None,
) -> List[Tuple[str, VariantInfo]]:
    """Distinct Display texts of a variant value, one per compatible known template.

    At the top, a main ``Error`` enum's template comes first: what a binding raises is its
    crate's ``Error`` (candle-core's ``UnsupportedDTypeForOp``), while a same-named variant of
    a helper enum (candle-metal-kernels' ``MetalKernelError``) reaches Python only nested.
    Nested in another error (``SafeTensor(TensorNotFound(..))``), a dependency crate's
    template comes first: wrappers carry foreign errors, not another binding's. ``want``
    (the enum the enclosing field's Rust type names, ``SafeTensorError``) comes before both.
    """
    if depth > MAX_VARIANT_DEPTH:
        return []
    name = value.name if value.kind == "variant" else value.text
    out: List[Tuple[str, VariantInfo]] = []
    seen = set()
    if nested:
        order = sorted(templates(name), key=lambda info: (info.enum != want, info.repo in BINDING_REPOS, info.enum != "Error"))
    else:
        order = sorted(templates(name), key=lambda info: (info.enum != want, info.enum != "Error"))
    values = value.named_values()
    for info in order:
        if not _compatible(info, value):
            continue
        text: Optional[str] = None
        if info.transparent and len(values) == 1:
            field, inner = next(iter(values.items()))
            text = display_of(inner, templates, depth + 1, want=info.field_enum(field))
        elif info.display is not None:
            text = render_display(info.display, values, templates, depth, _enums(info))
        elif nested:
            # no Display template: the enum's Display prints its Debug (safetensors < 0.7), so
            # the nested Debug text is this variant's message
            text = value.raw
        if text is not None and text not in seen:
            seen.add(text)
            out.append((text, info))
        if len(out) >= MAX_RENDERINGS:
            break
    return out


def display_of(value: Value, templates: Templates, depth: int = 0, want: Optional[str] = None) -> str:
    """What ``{value}`` prints: strings unquoted, known variants rebuilt, the rest as Debug."""
    if value.kind in ("str", "char") or (value.kind == "atom" and want is None):
        return value.text  # a bare name is data (``I64``) unless a field type says it is an error
    if value.is_variant and depth <= MAX_VARIANT_DEPTH:
        found = renderings(value, templates, depth, nested=True, want=want)
        if found:
            return found[0][0]
        if value.kind == "variant" and value.shape == "tuple" and len(value.items) == 1:
            if value.items[0].kind == "str":
                return value.items[0].text  # Msg("..")-like wrappers print their payload
    return value.raw
