"""Loss kernels. Cross-entropy over class indices (class weights, label smoothing, ignore_index): per row, an
online log-sum-exp, the sum of the logits for the smoothing term and the target's logit, in one read of the
row (eager runs log_softmax, then nll_loss, then the mean). BCE-with-logits summed as it goes: each program
adds up the losses of one block of elements (the per-element losses are never written).

Both read the tensors that the casts, copies, slices and flattening views folded into the kernel start from
(plan._fold_loss_views): casts happen as the kernel loads, slices are replayed as views in the launcher, and
the flattening of the logits' leading dims is the kernel's row arithmetic (strides passed at run time).
"""
from __future__ import annotations

import textwrap
from typing import Any

from torch import fx

from .plan import Kernel, Plan, loss_operand_view, self_path, tensor_meta
from .reduction import ONLINE_MAX_SUM
from .text import describe_node


def loss_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    """The kernel and launcher text, and the launcher's call arguments."""
    if plan.ops[kernel.nodes[-1]].name == "cross_entropy":
        return cross_entropy_kernel(kernel, plan, knobs)
    return bce_with_logits_kernel(kernel, plan, knobs)


def _start(arg: Any, members: set[fx.Node]) -> tuple[fx.Node, list[Any]]:
    """The tensor a loss operand's folded views start from, and the indices of its slices in order."""
    indices: list[Any] = []
    node = arg
    while node in members and loss_operand_view(node) is not None:
        if loss_operand_view(node) == "slice":
            indices.insert(0, node.args[1])
        node = node.args[0]
    return node, indices


def _index_source(index: Any) -> str:
    """``x[...]`` subscript text for a tuple of slices and Ellipsis: ``..., :-1, :``."""
    def one(part: Any) -> str:
        if part is Ellipsis:
            return "..."
        text = ("" if part.start is None else str(part.start)) + ":" + ("" if part.stop is None else str(part.stop))
        return text + ("" if part.step is None else f":{part.step}")
    return ", ".join(one(p) for p in (index if isinstance(index, tuple) else (index,)))


def _weight_arg(weight: Any, members: set[fx.Node]) -> str | None:
    """A weight operand as the forward names it: an fx node (after its folded casts) or a module buffer."""
    if weight is None:
        return None
    return self_path(weight) if isinstance(weight, str) else _start(weight, members)[0].name


def _replayed_slices(var: str, indices: list[Any], what: str) -> list[str]:
    return [f"    {var} = {var}[{_index_source(i)}]   # as traced on {what}: a view, read in place (no copy)"
            for i in indices]


def _as_rows(var: str, rank: int, classes: bool) -> str:
    """Launcher line viewing ``var`` as (outer, inner[, C]): its rows' strides are then two numbers."""
    lead = rank - 1 if classes else rank
    tail = f", {var}.shape[-1]" if classes else ""
    if lead == 1:
        return f"    {var} = {var}.unsqueeze(0)   # rows as (outer, inner): (1, N)"
    if lead == 2:
        return ""
    return f"    {var} = {var}.reshape(-1, {var}.shape[{lead - 1}]{tail})   # rows as (outer, inner); a view " \
           "when the outer dims merge"


def cross_entropy_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    loss_node = kernel.nodes[-1]
    op = plan.ops[loss_node]
    members = set(kernel.nodes[:-1])
    (x, x_indices), (target, target_indices) = (_start(a, members) for a in op.tensor_args[:2])
    weight = _weight_arg(op.extra["weight"], members)
    reduction, ignore_index, smoothing = op.extra["reduction"], int(op.extra["ignore_index"]), op.extra["smoothing"]
    name = kernel.name
    params = ["x_ptr", "target_ptr"] + (["weight_ptr"] if weight else []) + ["loss_ptr"] + \
        (["row_weight_ptr"] if reduction == "mean" else []) + \
        ["n_cols", "n_inner", "x_stride_outer", "x_stride_inner", "target_inner", "target_stride_outer",
         "target_stride_inner", "ignore_index"] + (["smoothing"] if smoothing else []) + ["BLOCK_SIZE: tl.constexpr"]
    w_t = " * w_t" if weight else ""
    head = [f"# {describe_node(loss_node, plan)}: one program per row of the (N, C) logits, read once;",
            f"# loss = {'(1 - smoothing) * ' if smoothing else ''}w[t] * (lse - x[t])"
            + (" + smoothing / C * sum_c w[c] * (lse - x[c])" if smoothing else "") + "  (w = 1 without weights),",
            "# 0 for a row whose target is ignore_index, NaN for a target outside [0, C).",
            "# Row r is (r // n_inner, r % n_inner) of the logits viewed as (outer, inner, C); the target likewise.",
            "row = tl.program_id(0).to(tl.int64)",
            "x_row = x_ptr + (row // n_inner) * x_stride_outer + (row % n_inner) * x_stride_inner",
            "t = tl.load(target_ptr + (row // target_inner) * target_stride_outer + (row % target_inner) * "
            "target_stride_inner)",
            "offs = tl.arange(0, BLOCK_SIZE)"]
    loop = ONLINE_MAX_SUM
    if smoothing:
        anchor = "    m = m_new\n"
        assert anchor in loop, "reduction.ONLINE_MAX_SUM changed"
        if weight:
            sums = ("sx = tl.zeros([BLOCK_SIZE], tl.float32)   # running sum of w[c] * x[c] (smoothing term)\n"
                    "sw = tl.zeros([BLOCK_SIZE], tl.float32)   # running sum of w[c]\n")
            extra = ("    w = tl.load(weight_ptr + start + offs, mask=mask, other=0.0).to(tl.float32)\n"
                     "    sx += tl.where(mask, w * x, 0.0)\n"
                     "    sw += w\n")
        else:
            sums = "sx = tl.zeros([BLOCK_SIZE], tl.float32)   # running sum of x[c] (smoothing term)\n"
            extra = "    sx += tl.where(mask, x, 0.0)\n"
        loop = sums + loop.replace(anchor, anchor + extra)
    tail = ["lse = row_max + tl.log(row_sum)",
            "in_range = (t >= 0) & (t < n_cols)",
            "t_safe = tl.where(in_range, t, 0)",
            "picked = tl.load(x_row + t_safe).to(tl.float32)"]
    if weight:
        tail.append("w_t = tl.load(weight_ptr + t_safe).to(tl.float32)")
    if smoothing:
        total = "tl.sum(sw, axis=0)" if weight else "n_cols"
        tail += [f"smooth = lse * {total} - tl.sum(sx, axis=0)",
                 f"loss = (1.0 - smoothing) * (lse - picked){w_t} + smoothing / n_cols * smooth"]
    else:
        tail.append(f"loss = (lse - picked){w_t}")
    tail += ["ignored = t == ignore_index",
             "loss = tl.where(ignored, 0.0, tl.where(in_range, loss, float('nan')))",
             "tl.store(loss_ptr + row, loss.to(loss_ptr.dtype.element_ty))"]
    if reduction == "mean":     # the mean divides by the targets' total weight (their count without weights)
        tail.append(f"tl.store(row_weight_ptr + row, tl.where(ignored, 0.0, {'w_t' if weight else '1.0'}))")
    body = "\n".join(head) + "\n" + loop + "\n".join(tail)
    kernel_src = (f"@triton.jit\ndef {name}_kernel({', '.join(params)}):\n" + textwrap.indent(body, "    ") + "\n")

    out_dtype = tensor_meta(loss_node).dtype
    lines = [f"def {name}(x, target{', weight' if weight else ''}):"]
    lines += _replayed_slices("x", x_indices, x.name) + _replayed_slices("target", target_indices, target.name)
    lines += [line for line in (_as_rows("x", len(tensor_meta(x).shape), True),
                                _as_rows("target", len(tensor_meta(target).shape), False)) if line]
    lines += ["    if x.stride(2) != 1:",
              "        x = x.contiguous()",
              "    n_outer, n_inner, n_cols = x.shape",
              "    n_rows = n_outer * n_inner",
              "    assert target.numel() == n_rows, 'cross_entropy takes one class index per row of logits'"]
    if weight:
        lines += ["    assert weight.shape == (n_cols,), 'cross_entropy takes one weight per class'"]
    lines += ["    if x.device.type == 'cpu':   # torch raises here on a target outside [0, C); a GPU gets NaN",
              f"        bad = (target != {ignore_index}) & ((target < 0) | (target >= n_cols))",
              "        if bool(bad.any()):",
              "            raise IndexError(f'Target {int(target[bad][0])} is out of bounds.')"]
    if reduction == "mean":
        lines += ["    rows = torch.empty((2, n_rows), device=x.device, dtype=torch.float32)   # loss; target weight",
                  "    loss, row_weight = rows[0], rows[1]"]
    else:
        dtype = out_dtype if reduction == "none" else "torch.float32"
        lines += [f"    loss = torch.empty(n_rows, device=x.device, dtype={dtype})"]
    args = ["x", "target"] + (["weight"] if weight else []) + ["loss"] + (["row_weight"] if reduction == "mean"
                                                                          else []) + \
        ["n_cols", "n_inner", "x.stride(0)", "x.stride(1)", "target.shape[1]", "target.stride(0)",
         "target.stride(1)", str(ignore_index)] + ([repr(smoothing)] if smoothing else [])
    lines += [f"    block = min({knobs['BLOCK_SIZE']}, triton.next_power_of_2(max(n_cols, 1)))",
              "    if n_rows > 0:",
              f"        {name}_kernel[(n_rows,)]({', '.join(args)}, BLOCK_SIZE=block, num_warps={knobs['num_warps']})"]
    if reduction == "none":
        lines.append("    return loss")
    elif reduction == "sum":
        lines.append(f"    return loss.sum().to({out_dtype})")
    else:
        lines += ["    totals = rows.sum(dim=1)",
                  f"    return (totals[0] / totals[1]).to({out_dtype})   # the mean over the rows not ignored"]
    return kernel_src + "\n\n" + "\n".join(lines), [x.name, target.name] + ([weight] if weight else [])


def bce_with_logits_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    loss_node = kernel.nodes[-1]
    op = plan.ops[loss_node]
    members = set(kernel.nodes[:-1])
    x, target = (_start(a, members)[0] for a in op.tensor_args[:2])
    weights = {w: _weight_arg(op.extra[w], members) for w in ("weight", "pos_weight") if op.extra[w] is not None}
    reduction = op.extra["reduction"]
    name = kernel.name
    params = ["x_ptr", "target_ptr"] + [f"{w}_ptr" for w in weights] + ["partial_ptr", "n_elements"] + \
        [f"n_{w}" for w in weights] + ["BLOCK_SIZE: tl.constexpr"]
    scale = "(1.0 + (pos_weight - 1.0) * t) * " if "pos_weight" in weights else ""
    formula = f"(1 - t) * x - {scale.replace('.0', '')}log_sigmoid(x)" + (" times weight" if "weight" in weights
                                                                             else "")
    body = [f"# {describe_node(loss_node, plan)}: each program sums the losses of BLOCK_SIZE elements,",
            f"# {formula}"]
    if weights:
        body.append("# weights repeat along the trailing dims (the launcher lays out any other broadcast): read "
                    "modulo their length")
    body += ["block = tl.program_id(0)",
             "offs = block.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)",
             "mask = offs < n_elements",
             "x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)",
             "t = tl.load(target_ptr + offs, mask=mask, other=0.0).to(tl.float32)"]
    body += [f"{w} = tl.load({w}_ptr + offs % n_{w}, mask=mask, other=0.0).to(tl.float32)" for w in weights]
    body += ["# log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|)); log1p(e) = log(u) * e / (u - 1), u = 1 + e (exact "
             "for tiny e)",
             "e = tl.exp(-tl.abs(x))",
             "u = 1.0 + e",
             "log_sigmoid = tl.minimum(x, 0.0, propagate_nan=tl.PropagateNan.ALL) - "
             "tl.where(u == 1.0, e, tl.log(u) * (e / (u - 1.0)))",
             f"loss = (1.0 - t) * x - {scale}log_sigmoid"]
    if "weight" in weights:
        body.append("loss = loss * weight")
    body.append("tl.store(partial_ptr + block, tl.sum(tl.where(mask, loss, 0.0), axis=0))")
    kernel_src = (f"@triton.jit\ndef {name}_kernel({', '.join(params)}):\n"
                  + textwrap.indent("\n".join(body), "    ") + "\n")

    out_dtype = tensor_meta(loss_node).dtype
    lines = [f"def {name}({', '.join(['x', 'target'] + list(weights))}):",
             "    assert x.shape == target.shape, 'binary_cross_entropy_with_logits takes a target of the input shape'",
             "    x, target = x.contiguous(), target.contiguous()   # no copy when already contiguous"]
    for w in weights:
        lines += [f"    if {w}.numel() == 1 or ({w}.shape[-1:] == x.shape[-1:] and {w}.numel() == x.shape[-1]):",
                  f"        {w} = {w}.reshape(-1)   # one value, or one per class",
                  "    else:",
                  f"        {w} = {w}.expand(x.shape).reshape(-1)   # another broadcast: laid out in full"]
    lines += ["    n_elements = x.numel()",
              f"    n_blocks = triton.cdiv(n_elements, {knobs['BLOCK_SIZE']})",
              "    partial = torch.empty(n_blocks, device=x.device, dtype=torch.float32)   # one sum per program",
              "    if n_blocks > 0:",
              f"        {name}_kernel[(n_blocks,)]({', '.join(['x', 'target'] + list(weights))}, partial, n_elements, "
              f"{''.join(f'{w}.numel(), ' for w in weights)}BLOCK_SIZE={knobs['BLOCK_SIZE']}, "
              f"num_warps={knobs['num_warps']})"]
    if reduction == "sum":
        lines.append(f"    return partial.sum().to({out_dtype})")
    else:
        lines.append(f"    return (partial.sum() / n_elements).to({out_dtype})   # the mean over all elements")
    return kernel_src + "\n\n" + "\n".join(lines), [x.name, target.name] + list(weights.values())
