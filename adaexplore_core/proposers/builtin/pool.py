"""Max and average pooling (1-D, 2-D, 3-D) as one Triton kernel: a lane per output element reads its window,
with the pointwise ops before the pooling (a fused prologue) computed at each read, so the large tensor
before the pooling is never written. 1-D and 2-D pooling run as 3-D pooling with unit leading window dims."""
from __future__ import annotations

from .plan import Kernel, Plan
from .pointwise import prologue_function, prologue_prep
from .text import describe_node


def pool_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    """The kernel(s) and launcher text, and the launcher's call arguments."""
    node = kernel.nodes[-1]
    op = plan.ops[node]
    e = op.extra
    x = op.tensor_args[0]
    name = kernel.name
    dims, kind = e["dims"], e["kind"]
    pad3 = lambda values, fill: (fill,) * (3 - dims) + tuple(values)  # noqa: E731
    window = {"K": pad3(e["kernel"], 1), "S": pad3(e["stride"], 1), "P": pad3(e["padding"], 0),
              "D": pad3(e["dilation"], 1)}
    members = kernel.nodes[:-1]                 # a fused pointwise prologue, if any
    other = "float('-inf')" if kind == "max" else "0.0"
    prologue_src = ""
    if members:
        pw, prologue_src = prologue_function(name, members, x, plan)
        prologue_src += "\n\n"
        params = pw.params() + pw.index_params()
        read = f"{name}_prologue(src, inside, {other}, {', '.join(params)})"
        x_params = params
    else:
        read = f"tl.load(x_ptr + src, mask=inside, other={other}).to(tl.float32)"
        x_params = ["x_ptr"]
    if kind == "max":
        init, update = "tl.full([BLOCK_SIZE], float('-inf'), tl.float32)", \
            "acc = tl.maximum(acc, v, propagate_nan=tl.PropagateNan.ALL)"
        finish = ["result = acc"]
    else:
        init, update = "tl.zeros([BLOCK_SIZE], tl.float32)", "acc += v"
        finish = ["d0, h0, w0 = od * SD - PD, oh * SH - PH, ow * SW - PW",
                  "d1, h1, w1 = tl.minimum(d0 + KD, ID + PD), tl.minimum(h0 + KH, IH + PH), tl.minimum(w0 + KW, IW + PW)"]
        if e["divisor"] is not None:
            finish.append("count = divisor   # divisor_override")
        elif e["count_include_pad"]:
            finish.append("count = (d1 - d0) * (h1 - h0) * (w1 - w0)   # padding counted (count_include_pad)")
        else:
            finish += ["d0, h0, w0 = tl.maximum(d0, 0), tl.maximum(h0, 0), tl.maximum(w0, 0)",
                       "d1, h1, w1 = tl.minimum(d1, ID), tl.minimum(h1, IH), tl.minimum(w1, IW)",
                       "count = (d1 - d0) * (h1 - h0) * (w1 - w0)   # padding not counted"]
        finish.append("result = acc / count.to(tl.float32)")
    divisor_param = ["divisor"] if kind == "avg" and e["divisor"] is not None else []
    kernel_params = x_params + ["out_ptr", "n_out", "ID", "IH", "IW", "OD", "OH", "OW", "SD", "SH", "SW", "PD",
                                "PH", "PW", "DD", "DH", "DW"] + divisor_param + \
        ["KD: tl.constexpr", "KH: tl.constexpr", "KW: tl.constexpr", "BLOCK_SIZE: tl.constexpr"]
    noted = "".join(f"    # {describe_node(n, plan)}   (prologue: computed at each read)\n" for n in members)
    kernel_src = (
        prologue_src + "@triton.jit\n"
        f"def {name}_kernel({', '.join(kernel_params)}):\n" + noted +
        f"    # {describe_node(node, plan)}: one output element per lane, its KD x KH x KW window read in\n"
        "    # place (x as (N*C, ID, IH, IW), the output as (N*C, OD, OH, OW))\n"
        "    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
        "    mask = offs < n_out\n"
        "    ow = offs % OW\n"
        "    oh = (offs // OW) % OH\n"
        "    od = (offs // (OW * OH)) % OD\n"
        "    nc = offs // (OW * OH * OD)\n"
        f"    acc = {init}\n"
        "    for kd in tl.static_range(KD):\n"
        "        for kh in tl.static_range(KH):\n"
        "            for kw in tl.static_range(KW):\n"
        "                i_d = od * SD - PD + kd * DD\n"
        "                i_h = oh * SH - PH + kh * DH\n"
        "                i_w = ow * SW - PW + kw * DW\n"
        "                inside = mask & (i_d >= 0) & (i_d < ID) & (i_h >= 0) & (i_h < IH) & (i_w >= 0) & (i_w < IW)\n"
        "                src = ((nc * ID + i_d) * IH + i_h) * IW + i_w\n"
        f"                v = {read}\n"
        f"                {update}\n"
        + "".join(f"    {line}\n" for line in finish)
        + "    tl.store(out_ptr + offs, result.to(out_ptr.dtype.element_ty), mask=mask)\n"
    )
    rank = dims + 2
    if members:
        a = pw.launcher_names()
        head = [f"def {name}({', '.join(a)}):"] + prologue_prep(pw, rank) + \
            [f"    device = a{pw.full.index(True)}.device"]
        call_x = ", ".join(a + pw.index_args())
        args = [t[1] for t in pw.tensors]
    else:
        head = [f"def {name}(x):",
                f"    assert x.dim() == {rank}, 'pooling takes (N, C, ...) here, as traced'",
                "    x = x.contiguous()",
                "    shape, device = x.shape, x.device"]
        call_x = "x"
        args = [x.name]
    spatial = {1: "1, 1, shape[2]", 2: "1, shape[2], shape[3]", 3: "shape[2], shape[3], shape[4]"}[dims]
    ceil = e["ceil_mode"]
    lines = head + [
        f"    ID, IH, IW = {spatial}",
        f"    (KD, KH, KW), (SD, SH, SW) = {window['K']}, {window['S']}",
        f"    (PD, PH, PW), (DD, DH, DW) = {window['P']}, {window['D']}",
        "    sizes = []",
        "    for i, k, s, p, d in ((ID, KD, SD, PD, DD), (IH, KH, SH, PH, DH), (IW, KW, SW, PW, DW)):",
        f"        o = (i + 2 * p - d * (k - 1) - 1 + {'(s - 1)' if ceil else '0'}) // s + 1"
        + ("   # ceil_mode" if ceil else ""),
    ]
    if ceil:
        lines.append("        o -= 1 if (o - 1) * s >= i + p else 0   # the last window must start inside")
    lines += [
        "        sizes.append(o)",
        "    if min(sizes) < 1:   # no window fits: torch raises too",
        "        raise RuntimeError(f'pooling: output size {tuple(sizes)} is too small (input {(ID, IH, IW)})')",
        "    OD, OH, OW = sizes",
        f"    out = torch.empty((shape[0], shape[1], {', '.join(['OD', 'OH', 'OW'][3 - dims:])}), device=device, "
        f"dtype={node.meta['tensor_meta'].dtype})",
        f"    grid = (triton.cdiv(out.numel(), {knobs['BLOCK_SIZE']}),)",
        f"    {name}_kernel[grid]({call_x}, out, out.numel(), ID, IH, IW, OD, OH, OW, SD, SH, SW, PD, PH, PW, DD, DH, "
        f"DW, {str(e['divisor']) + ', ' if divisor_param else ''}KD=KD, KH=KH, KW=KW, "
        f"BLOCK_SIZE={knobs['BLOCK_SIZE']}, num_warps={knobs['num_warps']})",
        "    return out"]
    return kernel_src + "\n\n" + "\n".join(lines), args
