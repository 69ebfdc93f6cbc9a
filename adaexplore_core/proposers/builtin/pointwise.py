"""Pointwise kernels: a fused group of elementwise ops, walked in the memory order of its first full-shaped
input, other inputs broadcast through their strides. ``pointwise_body`` is shared with reduction prologues.
Bool values are 0.0 and 1.0 in the kernel (stored as bool); a tril/triu reads the element's row and column
indices, and a tensor made from sizes (``torch.ones(t, t)``) is a constant of the kernel's index space. A
reshape that torch would copy (ops.py ``_reshape``) reads its input at the element's row-major index through
the input's run-time sizes and strides; such a kernel walks its output in row-major order."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import fx

from ..base import ProposalError
from .ops import ZERO_ONE, lit
from .plan import Kernel, Plan, external_inputs, is_number, tensor_meta
from .text import aligned, describe_node, render, shape_of

LAYOUT_HELPERS = '''
def memory_order(t):
    """t's dims from outermost to innermost in memory when t is dense (no gaps, no overlap); else None."""
    order = sorted(range(t.dim()), key=lambda d: (-t.stride(d), -t.shape[d]))
    expected = 1
    for d in reversed(order):
        if t.shape[d] != 1 and t.stride(d) != expected:
            return None
        expected *= t.shape[d]
    return order


def inner_sizes(shape, order):
    """For each dim, the product of the sizes of the dims stored inside it (its step in a flat index)."""
    inner, step = [1] * len(shape), 1
    for d in reversed(order):
        inner[d] = step
        step *= shape[d]
    return inner
'''

RESHAPE_HELPER = '''
def reshaped(numel, sizes):
    """The shape x.reshape(sizes) has for an x of numel elements (one size may be -1)."""
    known = 1
    for size in sizes:
        if size != -1:
            known *= size
    return torch.Size([numel // max(known, 1) if size == -1 else size for size in sizes])
'''


@dataclass
class PointwiseBody:
    """The inputs, index math, loads and expressions of a fused pointwise group, at a flat offset ``offs``
    into the output walked in memory order. Shared by pointwise kernels and reduction prologues."""

    tensors: list[tuple[str, str, tuple[int, ...]]]   # (kernel arg, launcher expression, traced shape)
    full: list[bool]                                  # input i has the output's full shape
    varying: dict[int, list[int]]                     # broadcast input -> dims along which it varies
    skipped: dict[int, list[int]]                     # broadcast input -> dims it is broadcast along
    dims: list[int]                                   # dims whose index the loads need
    lines: list[str]                                  # index math, loads, expressions
    value_of: dict[fx.Node, str]
    var: str = "a"                                    # launcher-side names: a0, a1 (strides s0, s1)
    ix: str = ""                                      # prefix of the index parameters (inner1, size1)
    numbers: set[int] = field(default_factory=set)    # inputs that are Python numbers (scalar arguments)
    gathered: dict[int, int] = field(default_factory=dict)   # input read by a reshape -> its rank

    def params(self) -> list[str]:
        return [f"{t[0]}_val" if i in self.numbers else f"{t[0]}_ptr" for i, t in enumerate(self.tensors)]

    def index_params(self) -> list[str]:
        return [p for d in self.dims for p in (f"{self.ix}inner{d}", f"{self.ix}size{d}")] + \
            [f"{self.tensors[i][0]}_s{d}" for i in self.varying for d in self.varying[i]] + \
            [f"{self.tensors[i][0]}_{p}{k}" for i, r in self.gathered.items() for k in range(r)
             for p in ("inner", "size", "s")]

    def index_args(self) -> list[str]:
        names = self.launcher_names()
        return [x for d in self.dims for x in (f"inner[{d}]", f"shape[{d}]")] + \
            [f"{self.strides(i)}[{d}]" for i in self.varying for d in self.varying[i]] + \
            [x for i, r in self.gathered.items() for k in range(r)
             for x in (f"{names[i]}_inner[{k}]", f"{names[i]}.shape[{k}]", f"{names[i]}.stride({k})")]

    def launcher_names(self) -> list[str]:
        return [f"{self.var}{i}" for i in range(len(self.tensors))]

    def tensor_names(self) -> list[str]:
        """The launcher names of the inputs that are tensors (not numbers)."""
        return [name for i, name in enumerate(self.launcher_names()) if i not in self.numbers]

    def strides(self, i: int) -> str:
        return f"s{i}" if self.var == "a" else f"{self.var}s{i}"


def pointwise_body(nodes: list[fx.Node], inputs: list[fx.Node], split_bias: dict[fx.Node, str],
                   out_shape: tuple[int, ...], plan: Plan, offs: str = "offs", prefix: str = "in",
                   var: str = "a", given: dict[fx.Node, str] | None = None, ix: str = "") -> PointwiseBody:
    """``prefix``/``var`` name the kernel arguments and launcher variables; ``given`` maps nodes whose value
    the caller already holds (a reduction's result, for an epilogue) to their expression."""
    rank = len(out_shape)
    tensors: list[tuple[str, str, tuple[int, ...]]] = []
    value_of: dict[fx.Node, str] = dict(given or {})
    numbers: set[int] = set()
    reshapes = [n for n in nodes if "gather" in plan.ops[n].extra]
    read_plainly = {a for n in nodes if n not in reshapes for a in plan.ops[n].tensor_args if isinstance(a, fx.Node)}
    gathered: dict[int, int] = {}
    gathered_value: dict[fx.Node, str] = {}
    for node in inputs:
        if any(plan.ops[n].tensor_args[0] is node for n in reshapes):     # read at the row-major index
            gathered[len(tensors)] = len(shape_of(node))
            gathered_value[node] = f"{prefix}{len(tensors)}"
            tensors.append((gathered_value[node], node.name, shape_of(node)))
            if node not in read_plainly:
                continue
        i = len(tensors)
        if is_number(node):
            numbers.add(i)
        tensors.append((f"{prefix}{i}", node.name, () if i in numbers else shape_of(node)))
        value_of[node] = f"{prefix}{i}"
        if node in split_bias:                  # the linear/conv ran without its bias: add it here
            produced = shape_of(node)             # the linear/conv output the bias belongs to
            bias_shape = (produced[-1],) if split_bias[node].endswith(".bias") else \
                (produced[1],) + (1,) * (len(produced) - 2)
            tensors.append((f"{prefix}{i + 1}", split_bias[node], bias_shape))
            value_of[node] = f"({prefix}{i} + {prefix}{i + 1})"
    full = [i not in numbers and i not in gathered and t[2] == out_shape for i, t in enumerate(tensors)]
    varying = {i: [d for d, size in enumerate(aligned(t[2], rank)) if size == out_shape[d] and size > 1]
               for i, t in enumerate(tensors) if not full[i] and i not in gathered}
    skipped = {i: [d for d, size in enumerate(aligned(tensors[i][2], rank)) if size == 1 and out_shape[d] > 1]
               for i in varying}
    indexed = {node: _index_dims(node, plan, out_shape) for node in nodes if plan.ops[node].extra.get("indices")}
    dims = sorted({d for ds in varying.values() for d in ds} |
                  {d for ds in indexed.values() for d in ds if d is not None})
    lines = [f"i{d} = {offs} // {ix}inner{d}" + (f" % {ix}size{d}" if d else "") for d in dims]
    for i, (arg, _, _) in enumerate(tensors):
        if i in gathered:                          # the source of a reshape: unravel the row-major index
            where = " + ".join(f"({offs} // {arg}_inner{k}" + (f" % {arg}_size{k}" if k else "") + f") * {arg}_s{k}"
                               for k in range(gathered[i])) or "0"
            lines.append(f"{arg} = tl.load({arg}_ptr + {where}, mask=mask, other=0.0).to(tl.float32)")
            continue
        if i in numbers:                           # a Python number, passed by value
            lines.append(f"{arg} = tl.cast({arg}_val, tl.float32)")
            continue
        if not full[i] and not varying[i]:         # one value for the whole output (a scalar tensor)
            lines.append(f"{arg} = tl.load({arg}_ptr).to(tl.float32)")
            continue
        where = offs if full[i] else " + ".join(f"i{d} * {arg}_s{d}" for d in varying[i])
        lines.append(f"{arg} = tl.load({arg}_ptr + {where}, mask=mask, other=0.0).to(tl.float32)")
    for node in nodes:
        op = plan.ops[node]
        if node in reshapes and shape_of(node) != tuple(out_shape):
            raise ProposalError(f"internal: the reshape {node.name} is in a kernel of another shape")
        source = gathered_value if node in reshapes else value_of
        operands = [source[a] if isinstance(a, fx.Node) else lit(a) for a in op.tensor_args]
        indices = ["0" if d is None else f"i{d}" for d in indexed.get(node, ())]
        value = op.expr(*operands, *indices)
        if op.extra.get("source"):              # torch.ones(t, t) and the like: one value at every offset
            value = f"tl.full({offs}.shape, {value}, tl.float32)"
        elif tensor_meta(node).dtype == torch.bool and op.name not in ZERO_ONE:
            value = f"tl.where(({value}) != 0, 1.0, 0.0)"      # a bool value: True + True is True
        lines.append(f"v_{node.name} = {value}")
        value_of[node] = f"v_{node.name}"
    return PointwiseBody(tensors, full, varying, skipped, dims, lines, value_of, var, ix, numbers, gathered)


def _index_dims(node: fx.Node, plan: Plan, out_shape: tuple[int, ...]) -> list[int | None]:
    """For the last ``extra["indices"]`` dims of ``node`` (a tril's row and column), the output dim whose index
    is theirs; None where the node is broadcast (its index there is 0)."""
    rank = len(out_shape)
    shape = aligned(shape_of(node), rank)
    return [d if shape[d] == out_shape[d] and out_shape[d] > 1 else None
            for d in range(rank - plan.ops[node].extra["indices"], rank)]


def pointwise_inputs_prep(body: PointwiseBody, rank: int, device: str, keep_layout: bool) -> list[str]:
    """Launcher lines: check shapes, lay full inputs out in ``order``, strides for broadcast inputs."""
    lines = []
    for i, a in enumerate(body.launcher_names()):
        if i in body.gathered:
            lines.append(f"    {a}_inner = inner_sizes({a}.shape, list(range({body.gathered[i]})))   "
                         "# read at the row-major index, through its strides")
        elif i in body.numbers:
            lines.append(f"    {a} = float({a})   # a number of the forward, passed by value")
        elif body.full[i]:
            lines.append(f"    assert {a}.shape == shape, 'input {a} must have the full output shape'")
            lines.append(f"    {a} = {a}.permute(order).contiguous()   # no copy when already in that layout"
                         if keep_layout else f"    {a} = {a}.contiguous()")
        else:
            s = body.strides(i)
            lines.append(f"    {a} = {a}.to({device})")
            lines.append(f"    {s} = {a}.expand(shape).stride()")
            if body.skipped[i]:
                cond = " and ".join(f"{s}[{d}] == 0" for d in body.skipped[i])
                lines.append(f"    assert {cond}, 'input {a} must broadcast as in the traced model'")
    return lines


def prologue_function(name: str, members: list[fx.Node], x: fx.Node, plan: Plan) -> tuple[PointwiseBody, str]:
    """A pointwise group fused in front of a kernel that reads ``x`` (a reduction, a pooling): the device
    function ``{name}_prologue(offs, mask, other, ...)`` computes x at flat offsets of its contiguous layout
    from the group's inputs (``other`` where masked), so x is never written. Returns the body (for the
    launcher: ``prologue_prep``) and the function's source."""
    pw = pointwise_body(members, external_inputs(members, ops=plan.ops), {}, shape_of(x), plan)
    params = ", ".join(pw.params() + pw.index_params())
    comment = "\n".join(f"    # {describe_node(n, plan)}" for n in members)
    source = (
        "@triton.jit\n"
        f"def {name}_prologue(offs, mask, other, {params}):\n"
        f"{comment}\n"
        + "".join(f"    {line}\n" for line in pw.lines)
        + f"    return tl.where(mask, {pw.value_of[x]}, other)\n"
    )
    return pw, source


def prologue_prep(pw: PointwiseBody, rank: int) -> list[str]:
    """Launcher lines for a fused prologue: the broadcast shape of its inputs (``shape``), the inputs laid
    out contiguously, their index sizes (``inner``)."""
    first_full = pw.full.index(True)
    return ([f"    shape = torch.broadcast_shapes({', '.join(v + '.shape' for v in pw.tensor_names())})",
             f"    assert len(shape) == {rank}, 'rank differs from the traced model'"]
            + pointwise_inputs_prep(pw, rank, f"a{first_full}.device", keep_layout=False)
            + [f"    inner = inner_sizes(shape, list(range({rank})))"])


def pointwise_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    """The kernel and launcher text, and the launcher's call arguments.

    The kernel walks the output in the memory order of the first full-shaped input (so channels-last or
    transposed tensors are not copied); other inputs broadcast into it through their strides, and only
    along the dims where the traced model had them vary (the launcher asserts the rest are broadcast)."""
    out_shape = shape_of(kernel.outputs[0])
    rank = len(out_shape)
    name = kernel.name
    pw = pointwise_body(kernel.nodes, kernel.inputs, kernel.split_bias, out_shape, plan)
    tensors, full, value_of = pw.tensors, pw.full, pw.value_of
    stores = [f"tl.store(out{i}_ptr + offs, {value_of[n]}.to(out{i}_ptr.dtype.element_ty), mask=mask)"
              for i, n in enumerate(kernel.outputs)]
    params = pw.params() + [f"out{i}_ptr" for i in range(len(kernel.outputs))] + ["n_elements"] + \
        pw.index_params() + ["BLOCK_SIZE: tl.constexpr"]
    comment = "\n".join(f"    # {describe_node(n, plan)}" for n in kernel.nodes)
    kernel_src = (
        "@triton.jit\n"
        f"def {name}_kernel({', '.join(params)}):\n"
        f"{comment}\n"
        "    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
        "    mask = offs < n_elements\n"
        + "".join(f"    {line}\n" for line in pw.lines + stores)
    )
    a = pw.launcher_names()
    first_full = full.index(True) if any(full) else None
    device = f"a{first_full}.device" if first_full is not None else f"{pw.tensor_names()[0]}.device"
    reshape = next((n for n in kernel.nodes if "gather" in plan.ops[n].extra), None)
    if reshape is not None:               # the output has the reshape's shape, walked in row-major order
        launcher = [f"def {name}({', '.join(a + ['sizes'])}):",
                    f"    shape = reshaped({a[min(pw.gathered)]}.numel(), sizes)",
                    f"    assert len(shape) == {rank}, 'rank differs from the traced model'",
                    f"    order = list(range({rank}))"]
    else:
        launcher = [f"def {name}({', '.join(a)}):",
                    f"    shape = torch.broadcast_shapes({', '.join(x + '.shape' for x in pw.tensor_names())})",
                    f"    assert len(shape) == {rank}, 'rank differs from the traced model'",
                    f"    order = memory_order(a{first_full}) or list(range({rank}))   # keep its layout"
                    if first_full is not None else f"    order = list(range({rank}))"]
    launcher += pointwise_inputs_prep(pw, rank, device, keep_layout=True)
    launcher.append("    inner = inner_sizes(shape, order)")
    outs = [f"out{i}" for i in range(len(kernel.outputs))]
    for o, n in zip(outs, kernel.outputs):       # laid out in the walk order: dim d's stride is inner[d]
        launcher.append(f"    {o} = torch.empty_strided(shape, inner, device={device}, "
                        f"dtype={tensor_meta(n).dtype})")
    call_args = a + outs + ["out0.numel()"] + pw.index_args()
    launcher += [
        f"    grid = (triton.cdiv(out0.numel(), {knobs['BLOCK_SIZE']}),)",
        f"    {name}_kernel[grid]({', '.join(call_args)}, BLOCK_SIZE={knobs['BLOCK_SIZE']}, "
        f"num_warps={knobs['num_warps']})",
        f"    return {', '.join(outs)}",
    ]
    sizes = [render(plan.ops[reshape].extra["gather"])] if reshape is not None else []
    return kernel_src + "\n\n" + "\n".join(launcher), [t[1] for t in tensors] + sizes
