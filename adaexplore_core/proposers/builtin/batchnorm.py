"""Training-mode batch norm statistics in Triton: per channel of x (channels on dim 1) a shift (the channel's
first value), the mean of x minus the shift and the biased variance, as a (3, C) tensor, and the running
statistics updated as nn.BatchNorm does. The normalization itself is a pointwise op (``batch_norm_eval`` on the
rows: x - shift - mean, so the mean is never rounded at x's own scale), fused with its neighbours by the
planner.

Two kernels: partial sums of (x - shift) and (x - shift)² per channel over a share of the batch, the shift
being the channel's first value (so the variance does not cancel when the mean is large); then one program
per block of channels adds the partials, writes the statistics and updates the running statistics."""
from __future__ import annotations

from .ops import lit
from .plan import Kernel, Plan
from .text import describe_node

TARGET_PROGRAMS = 512          # partial-sum programs to aim for: channel blocks times batch shares


def batch_norm_stats_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    """The kernels and launcher text, and the launcher's call arguments (x, then the running statistics)."""
    node = kernel.nodes[0]
    op = plan.ops[node]
    x, running_mean, running_var, batches = op.tensor_args
    tracked = running_mean is not None
    momentum = op.extra["momentum"]
    name = kernel.name
    partial = (
        "@triton.jit\n"
        f"def {name}_kernel(x_ptr, part_ptr, C, S, rows_per_share, n_rows, BLOCK_C: tl.constexpr, "
        "BLOCK_S: tl.constexpr):\n"
        f"    # {describe_node(node, plan)}: x as (N, C, S); program (channel block, batch share) adds up\n"
        "    # (x - shift) and (x - shift)^2 over its rows, shift = the channel's first value\n"
        "    cb = tl.program_id(0)\n"
        "    share = tl.program_id(1)\n"
        "    c = cb * BLOCK_C + tl.arange(0, BLOCK_C)\n"
        "    cmask = c < C\n"
        "    shift = tl.load(x_ptr + c * S, mask=cmask, other=0.0).to(tl.float32)\n"
        "    s_offs = tl.arange(0, BLOCK_S)\n"
        "    acc = tl.zeros([BLOCK_C, BLOCK_S], tl.float32)\n"
        "    acc2 = tl.zeros([BLOCK_C, BLOCK_S], tl.float32)\n"
        "    first = share * rows_per_share\n"
        "    for n in range(first, tl.minimum(first + rows_per_share, n_rows)):\n"
        "        row = x_ptr + tl.cast(n, tl.int64) * C * S\n"
        "        for start in range(0, S, BLOCK_S):\n"
        "            s = start + s_offs\n"
        "            mask = cmask[:, None] & (s < S)[None, :]\n"
        "            v = tl.load(row + c[:, None] * S + s[None, :], mask=mask, other=0.0).to(tl.float32)\n"
        "            v = tl.where(mask, v - shift[:, None], 0.0)\n"
        "            acc += v\n"
        "            acc2 += v * v\n"
        "    out = part_ptr + c * tl.num_programs(1) + share          # part is (2, C, shares)\n"
        "    tl.store(out, tl.sum(acc, axis=1), mask=cmask)\n"
        "    tl.store(out + C * tl.num_programs(1), tl.sum(acc2, axis=1), mask=cmask)\n"
    )
    update = ""
    if tracked:
        factor = "1.0 / tl.load(batches_ptr).to(tl.float32)" if momentum is None else lit(momentum)
        update = (
            f"    factor = {factor}   # momentum{' (None: the cumulative average)' if momentum is None else ''}\n"
            "    unbiased = var * (count / tl.maximum(count - 1.0, 1.0))\n"
            "    rm = tl.load(rm_ptr + c, mask=cmask, other=0.0).to(tl.float32)\n"
            "    rv = tl.load(rv_ptr + c, mask=cmask, other=0.0).to(tl.float32)\n"
            "    tl.store(rm_ptr + c, ((1.0 - factor) * rm + factor * mean).to(rm_ptr.dtype.element_ty), mask=cmask)\n"
            "    tl.store(rv_ptr + c, ((1.0 - factor) * rv + factor * unbiased).to(rv_ptr.dtype.element_ty), "
            "mask=cmask)\n")
    finish = (
        "@triton.jit\n"
        f"def {name}_finish_kernel(x_ptr, part_ptr, stats_ptr, rm_ptr, rv_ptr, batches_ptr, C, S, shares, count, "
        "BLOCK_C: tl.constexpr):\n"
        f"    # {describe_node(node, plan)}, finished: per channel, the shares' partial sums added; the shift,\n"
        "    # the mean of x - shift and the biased variance into stats (3, C)"
        + ("; the running\n    # statistics updated as nn.BatchNorm does\n" if tracked else "\n")
        + "    c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)\n"
        "    cmask = c < C\n"
        "    total = tl.zeros([BLOCK_C], tl.float32)\n"
        "    total2 = tl.zeros([BLOCK_C], tl.float32)\n"
        "    for share in range(0, shares):\n"
        "        total += tl.load(part_ptr + c * shares + share, mask=cmask, other=0.0)\n"
        "        total2 += tl.load(part_ptr + C * shares + c * shares + share, mask=cmask, other=0.0)\n"
        "    shifted_mean = total / count\n"
        "    var = tl.maximum(total2 / count - shifted_mean * shifted_mean, 0.0)\n"
        "    shift = tl.load(x_ptr + c * S, mask=cmask, other=0.0).to(tl.float32)\n"
        "    mean = shift + shifted_mean\n"
        "    tl.store(stats_ptr + c, shift, mask=cmask)\n"
        "    tl.store(stats_ptr + C + c, shifted_mean, mask=cmask)\n"
        "    tl.store(stats_ptr + C + C + c, var, mask=cmask)\n"
        + update
    )
    params = ["x"] + (["running_mean", "running_var", "num_batches_tracked"] if tracked else [])
    lines = [f"def {name}({', '.join(params)}):",
             "    assert x.dim() >= 2, 'batch norm takes (N, C, ...) here, as traced'",
             "    x = x.contiguous()",
             "    N, C = x.shape[0], x.shape[1]",
             "    S = x.numel() // max(N * C, 1)",
             "    count = N * S",
             "    assert count > 1, 'Expected more than 1 value per channel when training'",
             f"    block_s = min(triton.next_power_of_2(max(S, 1)), {knobs['BLOCK_SIZE']})",
             f"    block_c = min(triton.next_power_of_2(C), max(1, {knobs['BLOCK_SIZE']} // block_s))",
             "    channel_blocks = triton.cdiv(C, block_c)",
             f"    shares = max(1, min(N, {TARGET_PROGRAMS} // channel_blocks))",
             "    rows_per_share = triton.cdiv(N, shares)",
             "    shares = triton.cdiv(N, rows_per_share)",
             "    part = torch.empty((2, C, shares), device=x.device, dtype=torch.float32)",
             f"    {name}_kernel[(channel_blocks, shares)](x, part, C, S, rows_per_share, N, BLOCK_C=block_c, "
             f"BLOCK_S=block_s, num_warps={knobs['num_warps']})",
             "    stats = torch.empty((3, C), device=x.device, dtype=torch.float32)   # fp32 whatever x is"]
    if tracked:
        lines.append("    num_batches_tracked.add_(1)")
        refs = "running_mean, running_var, num_batches_tracked"
    else:
        refs = "stats, stats, stats"                      # nothing tracked: the finish kernel ignores these
    lines += [f"    {name}_finish_kernel[(triton.cdiv(C, 128),)](x, part, stats, {refs}, C, S, shares, float(count), "
              "BLOCK_C=128)",
              "    return stats"]
    args = [x.name] + ([a.name for a in (running_mean, running_var, batches)] if tracked else [])
    return partial + "\n\n" + finish + "\n\n" + "\n".join(lines), args
