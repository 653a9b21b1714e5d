"""Index ranges: candle ``narrow`` (``NarrowInvalidArgs``), ``index_select``/``Embedding``
(``InvalidIndex``) and ``gather`` (``ShapeMismatchBinaryOp`` with ``op: "gather"``)."""

from __future__ import annotations

import ast

from typing import Optional

from errhint.advice import callsite
from errhint.advice.base import Advice, Context, const_int
from errhint.advice.values import fmt


def advise(ctx: Context) -> Optional[Advice]:
    if ctx.repo != "huggingface/candle":
        return None
    if "start" in ctx.values and "len" in ctx.values:
        return _narrow(ctx)
    if "index" in ctx.values and "size" in ctx.values:
        return _index(ctx)
    if "is too large for tensor dimension" in ctx.message:
        return _get(ctx)
    if ctx.message.startswith("index out of range for dimension"):
        return _getitem(ctx)
    if ctx.op == "gather":
        return _gather(ctx)
    return None


def _narrow(ctx: Context) -> Optional[Advice]:
    shape, dim, start, length = ctx.shape("shape"), ctx.int("dim"), ctx.int("start"), ctx.int("len")
    if shape is None or dim is None or start is None or length is None or not 0 <= dim < len(shape):
        return None
    size = shape[dim]
    if start > size:
        return Advice(
            f"narrow starts at {start} on axis {dim}, which has only {size} elements ({fmt(shape)}).",
            f"Use a start between 0 and {size} on axis {dim}.", None, ctx.language)
    left = size - start
    cause = (f"narrow takes {length} elements from {start} on axis {dim} of {fmt(shape)}: "
             f"{start} + {length} = {start + length} is past the axis size {size}.")
    if left == 0:
        return Advice(cause, f"Nothing is left on axis {dim} after {start}; use a smaller start.", None, ctx.language)
    site = ctx.site
    call = callsite.failing_call(site, ("narrow",)) if site is not None and not site.deeper else None
    code = None
    if call is not None and len(call.args) == 3 and not call.keywords and const_int(call.args[2]) == length:
        args = ", ".join(ast.unparse(a) for a in call.args[:2])
        code = site.rewrite(f"{callsite.source(call.func.value)}.narrow({args}, {left})")
    fix = (f"At most {left} elements are left after {start}: "
           f"{ctx.code(f'x.narrow({dim}, {start}, {left})', f'x.narrow({dim}, {start}, {left})?')} "
           f"gives axis {dim} a size of {left}.")
    return Advice(cause, fix, code, ctx.language)


def _index(ctx: Context) -> Optional[Advice]:
    index, size = ctx.int("index"), ctx.int("size")
    if index is None or size is None:
        return None
    op = ctx.op or "the lookup"
    embedding = ctx.site is not None and any(".sparse." in d or "Embedding" in d or "embedding" in d for d in ctx.site.deeper)
    cause = (f"{op} got index {index} for an axis of size {size}: valid indices are 0 to {size - 1}"
             if size else f"{op} got index {index} for an empty axis")
    if embedding:
        fix = (f"The embedding table has {size} rows: every id must be below {size}; ids up to {index} "
               f"need `candle.nn.Embedding({index + 1}, embedding_dim)` or more rows.")
    else:
        other = _other_axis(ctx, index)
        if other is not None:
            axis, length, code = other
            return Advice(
                cause + ".",
                f"Axis {axis} (size {length}) is the only axis where index {index} fits: if you meant it, "
                f"select along axis {axis}; otherwise keep every index below {size}.", code, ctx.language)
        fix = f"Keep every index below {size} (or select from an axis with more than {index} elements)."
    return Advice(cause + ".", fix, None, ctx.language)


def _other_axis(ctx: Context, index: int) -> Optional[tuple]:
    """For ``x.index_select(ids, d)`` with ``x`` a named tensor and ``d`` an int literal: the one
    other axis long enough for ``index`` as ``(axis, size, fix code)``; None when there is no such
    axis or more than one."""
    site = ctx.site
    call = callsite.failing_call(site, ("index_select",)) if site is not None and not site.deeper else None
    if call is None or len(call.args) != 2 or call.keywords or const_int(call.args[1]) is None:
        return None
    shape = site.tensor_shape(call.func.value)
    dim = const_int(call.args[1])
    if shape is None or not -len(shape) <= dim < len(shape):
        return None
    dim %= len(shape)
    fits = [i for i, n in enumerate(shape) if i != dim and n > index]
    if len(fits) != 1:
        return None
    axis = fits[0]
    code = site.rewrite(f"{callsite.source(call.func.value)}.index_select({callsite.source(call.args[0])}, {axis})")
    return axis, shape[axis], code


def _get(ctx: Context) -> Optional[Advice]:
    """candle-pyo3 ``actual_index``: ``index {index} is too large for tensor dimension {dim}``,
    where ``dim`` is the size of the indexed axis (``x.get(i)`` indexes axis 0)."""
    index, size = ctx.int("index"), ctx.int("dim")
    if index is None or size is None or size <= 0:
        return None
    cause = f"Index {index} is past the end of an axis of size {size}: valid indices are 0 to {size - 1}, or -{size} to -1."
    site = ctx.site
    call = callsite.failing_call(site, ("get",)) if site is not None and not site.deeper else None
    code = None
    if call is not None and len(call.args) == 1 and const_int(call.args[0]) == index:
        code = site.rewrite(f"{callsite.source(call.func.value)}.get({size - 1})")
    return Advice(cause, f"If you meant the last element, use {size - 1} (or -1).", code, ctx.language)


def _getitem(ctx: Context) -> Optional[Advice]:
    """candle-pyo3 ``__getitem__``: ``index out of range for dimension '{current_dim}' with
    indexer '{index}'``; the axis size is read from the indexed tensor when it is a name."""
    dim, index = ctx.int("current_dim"), ctx.int("index")
    if dim is None or index is None:
        return None
    site = ctx.site
    node = site.node if site is not None and not site.deeper else None
    shape = site.tensor_shape(node.value) if isinstance(node, ast.Subscript) else None
    if shape is None or not 0 <= dim < len(shape):
        return Advice(f"Index {index} is out of range on axis {dim} of the indexed tensor.",
                      f"Keep the index below the size of axis {dim} (`t.shape[{dim}]`).", None, ctx.language)
    size = shape[dim]
    cause = (f"Index {index} is out of range on axis {dim}, which has size {size} ({fmt(shape)}): "
             f"valid indices are 0 to {size - 1}, or -{size} to -1.")
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    code = None
    if dim < len(parts) and const_int(parts[dim]) == index and size > 0:
        texts = [ast.unparse(p) for p in parts]
        texts[dim] = str(size - 1)
        inner = texts[0] if len(texts) == 1 else ", ".join(texts)
        code = site.rewrite(f"{callsite.source(node.value)}[{inner}]")
    return Advice(cause, f"If you meant the last element, use {size - 1} (or -1).", code, ctx.language)


def _gather(ctx: Context) -> Optional[Advice]:
    src, idx = ctx.shape("lhs"), ctx.shape("rhs")
    if src is None or idx is None:
        return None
    if len(src) != len(idx):
        return ctx.says(f"gather needs an index tensor of the same rank as the source: {fmt(src)} is "
                        f"{len(src)}-D, the index {fmt(idx)} is {len(idx)}-D.",
                        "Add the missing axis to the index (`idx.unsqueeze(dim)` for the gathered axis).")
    site = ctx.site
    call = callsite.failing_call(site, ("gather",)) if site is not None and not site.deeper else None
    dim = const_int(call.args[1]) if call is not None and len(call.args) == 2 else None
    if dim is not None and dim < 0:
        dim += len(src)
    differ = [i for i, (a, b) in enumerate(zip(src, idx)) if a != b and i != dim]
    if dim is None or not differ:
        return Advice(
            f"In candle 0.4.2, gather's index {fmt(idx)} must match the source {fmt(src)} on every axis "
            f"but the gathered one.", "Give the index the source's size on every other axis.", None, ctx.language)
    want = [src[i] if i != dim else idx[i] for i in range(len(src))]
    return Advice(
        f"In candle 0.4.2, gather's index must match the source {fmt(src)} on every axis but {dim}: "
        f"the index {fmt(idx)} differs on axis {', '.join(str(i) for i in differ)}.",
        f"Give the index shape {fmt(want)} (one row of indices per source row).", None, ctx.language)
