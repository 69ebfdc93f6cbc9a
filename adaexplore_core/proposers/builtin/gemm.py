"""The Triton GEMM: tiled, grouped for L2 reuse, fp32 accumulation of IEEE fp32 products (no TF32), with the
bias and the following pointwise ops applied to each output tile before it is stored."""
from __future__ import annotations

from typing import Any

from torch import fx

from .ops import lit
from .plan import Kernel, Plan, external_inputs, gemm_operands, is_number, tensor_meta
from .text import describe_node, render

def gemm_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int], modules: dict[str, Any]
                ) -> tuple[str, list[str]]:
    """A tiled Triton matrix product (fp32 accumulation, IEEE fp32 products: no TF32) with the bias and the
    following pointwise ops applied to each output tile before it is stored. Batched products (bmm) run
    one grid row per batch entry; a 2-D product is a batch of one."""
    gemm = kernel.nodes[0]
    operands = gemm_operands(gemm, modules)
    batched = operands["batched"]
    name = kernel.name
    epilogue_inputs = external_inputs(kernel.nodes[1:], also_skip=gemm)
    value_of: dict[fx.Node, str] = {gemm: "v_gemm"}
    loads = []
    numbers = {i for i, node in enumerate(epilogue_inputs) if is_number(node)}   # passed by value
    for i, node in enumerate(epilogue_inputs):
        arg = f"e{i}"
        value_of[node] = arg
        if i in numbers:
            loads.append(f"{arg} = tl.cast({arg}_val, tl.float32)")
            continue
        loads.append(f"{arg} = tl.load({arg}_ptr + pid_b * {arg}_sb + offs_m[:, None] * {arg}_sm + offs_n[None, :] * "
                     f"{arg}_sn, mask=mask, other=0.0).to(tl.float32)")
    body = []
    for node in kernel.nodes[1:]:
        op = plan.ops[node]
        terms = [value_of[a] if isinstance(a, fx.Node) else lit(a) for a in op.tensor_args]
        body.append(f"v_{node.name} = {op.expr(*terms)}")
        value_of[node] = f"v_{node.name}"
    has_bias = operands["bias"] is not None
    outs = [f"out{i}" for i in range(len(kernel.outputs))]
    stores = [f"tl.store({o}_ptr + pid_b * M * N + offs_m[:, None] * N + offs_n[None, :], "
              f"{value_of[n]}.to({o}_ptr.dtype.element_ty), mask=mask)" for o, n in zip(outs, kernel.outputs)]
    tensors = [i for i in range(len(loads)) if i not in numbers]
    params = (["a_ptr", "w_ptr"] + (["bias_ptr"] if has_bias else [])
              + [f"e{i}_val" if i in numbers else f"e{i}_ptr" for i in range(len(loads))]
              + [f"{o}_ptr" for o in outs]
              + ["M", "N", "K", "stride_ab", "stride_am", "stride_ak", "stride_wb", "stride_wk", "stride_wn"]
              + [p for i in tensors for p in (f"e{i}_sb", f"e{i}_sm", f"e{i}_sn")]
              + ["BLOCK_M: tl.constexpr", "BLOCK_N: tl.constexpr", "BLOCK_K: tl.constexpr", "GROUP_M: tl.constexpr"])
    comment = "\n".join(f"    # {describe_node(n, plan)}" for n in kernel.nodes[1:])
    product = f"{'bmm' if batched else 'matmul'}(a, w{'.T' if operands['transposed'] else ''})"
    kernel_src = (
        "@triton.jit\n"
        f"def {name}_kernel({', '.join(params)}):\n"
        f"    # {gemm.name} = {product}{' + bias' if has_bias else ''}, tiled"
        + ("; program_id(1) is the batch entry" if batched else "") + "; then, per output tile:\n"
        f"{comment}\n"
        "    pid = tl.program_id(0)\n"
        "    pid_b = tl.program_id(1).to(tl.int64)\n"
        "    num_pid_m, num_pid_n = tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N)\n"
        "    group = pid // (GROUP_M * num_pid_n)                  # GROUP_M row blocks share w tiles in L2\n"
        "    first_m = group * GROUP_M\n"
        "    group_size = tl.minimum(num_pid_m - first_m, GROUP_M)\n"
        "    pid_m = first_m + (pid % (GROUP_M * num_pid_n)) % group_size\n"
        "    pid_n = (pid % (GROUP_M * num_pid_n)) // group_size\n"
        "    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)\n"
        "    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n"
        "    offs_k = tl.arange(0, BLOCK_K)\n"
        "    a_ptr += pid_b * stride_ab\n"
        "    w_ptr += pid_b * stride_wb\n"
        "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"
        "    for k in range(0, K, BLOCK_K):\n"
        "        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :] * stride_ak,\n"
        "                    mask=(offs_m[:, None] < M) & ((k + offs_k)[None, :] < K), other=0.0).to(tl.float32)\n"
        "        w = tl.load(w_ptr + (k + offs_k)[:, None] * stride_wk + offs_n[None, :] * stride_wn,\n"
        "                    mask=((k + offs_k)[:, None] < K) & (offs_n[None, :] < N), other=0.0).to(tl.float32)\n"
        "        acc += tl.dot(a, w, input_precision='ieee')\n"
        "    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)\n"
        + ("    v_gemm = acc + tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]\n"
           if has_bias else "    v_gemm = acc\n")
        + "".join(f"    {line}\n" for line in loads + body + stores)
    )
    lp = ["a", "w"] + (["bias"] if has_bias else []) + [f"e{i}" for i in range(len(loads))]
    if batched:
        lines = [f"def {name}({', '.join(lp)}):",
                 "    assert a.dim() == 3 and w.dim() == 3, 'a batched matrix product, as traced'",
                 "    B, M, K = a.shape",
                 "    N = w.shape[2]",
                 "    assert w.shape[0] == B and w.shape[1] == K, 'batch or inner dimensions differ'",
                 "    a_strides, w_strides = a.stride(), w.stride()"]
        out_shape, expand = "(B, M, N)", "(B, M, N)"
    else:
        n_expr, w_k, w_strides = ("w.shape[0]", "w.shape[1]", "(0, w.stride(1), w.stride(0))") \
            if operands["transposed"] else ("w.shape[1]", "w.shape[0]", "(0, w.stride(0), w.stride(1))")
        lines = [f"def {name}({', '.join(lp)}):",
                 "    assert a.dim() == 2 and w.dim() == 2, 'a 2-D matrix product, as traced'",
                 "    B, (M, K) = 1, a.shape",
                 f"    N = {n_expr}",
                 f"    assert {w_k} == K, 'inner dimensions differ'",
                 f"    a_strides, w_strides = (0,) + a.stride(), {w_strides}"]
        out_shape, expand = "(M, N)", "(M, N)"
    lines += [f"    e{i} = float(e{i})   # a number of the forward, passed by value" for i in sorted(numbers)]
    for i in tensors:
        lines += [f"    e{i} = e{i}.to(a.device)",
                  f"    s{i} = {'' if batched else '(0,) + '}e{i}.expand{expand}.stride()"]
    lines += [f"    {o} = torch.empty({out_shape}, device=a.device, dtype={tensor_meta(n).dtype})"
              for o, n in zip(outs, kernel.outputs)]
    call = lp + outs + ["M", "N", "K", "*a_strides", "*w_strides"] + [f"*s{i}" for i in tensors]
    lines += [f"    grid = (triton.cdiv(M, {knobs['BLOCK_M']}) * triton.cdiv(N, {knobs['BLOCK_N']}), B)",
              f"    {name}_kernel[grid]({', '.join(call)}, BLOCK_M={knobs['BLOCK_M']}, BLOCK_N={knobs['BLOCK_N']}, "
              f"BLOCK_K={knobs['BLOCK_K']}, GROUP_M={knobs['GROUP_M']}, num_warps={knobs['num_warps']}, "
              f"num_stages={knobs['num_stages']})",
              f"    return {', '.join(outs)}"]
    args = [render(operands["a"]), render(operands["weight"]) if isinstance(operands["weight"], fx.Node)
            else operands["weight"]]
    if has_bias:
        args.append(render(operands["bias"]) if isinstance(operands["bias"], fx.Node) else operands["bias"])
    args += [n.name for n in epilogue_inputs]
    return kernel_src + "\n\n" + "\n".join(lines), args
