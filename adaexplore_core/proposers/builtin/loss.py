"""Cross-entropy over class indices as one Triton kernel: per row, an online log-sum-exp over the logits
and the target's logit, in one read of the row (eager runs log_softmax, then nll_loss, then the mean)."""
from __future__ import annotations

import textwrap

from .plan import Kernel, Plan
from .reduction import ONLINE_MAX_SUM
from .text import describe_node


def cross_entropy_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    """The kernel and launcher text, and the launcher's call arguments (logits, target)."""
    node = kernel.nodes[0]
    op = plan.ops[node]
    logits, target = op.tensor_args
    reduction, ignore_index = op.extra["reduction"], int(op.extra["ignore_index"])
    name = kernel.name
    kernel_src = (
        "@triton.jit\n"
        f"def {name}_kernel(x_ptr, target_ptr, loss_ptr, n_cols, stride_row, ignore_index, "
        "BLOCK_SIZE: tl.constexpr):\n"
        f"    # {describe_node(node, plan)}: one program per row; loss = logsumexp(row) - row[target],\n"
        "    # 0 for a row whose target is ignore_index, NaN for a target outside [0, n_cols)\n"
        "    row = tl.program_id(0).to(tl.int64)\n"
        "    x_row = x_ptr + row * stride_row\n"
        "    offs = tl.arange(0, BLOCK_SIZE)\n"
        + textwrap.indent(ONLINE_MAX_SUM, "    ")
        + "    t = tl.load(target_ptr + row)\n"
        "    in_range = (t >= 0) & (t < n_cols)\n"
        "    picked = tl.load(x_row + tl.where(in_range, t, 0)).to(tl.float32)\n"
        "    loss = tl.where(in_range, row_max + tl.log(row_sum) - picked, float('nan'))\n"
        "    tl.store(loss_ptr + row, tl.where(t == ignore_index, 0.0, loss))\n"
    )
    lines = [f"def {name}(x, target):",
             "    assert x.dim() == 2 and target.dim() == 1 and target.shape[0] == x.shape[0], "
             "'cross_entropy takes (N, C) logits and N class indices here, as traced'",
             "    if x.stride(1) != 1:",
             "        x = x.contiguous()",
             "    target = target.contiguous()",
             "    n_rows, n_cols = x.shape",
             "    loss = torch.empty(n_rows, device=x.device, dtype=torch.float32)",
             f"    block = min({knobs['BLOCK_SIZE']}, triton.next_power_of_2(max(n_cols, 1)))",
             f"    {name}_kernel[(n_rows,)](x, target, loss, n_cols, x.stride(0), {ignore_index}, BLOCK_SIZE=block, "
             f"num_warps={knobs['num_warps']})"]
    if reduction == "none":
        lines.append("    return loss.to(x.dtype)")
    elif reduction == "sum":
        lines.append("    return loss.sum().to(x.dtype)")
    else:
        lines.append(f"    return (loss.sum() / (target != {ignore_index}).sum()).to(x.dtype)   "
                     "# the mean over the rows not ignored")
    return kernel_src + "\n\n" + "\n".join(lines), [logits.name, target.name]
