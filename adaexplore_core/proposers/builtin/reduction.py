"""Reduction kernels: row kernels (a looped one for long rows, a tile one for many short rows), a strided
kernel for reductions over middle dims, and the fusion of a pointwise prologue into the row kernels."""
from __future__ import annotations

import re
import textwrap
from typing import Any

from torch import fx

from .ops import lit, reduced_dims
from .plan import Kernel, Plan, external_inputs, row_statistic, self_path, tensor_meta
from .pointwise import pointwise_body, pointwise_inputs_prep, prologue_function, prologue_prep
from .rowwise import row_statistic_kernel
from .text import describe_node, render, shape_of

_REDUCTION_BODIES = {
    # one program per row of n_cols contiguous elements; fp32 accumulation in BLOCK_SIZE lanes
    "sum": ("acc = tl.zeros([BLOCK_SIZE], tl.float32)\n"
            "for start in range(0, n_cols, BLOCK_SIZE):\n"
            "    x = tl.load(x_row + start + offs, mask=start + offs < n_cols, other=0.0).to(tl.float32)\n"
            "    acc += x\n"
            "tl.store(out_ptr + row, tl.sum(acc, axis=0))"),
    "mean": ("acc = tl.zeros([BLOCK_SIZE], tl.float32)\n"
             "for start in range(0, n_cols, BLOCK_SIZE):\n"
             "    x = tl.load(x_row + start + offs, mask=start + offs < n_cols, other=0.0).to(tl.float32)\n"
             "    acc += x\n"
             "tl.store(out_ptr + row, tl.sum(acc, axis=0) / n_cols)"),
    # amax / amin: a NaN anywhere in the row gives NaN, as in torch
    "amax": ("acc = tl.full([BLOCK_SIZE], float('-inf'), tl.float32)\n"
             "for start in range(0, n_cols, BLOCK_SIZE):\n"
             "    x = tl.load(x_row + start + offs, mask=start + offs < n_cols, other=float('-inf')).to(tl.float32)\n"
             "    acc = tl.maximum(acc, x, propagate_nan=tl.PropagateNan.ALL)\n"
             "has_nan = tl.max((acc != acc).to(tl.int32), axis=0) > 0\n"
             "tl.store(out_ptr + row, tl.where(has_nan, float('nan'), tl.max(acc, axis=0)))"),
    "amin": ("acc = tl.full([BLOCK_SIZE], float('inf'), tl.float32)\n"
             "for start in range(0, n_cols, BLOCK_SIZE):\n"
             "    x = tl.load(x_row + start + offs, mask=start + offs < n_cols, other=float('inf')).to(tl.float32)\n"
             "    acc = tl.minimum(acc, x, propagate_nan=tl.PropagateNan.ALL)\n"
             "has_nan = tl.max((acc != acc).to(tl.int32), axis=0) > 0\n"
             "tl.store(out_ptr + row, tl.where(has_nan, float('nan'), tl.min(acc, axis=0)))"),
}
# The online log-sum-exp of one row (x_row, n_cols elements): row_max and row_sum of exp(x - row_max). Also
# the first pass of the cross-entropy kernel (loss.py).
ONLINE_MAX_SUM = (
    "m = tl.full([BLOCK_SIZE], float('-inf'), tl.float32)   # running max per lane\n"
    "s = tl.zeros([BLOCK_SIZE], tl.float32)                  # running sum of exp(x - m) per lane\n"
    "for start in range(0, n_cols, BLOCK_SIZE):\n"
    "    mask = start + offs < n_cols\n"
    "    x = tl.load(x_row + start + offs, mask=mask, other=float('-inf')).to(tl.float32)\n"
    "    m_new = tl.maximum(m, x)\n"
    "    s = s * tl.exp(tl.where(m == m_new, 0.0, m - m_new)) + tl.where(x == float('-inf'), 0.0, tl.exp(x - m_new))\n"
    "    m = m_new\n"
    "row_max = tl.max(m, axis=0)\n"
    "row_sum = tl.sum(s * tl.exp(tl.where(m == float('-inf'), float('-inf'), m - row_max)), axis=0)\n"
)
_REDUCTION_BODIES["logsumexp"] = ONLINE_MAX_SUM + "tl.store(out_ptr + row, row_max + tl.log(row_sum))"
_ROW_WRITE = (
    "for start in range(0, n_cols, BLOCK_SIZE):\n"
    "    mask = start + offs < n_cols\n"
    "    x = tl.load(x_row + start + offs, mask=mask, other=0.0).to(tl.float32)\n"
    "    tl.store(out_row + start + offs, ({value}).to(out_ptr.dtype.element_ty), mask=mask)"
)
_REDUCTION_BODIES["softmax"] = ONLINE_MAX_SUM + "inv = 1.0 / row_sum\n" + \
    _ROW_WRITE.format(value="tl.exp(x - row_max) * inv")
_REDUCTION_BODIES["log_softmax"] = ONLINE_MAX_SUM + "log_sum = tl.log(row_sum)\n" + \
    _ROW_WRITE.format(value="x - row_max - log_sum")
# Statistics of x - pivot, the pivot being the mean of the row's first block: far from zero (x = 3000 + noise)
# neither the sum nor the mean is rounded at x's own scale, and x - pivot is exact (Sterbenz).
_REDUCTION_BODIES["layer_norm"] = (
    "pivot = tl.sum(tl.load(x_row + offs, mask=offs < n_cols, other=0.0).to(tl.float32), axis=0) "
    "/ tl.minimum(n_cols, BLOCK_SIZE)\n"
    "acc = tl.zeros([BLOCK_SIZE], tl.float32)\n"
    "for start in range(0, n_cols, BLOCK_SIZE):\n"
    "    mask = start + offs < n_cols\n"
    "    x = tl.load(x_row + start + offs, mask=mask, other=0.0).to(tl.float32)\n"
    "    acc += tl.where(mask, x - pivot, 0.0)\n"
    "mean = tl.sum(acc, axis=0) / n_cols     # the mean of x - pivot\n"
    "acc = tl.zeros([BLOCK_SIZE], tl.float32)   # second pass: variance around the mean (no cancellation)\n"
    "for start in range(0, n_cols, BLOCK_SIZE):\n"
    "    mask = start + offs < n_cols\n"
    "    x = tl.load(x_row + start + offs, mask=mask, other=0.0).to(tl.float32)\n"
    "    d = tl.where(mask, (x - pivot) - mean, 0.0)\n"
    "    acc += d * d\n"
    "rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)\n"
    + _ROW_WRITE.format(value="((x - pivot) - mean) * rstd * {weight} + {bias}")
)
_REDUCTION_BODIES["group_norm"] = _REDUCTION_BODIES["layer_norm"]    # same statistics, other affine indexing
_REDUCTION_BODIES["cumsum"] = (
    "carry = tl.zeros([BLOCK_SIZE], tl.float32)   # the sum of the row before this block, in every lane\n"
    "for start in range(0, n_cols, BLOCK_SIZE):\n"
    "    mask = start + offs < n_cols\n"
    "    x = tl.load(x_row + start + offs, mask=mask, other=0.0).to(tl.float32)\n"
    "    y = tl.cumsum(x, axis=0) + carry\n"
    "    carry += tl.sum(x, axis=0)\n"
    "    tl.store(out_row + start + offs, (y).to(out_ptr.dtype.element_ty), mask=mask)"
)
# argmax / argmin: the index of the first extreme value, a NaN counting as the extreme (as in torch). Each
# lane keeps its first best value and index; then the row's first index among the lanes holding the best.
_ARG_LOOP = (
    "best = tl.full([BLOCK_SIZE], {init}, tl.float32)\n"
    "best_i = tl.zeros([BLOCK_SIZE], tl.int64) + n_cols        # n_cols: nothing taken yet\n"
    "for start in range(0, n_cols, BLOCK_SIZE):\n"
    "    mask = start + offs < n_cols\n"
    "    x = tl.load(x_row + start + offs, mask=mask, other={init}).to(tl.float32)\n"
    "    take = mask & ((best_i == n_cols) | (x {cmp} best) | ((x != x) & (best == best)))\n"
    "    best = tl.where(take, x, best)\n"
    "    best_i = tl.where(take, (start + offs).to(tl.int64), best_i)\n"
    "nan = best != best\n"
    "has_nan = tl.max(nan.to(tl.int32), axis=0) > 0\n"
    "row_best = tl.{reduce}(tl.where(nan, {init}, best), axis=0)\n"
    "winner = tl.where(has_nan, nan, (best == row_best) & (best_i < n_cols))\n"
    "tl.store(out_ptr + row, tl.min(tl.where(winner, best_i, n_cols), axis=0))"
)
_REDUCTION_BODIES["argmax"] = _ARG_LOOP.format(init="float('-inf')", cmp=">", reduce="max")
_REDUCTION_BODIES["argmin"] = _ARG_LOOP.format(init="float('inf')", cmp="<", reduce="min")
_FULL_OUTPUT = {"softmax", "log_softmax", "layer_norm", "group_norm", "cumsum"}
_NORMS = {"layer_norm", "group_norm"}


# Short rows: a [BLOCK_ROWS, BLOCK_COLS] tile per program, the whole row in registers, one read.
_TILE_BODIES = {
    "sum": ("x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)", "tl.sum(x, axis=1)"),
    "mean": ("x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)", "tl.sum(x, axis=1) / n_cols"),
    "amax": ("x = tl.load(ptrs, mask=mask, other=float('-inf')).to(tl.float32)",
             "tl.where(tl.max((x != x).to(tl.int32), axis=1) > 0, float('nan'), tl.max(x, axis=1))"),
    "amin": ("x = tl.load(ptrs, mask=mask, other=float('inf')).to(tl.float32)",
             "tl.where(tl.max((x != x).to(tl.int32), axis=1) > 0, float('nan'), tl.min(x, axis=1))"),
}
_ARG_TILE = ("x = tl.load(ptrs, mask=mask, other={init}).to(tl.float32)\n"
             "nan = (x != x) & mask\n"
             "has_nan = tl.max(nan.to(tl.int32), axis=1) > 0\n"
             "row_best = tl.{reduce}(tl.where(nan, {init}, x), axis=1)\n"
             "winner = tl.where(has_nan[:, None], nan, mask & (x == row_best[:, None]))\n"
             "index = tl.min(tl.where(winner, cols[None, :], n_cols), axis=1)")
_TILE_BODIES["argmax"] = (_ARG_TILE.format(init="float('-inf')", reduce="max"), "index")
_TILE_BODIES["argmin"] = (_ARG_TILE.format(init="float('inf')", reduce="min"), "index")
_TILE_EXP = ("x = tl.load(ptrs, mask=mask, other=float('-inf')).to(tl.float32)\n"
             "m = tl.max(x, axis=1)\n"
             "m = tl.where(m == float('-inf'), 0.0, m)   # rows of -inf (and padding rows) stay finite\n"
             "e = tl.exp(x - m[:, None])\n"
             "s = tl.sum(e, axis=1)\n")
_TILE_BODIES["logsumexp"] = (_TILE_EXP, "m + tl.log(s)")
_TILE_FULL = {
    "softmax": _TILE_EXP + "y = e / s[:, None]",
    "log_softmax": _TILE_EXP + "y = x - m[:, None] - tl.log(s)[:, None]",
    # each row shifted by its first element (as the looped kernel's pivot, for rows far from zero)
    "layer_norm": ("x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)\n"
                   "x = tl.where(mask, x - tl.sum(tl.where(cols[None, :] == 0, x, 0.0), axis=1)[:, None], 0.0)\n"
                   "mean = tl.sum(x, axis=1) / n_cols\n"
                   "d = tl.where(mask, x - mean[:, None], 0.0)\n"
                   "rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=1) / n_cols + eps)\n"
                   "y = d * rstd[:, None] * {weight} + {bias}"),
}
_TILE_FULL["group_norm"] = _TILE_FULL["layer_norm"]
_TILE_FULL["cumsum"] = "x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)\ny = tl.cumsum(x, axis=1)"
# Where a norm's weight and bias are read: by column (layer norm), or by the channel of the element (group
# norm: rows are (sample, group), columns run over the group's channels times the spatial positions).
_AFFINE_INDEX = {
    "layer_norm": ("start + offs", "cols[None, :]"),
    "group_norm": ("(row % groups) * cpg + (start + offs) // spatial",
                   "(rows % groups)[:, None] * cpg + cols[None, :] // spatial"),
}
TILE_MAX_COLS = 1024       # rows up to this length use the tile kernel
MIN_PROGRAMS = 512         # the strided kernel narrows its columns until it has this many programs (or 128)


# Reduced dims in the middle (softmax over channels of NCHW): x seen as (outer, n_red, n_inner), columns of
# BLOCK_INNER contiguous inner positions per program, a loop over the n_red rows: no transpose copy.
_MID_ONLINE = (
    "m = tl.full([BLOCK_INNER], float('-inf'), tl.float32)\n"
    "s = tl.zeros([BLOCK_INNER], tl.float32)\n"
    "for r in range(0, n_red):\n"
    "    x = tl.load(x_base + r * n_inner, mask=cmask, other=0.0).to(tl.float32)\n"
    "    m_new = tl.maximum(m, x)\n"
    "    s = s * tl.exp(tl.where(m == m_new, 0.0, m - m_new)) + tl.where(x == float('-inf'), 0.0, tl.exp(x - m_new))\n"
    "    m = m_new\n"
)
_MID_WRITE = (
    "for r in range(0, n_red):\n"
    "    x = tl.load(x_base + r * n_inner, mask=cmask, other=0.0).to(tl.float32)\n"
    "    tl.store(out_base + r * n_inner, ({value}).to(out_ptr.dtype.element_ty), mask=cmask)"
)
_MID_ACCUMULATE = (
    "acc = tl.full([BLOCK_INNER], {init}, tl.float32)\n"
    "for r in range(0, n_red):\n"
    "    x = tl.load(x_base + r * n_inner, mask=cmask, other=0.0).to(tl.float32)\n"
    "    acc = {update}\n"
    "tl.store(out_ptr + outer * n_inner + cols, ({result}).to(out_ptr.dtype.element_ty), mask=cmask)"
)
_ARG_MID = (    # one lane per column walks its n_red values in order: the first extreme (or NaN) wins
    "best = tl.full([BLOCK_INNER], {init}, tl.float32)\n"
    "best_i = tl.zeros([BLOCK_INNER], tl.int64)\n"
    "for r in range(0, n_red):\n"
    "    x = tl.load(x_base + r * n_inner, mask=cmask, other=0.0).to(tl.float32)\n"
    "    take = (r == 0) | (x {cmp} best) | ((x != x) & (best == best))\n"
    "    best = tl.where(take, x, best)\n"
    "    best_i = tl.where(take, r, best_i)\n"
    "tl.store(out_ptr + outer * n_inner + cols, best_i.to(out_ptr.dtype.element_ty), mask=cmask)"
)
_MID_BODIES = {
    "sum": _MID_ACCUMULATE.format(init="0.0", update="acc + x", result="acc"),
    "mean": _MID_ACCUMULATE.format(init="0.0", update="acc + x", result="acc / n_red"),
    "amax": _MID_ACCUMULATE.format(init="float('-inf')", result="acc",
                                   update="tl.maximum(acc, x, propagate_nan=tl.PropagateNan.ALL)"),
    "amin": _MID_ACCUMULATE.format(init="float('inf')", result="acc",
                                   update="tl.minimum(acc, x, propagate_nan=tl.PropagateNan.ALL)"),
    "logsumexp": _MID_ONLINE + "tl.store(out_ptr + outer * n_inner + cols, (m + tl.log(s)).to("
                               "out_ptr.dtype.element_ty), mask=cmask)",
    "softmax": _MID_ONLINE + "inv = 1.0 / s\n" + _MID_WRITE.format(value="tl.exp(x - m) * inv"),
    "log_softmax": _MID_ONLINE + "log_s = tl.log(s)\n" + _MID_WRITE.format(value="x - m - log_s"),
    "argmax": _ARG_MID.format(init="float('-inf')", cmp=">"),
    "argmin": _ARG_MID.format(init="float('inf')", cmp="<"),
    "cumsum": ("acc = tl.zeros([BLOCK_INNER], tl.float32)\n"
               "for r in range(0, n_red):\n"
               "    acc += tl.load(x_base + r * n_inner, mask=cmask, other=0.0).to(tl.float32)\n"
               "    tl.store(out_base + r * n_inner, acc.to(out_ptr.dtype.element_ty), mask=cmask)"),
}


def reduction_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    """Reduced dims in the middle: one strided kernel. Otherwise a looped kernel (one program per row, any
    length) and a tile kernel (many short rows per program), picked by the row length at run time. A sum or
    mean with ops after it that read it back at every element: rowwise.py."""
    if row_statistic(kernel, plan.ops) is not None:
        return row_statistic_kernel(kernel, plan, knobs)
    node = reduction_node(kernel, plan)   # fused pointwise prologue nodes come before it, epilogue nodes after
    op = plan.ops[node]
    x = next(a for a in op.tensor_args if isinstance(a, fx.Node))
    rank = len(shape_of(x))
    name = kernel.name
    kind = op.reduction
    dims = reduced_dims(op, rank)
    if kind in _MID_BODIES and dims and dims[-1] < rank - 1 and list(dims) == list(range(dims[0], dims[-1] + 1)):
        return middle_reduction_kernel(kernel, plan, knobs, dims)
    keep = [d for d in range(rank) if d not in dims]
    perm = keep + list(dims)
    full = kind in _FULL_OUTPUT
    loop_body = _REDUCTION_BODIES[kind]
    tile_body = _TILE_FULL[kind] if full else _TILE_BODIES[kind][0]
    extra_params: list[str] = []
    args = [x.name]
    if kind in _NORMS:
        weight, bias = _layer_norm_affine(op, plan)
        at_loop, at_tile = _AFFINE_INDEX[kind]
        for key, ptr, expr in (("{weight}", "w_ptr", weight), ("{bias}", "b_ptr", bias)):
            default = "1.0" if key == "{weight}" else "0.0"
            loop_body = loop_body.replace(key, f"tl.load({ptr} + {at_loop}, mask=mask, other=0.0)" if expr
                                          else default)
            tile_body = tile_body.replace(key, f"tl.load({ptr} + {at_tile}, mask=mask, other=0.0)" if expr
                                          else default)
            if expr:
                extra_params.append(ptr)
                args.append(expr)
        if kind == "group_norm":
            extra_params += ["spatial", "cpg", "groups"]
        extra_params.append("eps")
    if full:
        tile_store = "tl.store(out_ptr + offs2d, y.to(out_ptr.dtype.element_ty), mask=mask)"
    else:
        tile_store = (f"tl.store(out_ptr + rows, ({_TILE_BODIES[kind][1]}).to(out_ptr.dtype.element_ty), "
                      "mask=rows < n_rows)")
    what = f"{describe_node(node, plan)} over dims {list(dims)}"
    loop_src = (
        "@triton.jit\n"
        f"def {name}_kernel({', '.join(['x_ptr', 'out_ptr', 'n_cols'] + extra_params)}, BLOCK_SIZE: tl.constexpr):\n"
        f"    # {what}: one program per row of n_cols elements, BLOCK_SIZE at a time\n"
        "    row = tl.program_id(0).to(tl.int64)\n"
        "    x_row = x_ptr + row * n_cols\n"
        + ("    out_row = out_ptr + row * n_cols\n" if full else "")
        + "    offs = tl.arange(0, BLOCK_SIZE)\n"
        + textwrap.indent(loop_body, "    ") + "\n"
    )
    tile_src = (
        "@triton.jit\n"
        f"def {name}_rows_kernel({', '.join(['x_ptr', 'out_ptr', 'n_rows', 'n_cols'] + extra_params)}, "
        "BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):\n"
        f"    # {what}: BLOCK_ROWS whole rows per program (n_cols <= BLOCK_COLS)\n"
        "    rows = tl.program_id(0).to(tl.int64) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)\n"
        "    cols = tl.arange(0, BLOCK_COLS)\n"
        "    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)\n"
        "    offs2d = rows[:, None] * n_cols + cols[None, :]\n"
        "    ptrs = x_ptr + offs2d\n"
        + textwrap.indent(tile_body, "    ") + "\n"
        f"    {tile_store}\n"
    )
    lp = ["x"] + [p.replace("_ptr", "") for p in extra_params if p.endswith("_ptr")]
    identity_perm = perm == list(range(rank))
    out_dtype = str(tensor_meta(node).dtype)
    out_shape = "xt.shape" if full else "n_rows"
    tensors_after = [f"{p}.contiguous().reshape(-1)" for p in lp[1:]] + \
        (["spatial", "cpg", "groups"] if kind == "group_norm" else []) + \
        ([lit(op.extra.get("eps", 1e-5))] if kind in _NORMS else [])
    tail = (", " + ", ".join(tensors_after)) if tensors_after else ""
    lines = [f"def {name}({', '.join(lp)}):",
             f"    assert x.dim() == {rank}, 'rank differs from the traced model'",
             f"    xt = x{'' if identity_perm else f'.permute({perm})'}.contiguous()"]
    if kind == "group_norm":
        groups = op.extra.get("groups")
        lines += [f"    groups = {groups if groups is not None else 'x.shape[1]   # instance norm: one group per channel'}",
                  "    spatial = x.numel() // max(x.shape[0] * x.shape[1], 1)",
                  "    cpg = x.shape[1] // groups",
                  "    n_cols = cpg * spatial",
                  "    n_rows = x.shape[0] * groups"]
    else:
        lines += [f"    n_cols = {' * '.join(f'x.shape[{d}]' for d in dims) or '1'}",
                  "    n_rows = xt.numel() // max(n_cols, 1)"]
    lines += [
             f"    out = torch.empty({out_shape}, device=x.device, dtype={out_dtype})",
             f"    if n_cols <= {TILE_MAX_COLS}:",
             "        block_cols = triton.next_power_of_2(max(n_cols, 1))",
             f"        block_rows = max(1, min(64, {knobs['TILE']} // block_cols))",
             "        grid = (triton.cdiv(n_rows, block_rows),)",
             f"        {name}_rows_kernel[grid](xt, out, n_rows, n_cols{tail}, BLOCK_ROWS=block_rows, "
             f"BLOCK_COLS=block_cols, num_warps={knobs['num_warps']})",
             "    else:",
             f"        block = min({knobs['BLOCK_SIZE']}, triton.next_power_of_2(n_cols))",
             f"        {name}_kernel[(n_rows,)](xt, out, n_cols{tail}, BLOCK_SIZE=block, num_warps={knobs['num_warps']})"]
    if full:
        inverse = [perm.index(d) for d in range(rank)]
        lines.append("    return out" + ("" if identity_perm else f".permute({inverse})"))
    else:
        kept = [f"x.shape[{d}]" for d in keep]
        if op.keepdim:
            kept = [f"x.shape[{d}]" if d in keep else "1" for d in range(rank)]
        shape = "(" + ", ".join(kept) + ("," if len(kept) == 1 else "") + ")"
        lines.append(f"    return out.reshape({shape})")
    helpers = []
    position = kernel.nodes.index(node)
    if position < len(kernel.nodes) - 1:
        epilogue, loop_src, tile_src, lines, args = _with_epilogue(kernel, plan, node, loop_src, tile_src, lines,
                                                                   args)
        helpers.append(epilogue)
    if position > 0:
        return _with_prologue(kernel, plan, x, loop_src, tile_src, lines, args, helpers)
    return "\n\n".join(helpers + [loop_src, tile_src, "\n".join(lines)]), args


def reduction_node(kernel: Kernel, plan: Plan) -> fx.Node:
    return next(n for n in kernel.nodes if plan.ops[n].kind == "reduction")


_ROW_STORE = re.compile(r"tl\.store\(out_row \+ start \+ offs, \((.+)\)\.to\(out_ptr\.dtype\.element_ty\), mask=mask\)")


def _with_epilogue(kernel: Kernel, plan: Plan, red: fx.Node, loop_src: str, tile_src: str, lines: list[str],
                   args: list[str]) -> tuple[str, str, str, list[str], list[str]]:
    """Apply the pointwise ops after a full-output reduction (softmax, norms) to each value before it is
    stored: the reduction's own output never hits memory."""
    name = kernel.name
    members = kernel.nodes[kernel.nodes.index(red) + 1:]
    inputs = external_inputs(members, also_skip=red, ops=plan.ops)
    rank = len(shape_of(red))
    pw = pointwise_body(members, inputs, {}, shape_of(red), plan, prefix="ep", var="e", given={red: "y"}, ix="ep_")
    params = pw.params() + pw.index_params()
    comment = "\n".join(f"    # {describe_node(n, plan)}" for n in members)
    epilogue = (
        "@triton.jit\n"
        f"def {name}_epilogue(y, offs, mask{''.join(', ' + p for p in params)}):\n"
        f"{comment}\n"
        + "".join(f"    {line}\n" for line in pw.lines)
        + f"    return {pw.value_of[members[-1]]}\n"
    )
    tail = "".join(", " + p for p in params)
    noted = "".join(f"    # {describe_node(n, plan)}   (epilogue: applied before each store)\n" for n in members)
    loop_src, tile_src = (src.replace("):\n", "):\n" + noted, 1) for src in (loop_src, tile_src))
    loop_src = loop_src.replace(", BLOCK_SIZE: tl.constexpr):", f"{tail}, BLOCK_SIZE: tl.constexpr):", 1)
    loop_src = _ROW_STORE.sub(lambda m: f"tl.store(out_row + start + offs, {name}_epilogue(({m.group(1)}), "
                                        f"row * n_cols + start + offs, mask{tail}).to(out_ptr.dtype.element_ty), "
                                        "mask=mask)", loop_src)
    tile_src = tile_src.replace(", BLOCK_ROWS: tl.constexpr,", f"{tail}, BLOCK_ROWS: tl.constexpr,", 1)
    tile_src = tile_src.replace("tl.store(out_ptr + offs2d, y.to(", f"tl.store(out_ptr + offs2d, {name}_epilogue("
                                f"y, offs2d, mask{tail}).to(", 1)
    assert f"{name}_epilogue(" in loop_src and f"{name}_epilogue(" in tile_src, "a store was not replaced"
    e = pw.launcher_names()
    call_tail = "".join(", " + v for v in e) + "".join(", " + v.replace("inner[", "ep_inner[")
                                                       for v in pw.index_args())
    head = lines[0].replace("):", f"{''.join(', ' + v for v in e)}):", 1)
    prep = ["    shape = x.shape"] + pointwise_inputs_prep(pw, rank, "x.device", keep_layout=False) + \
        [f"    ep_inner = inner_sizes(shape, list(range({rank})))"]
    body = []
    for line in lines[1:]:
        line = line.replace(", BLOCK_ROWS=block_rows", f"{call_tail}, BLOCK_ROWS=block_rows", 1)
        body.append(line.replace(", BLOCK_SIZE=block", f"{call_tail}, BLOCK_SIZE=block", 1))
    lines = [head] + body[:1] + prep + body[1:]
    return epilogue, loop_src, tile_src, lines, args + [t[1] for t in pw.tensors]


_LOOP_LOAD = re.compile(r"tl\.load\(x_row \+ (start \+ )?offs, mask=(.+?), other=(0\.0|float\('-?inf'\))\)")
_TILE_LOAD = re.compile(r"tl\.load\(ptrs, mask=mask, other=(0\.0|float\('-?inf'\))\)")


def _with_prologue(kernel: Kernel, plan: Plan, x: fx.Node, loop_src: str, tile_src: str, lines: list[str],
                   args: list[str], helpers: list[str]) -> tuple[str, list[str]]:
    """Compute the reduction's input inside the reduction kernels: every read of x becomes a call of a
    device function that loads the prologue's inputs and applies its pointwise ops (x never hits memory)."""
    name = kernel.name
    members = kernel.nodes[:kernel.nodes.index(reduction_node(kernel, plan))]
    rank = len(shape_of(x))
    pw, prologue = prologue_function(name, members, x, plan)
    params = ", ".join(pw.params() + pw.index_params())
    noted = "".join(f"    # {describe_node(n, plan)}   (prologue: computed at each read of x)\n" for n in members)
    loop_src, tile_src = (src.replace("):\n", "):\n" + noted, 1) for src in (loop_src, tile_src))
    loop_src = loop_src.replace("(x_ptr, ", f"({params}, ", 1).replace("    x_row = x_ptr + row * n_cols\n", "")
    loop_src = _LOOP_LOAD.sub(lambda m: f"{name}_prologue(row * n_cols + {m.group(1) or ''}offs, {m.group(2)}, "
                                        f"{m.group(3)}, {params})", loop_src)
    tile_src = tile_src.replace("(x_ptr, ", f"({params}, ", 1).replace("    ptrs = x_ptr + offs2d\n", "")
    tile_src = _TILE_LOAD.sub(lambda m: f"{name}_prologue(offs2d, mask, {m.group(1)}, {params})", tile_src)
    assert "x_ptr" not in loop_src + tile_src and "x_row" not in loop_src, "a read of x was not replaced"
    a = pw.launcher_names()
    call = ", ".join(a + pw.index_args())
    head = lines[0].replace(f"def {name}(x", f"def {name}({', '.join(a)}", 1)
    prep = prologue_prep(pw, rank) + [
        f"    x = a{pw.full.index(True)}    # the prologue's value has this input's shape (it is never stored)"]
    body = [line.replace("](xt, ", f"]({call}, ") for line in lines[1:]]
    launcher = "\n".join([head] + prep + body)
    return ("\n\n".join([prologue] + helpers + [loop_src, tile_src, launcher]),
            [t[1] for t in pw.tensors] + args[1:])


def middle_reduction_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int], dims: tuple[int, ...]
                            ) -> tuple[str, list[str]]:
    node = kernel.nodes[0]
    op = plan.ops[node]
    x = next(a for a in op.tensor_args if isinstance(a, fx.Node))
    rank = len(shape_of(x))
    name, kind = kernel.name, op.reduction
    full = kind in _FULL_OUTPUT
    first, last = dims[0], dims[-1]
    kernel_src = (
        "@triton.jit\n"
        f"def {name}_kernel(x_ptr, out_ptr, n_red, n_inner, n_col_blocks, BLOCK_INNER: tl.constexpr):\n"
        f"    # {describe_node(node, plan)} over dims {list(dims)}: x as (outer, n_red, n_inner); each program\n"
        "    # takes BLOCK_INNER contiguous inner positions of one outer index and walks the n_red rows\n"
        "    pid = tl.program_id(0).to(tl.int64)\n"
        "    outer = pid // n_col_blocks\n"
        "    cols = (pid % n_col_blocks) * BLOCK_INNER + tl.arange(0, BLOCK_INNER)\n"
        "    cmask = cols < n_inner\n"
        "    x_base = x_ptr + outer * n_red * n_inner + cols\n"
        + ("    out_base = out_ptr + outer * n_red * n_inner + cols\n" if full else "")
        + textwrap.indent(_MID_BODIES[kind], "    ") + "\n"
    )
    prod = lambda ds: " * ".join(f"x.shape[{d}]" for d in ds) or "1"  # noqa: E731
    kept = [f"x.shape[{d}]" for d in range(rank) if d not in dims]
    if op.keepdim:
        kept = [f"x.shape[{d}]" if d not in dims else "1" for d in range(rank)]
    out_shape = "x.shape" if full else "(" + ", ".join(kept) + ("," if len(kept) == 1 else "") + ")"
    lines = [f"def {name}(x):",
             f"    assert x.dim() == {rank}, 'rank differs from the traced model'",
             "    x = x.contiguous()",
             f"    n_outer, n_red, n_inner = {prod(range(first))}, {prod(dims)}, {prod(range(last + 1, rank))}",
             f"    out = torch.empty({out_shape}, device=x.device, dtype={tensor_meta(node).dtype})",
             f"    block = min({knobs['BLOCK_SIZE']}, triton.next_power_of_2(max(n_inner, 1)))",
             f"    while block > 128 and n_outer * triton.cdiv(n_inner, block) < {MIN_PROGRAMS}:",
             "        block //= 2                     # narrower columns, more programs: enough to fill the GPU",
             "    n_col_blocks = triton.cdiv(n_inner, block)",
             f"    {name}_kernel[(n_outer * n_col_blocks,)](x, out, n_red, n_inner, n_col_blocks, BLOCK_INNER=block, "
             f"num_warps={knobs['num_warps']})",
             "    return out"]
    return kernel_src + "\n\n" + "\n".join(lines), [x.name]


def _layer_norm_affine(op: Any, plan: Plan) -> tuple[str | None, str | None]:
    if "module" in op.extra:
        m = self_path(op.extra["module"])
        return (f"{m}.weight" if op.extra["affine"] else None,
                f"{m}.bias" if op.extra["affine"] and op.extra["has_bias"] else None)
    w, b = op.extra.get("weight"), op.extra.get("bias")
    return (render(w) if w is not None else None, render(b) if b is not None else None)
