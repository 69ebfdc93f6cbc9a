"""A row statistic and the pointwise ops around it in one kernel (plan.py ``_fuse_row_statistics``): RMSNorm's
upcast and square, the mean over the row, then rsqrt, the multiply, the downcast and the weight.

Rows of up to ROW_IN_REGISTERS elements are held in registers, BLOCK_ROWS rows per program: each element is
read once and each output written once. Longer rows take two passes over the row (the statistic, then the ops
after it), reading the input twice and still writing once.
"""
from __future__ import annotations

import re

import torch

from .ops import reduced_dims
from .plan import Kernel, Plan, external_inputs, row_statistic, tensor_meta
from .pointwise import pointwise_body, pointwise_inputs_prep
from .text import describe_node, shape_of

ROW_IN_REGISTERS = 8192


def row_statistic_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    """The kernels (whole rows in registers; two passes for long rows), the launcher, and its call arguments."""
    red = row_statistic(kernel, plan.ops)
    op = plan.ops[red]
    x = op.tensor_args[0]
    rank = len(shape_of(x))
    dims = reduced_dims(op, rank)
    split = kernel.nodes.index(red)
    before, after = kernel.nodes[:split], kernel.nodes[split + 1:]
    inputs = external_inputs(before + after, also_skip=red, ops=plan.ops)
    if x not in before and x not in inputs:
        inputs = [x] + inputs                  # the statistic of an input itself
    pw = pointwise_body(before + after, inputs, {}, shape_of(x), plan, given={red: "stat"})
    loads = pw.lines[:len(pw.lines) - len(before) - len(after)]
    computed_before = pw.lines[len(loads):len(loads) + len(before)]
    computed_after = pw.lines[len(loads) + len(before):]
    name = kernel.name
    stores = [f"tl.store(out{i}_ptr + offs, {pw.value_of[n]}.to(out{i}_ptr.dtype.element_ty), mask=mask)"
              for i, n in enumerate(kernel.outputs)]
    params = pw.params() + [f"out{i}_ptr" for i in range(len(kernel.outputs))]
    index = pw.index_params()
    value = pw.value_of[x]
    mean = " / n_cols" if op.reduction == "mean" else ""
    dtype = tensor_meta(red).dtype
    rounded = f".to(tl.{str(dtype).split('.')[-1]}).to(tl.float32)" if dtype in (torch.float16, torch.bfloat16) \
        else ""                                # the statistic as torch rounds it
    comment = "".join(f"    # {describe_node(n, plan)}\n" for n in kernel.nodes)
    what = f"{red.name} over dims {list(dims)}"

    def body(lines: list[str], indent: str) -> str:
        return "".join(f"{indent}{line}\n" for line in lines)

    first_pass = _used(loads + computed_before, value)
    second_pass = _used(loads + computed_before, "\n".join(computed_after + stores)) + computed_after + stores
    rows_src = (
        "@triton.jit\n"
        f"def {name}_rows_kernel({', '.join(params + ['n_rows', 'n_cols'] + index)}, BLOCK_ROWS: tl.constexpr, "
        "BLOCK_COLS: tl.constexpr):\n"
        + comment
        + f"    # {what}: BLOCK_ROWS whole rows per program (n_cols <= BLOCK_COLS), each element read once\n"
        "    rows = tl.program_id(0).to(tl.int64) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)\n"
        "    cols = tl.arange(0, BLOCK_COLS)\n"
        "    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)\n"
        "    offs = rows[:, None] * n_cols + cols[None, :]\n"
        + body(loads + computed_before, "    ")
        + f"    stat = (tl.sum(tl.where(mask, {value}, 0.0), axis=1){mean})[:, None]{rounded}\n"
        + body(computed_after + stores, "    ")
    )
    loop_src = (
        "@triton.jit\n"
        f"def {name}_kernel({', '.join(params + ['n_cols'] + index)}, BLOCK_SIZE: tl.constexpr):\n"
        + comment
        + f"    # {what}: one program per row, two passes (the statistic, then the ops after it)\n"
        "    row = tl.program_id(0).to(tl.int64)\n"
        "    acc = tl.zeros([BLOCK_SIZE], tl.float32)\n"
        "    for start in range(0, n_cols, BLOCK_SIZE):\n"
        "        cols = start + tl.arange(0, BLOCK_SIZE)\n"
        "        mask = cols < n_cols\n"
        "        offs = row * n_cols + cols\n"
        + body(first_pass, "        ")
        + f"        acc += tl.where(mask, {value}, 0.0)\n"
        f"    stat = (tl.sum(acc, axis=0){mean}){rounded}\n"
        "    for start in range(0, n_cols, BLOCK_SIZE):\n"
        "        cols = start + tl.arange(0, BLOCK_SIZE)\n"
        "        mask = cols < n_cols\n"
        "        offs = row * n_cols + cols\n"
        + body(second_pass, "        ")
    )
    a = pw.launcher_names()
    device = f"{pw.tensor_names()[0]}.device"
    outs = [f"out{i}" for i in range(len(kernel.outputs))]
    call = ", ".join(a + outs)
    index_args = "".join(", " + v for v in pw.index_args())
    launcher = [f"def {name}({', '.join(a)}):",
                f"    shape = torch.broadcast_shapes({', '.join(v + '.shape' for v in pw.tensor_names())})",
                f"    assert len(shape) == {rank}, 'rank differs from the traced model'"]
    launcher += pointwise_inputs_prep(pw, rank, device, keep_layout=False)
    launcher += [f"    inner = inner_sizes(shape, list(range({rank})))",
                 f"    n_cols = {' * '.join(f'shape[{d}]' for d in dims)}",
                 f"    n_rows = {' * '.join(f'shape[{d}]' for d in range(rank) if d not in dims) or '1'}"]
    launcher += [f"    {o} = torch.empty(shape, device={device}, dtype={tensor_meta(n).dtype})"
                 for o, n in zip(outs, kernel.outputs)]
    launcher += [
        f"    if n_cols <= {ROW_IN_REGISTERS}:",
        "        block_cols = triton.next_power_of_2(max(n_cols, 1))",
        f"        block_rows = max(1, min(64, {knobs['TILE']} // block_cols))",
        f"        {name}_rows_kernel[(triton.cdiv(n_rows, block_rows),)]({call}, n_rows, n_cols{index_args}, "
        f"BLOCK_ROWS=block_rows, BLOCK_COLS=block_cols, num_warps={knobs['num_warps']})",
        "    else:",
        f"        block = min({knobs['BLOCK_SIZE']}, triton.next_power_of_2(n_cols))",
        f"        {name}_kernel[(n_rows,)]({call}, n_cols{index_args}, BLOCK_SIZE=block, "
        f"num_warps={knobs['num_warps']})",
        f"    return {', '.join(outs)}"]
    return "\n\n".join([rows_src, loop_src, "\n".join(launcher)]), [t[1] for t in pw.tensors]


def _used(lines: list[str], later: str) -> list[str]:
    """The lines (``name = ...``) whose values ``later`` needs, directly or through the lines kept after them."""
    kept: list[str] = []
    needed = later
    for line in reversed(lines):
        if re.search(rf"\b{re.escape(line.split(' = ', 1)[0])}\b", needed):
            kept.insert(0, line)
            needed += "\n" + line
    return kept
