"""Backward kernels of pointwise kernels (issue 16): the gradients of a fused group's inputs in one Triton
kernel, tied to the forward kernel by a ``torch.autograd.Function``.

The backward kernel recomputes the group's values from its inputs (cheaper than saving them: the forward
saves only its inputs), then walks the group backwards through ``derivative.py``'s table, evaluated on
``Expr`` values that print Triton expressions instead of computing; each input's gradient is stored at the
output's full shape and summed back to the input's own shape by torch (a bias's gradient is the sum over the
batch). A backward run with grad mode on (``create_graph=True``, a gradient penalty) recomputes the group in
torch instead and differentiates that, so second derivatives stay exact. A kernel with an op outside the
table has no backward: the module's dispatch keeps the fallback to the original forward for autograd.
"""
from __future__ import annotations

from typing import Any

import torch
from torch import fx

from ..base import ProposalError
from . import derivative
from .ops import UNARY, ZERO_ONE, _FUNCTION_NAMES, _softplus, lit
from .plan import Kernel, Plan, has_gather, is_number, tensor_meta
from .pointwise import PointwiseBody, pointwise_body, pointwise_inputs_prep
from .text import describe_node, shape_of

NO_GRADIENT = set(ZERO_ONE)        # comparisons and logical ops: bool values, no gradient flows through them

RECOMPUTE_HELPER = '''
def recomputed_grads(recompute, args, grads, needed):
    """The gradients of a kernel's inputs by torch's autograd through the kernel's ops in torch: the backward
    run with grad mode on (create_graph=True), itself differentiable, where the Triton backward is not. The
    ops read views of the inputs: the gradient of each is then its own (an input computed from another
    would otherwise count the other's path twice), and still a function of the input for the next order."""
    with torch.enable_grad():
        args = [a.view_as(a) if isinstance(a, torch.Tensor) else a for a in args]
        outs = recompute(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    pairs = [(o, g) for o, g in zip(outs, grads) if o.requires_grad]
    wanted = [i for i, need in enumerate(needed) if need]
    found = torch.autograd.grad([o for o, _ in pairs], [args[i] for i in wanted], [g for _, g in pairs],
                                create_graph=True, allow_unused=True)
    result = [None] * len(args)
    for i, g in zip(wanted, found):
        result[i] = g
    return tuple(result)
'''


class Expr:
    """A Triton expression in the backward kernel's body: ``derivative.vjp`` runs on these, its torch calls
    and operators building the text of the gradient instead of computing it."""

    def __init__(self, text: str) -> None:
        self.text = text

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> "Expr":
        kwargs = kwargs or {}
        if func is torch.where:
            c, a, b = (_text(x) for x in args)
            return Expr(f"tl.where(({c}) != 0, {a}, {b})")
        if func is torch.zeros_like:
            return Expr(f"tl.zeros_like({_text(args[0])})")
        if func is torch.ones_like and kwargs.get("dtype") is torch.bool:      # True everywhere, NaN too
            x = _text(args[0])
            return Expr(f"((({x}) == ({x})) | (({x}) != ({x})))")
        if func is torch.sign:
            x = _text(args[0])
            return Expr(f"tl.where(({x}) > 0, 1.0, tl.where(({x}) < 0, -1.0, tl.where(({x}) == 0, 0.0, {x})))")
        if func is torch.nn.functional.softplus and len(args) == 1 and not kwargs:
            return Expr(_softplus(_text(args[0])))
        name = _FUNCTION_NAMES.get(func)
        if name in UNARY and len(args) == 1 and not kwargs:
            return Expr(UNARY[name](_text(args[0])))
        raise ProposalError(f"internal: no Triton form for {getattr(func, '__name__', func)} in a backward")

    def _binary(self, other: Any, symbol: str, reverse: bool = False) -> "Expr":
        a, b = (_text(other), self.text) if reverse else (self.text, _text(other))
        return Expr(f"(({a}) {symbol} ({b}))")

    def __add__(self, o: Any) -> "Expr": return self._binary(o, "+")
    def __radd__(self, o: Any) -> "Expr": return self._binary(o, "+", True)
    def __sub__(self, o: Any) -> "Expr": return self._binary(o, "-")
    def __rsub__(self, o: Any) -> "Expr": return self._binary(o, "-", True)
    def __mul__(self, o: Any) -> "Expr": return self._binary(o, "*")
    def __rmul__(self, o: Any) -> "Expr": return self._binary(o, "*", True)
    def __truediv__(self, o: Any) -> "Expr": return self._binary(o, "/")
    def __rtruediv__(self, o: Any) -> "Expr": return self._binary(o, "/", True)
    def __and__(self, o: Any) -> "Expr": return self._binary(o, "&")
    def __or__(self, o: Any) -> "Expr": return self._binary(o, "|")
    def __lt__(self, o: Any) -> "Expr": return self._binary(o, "<")
    def __le__(self, o: Any) -> "Expr": return self._binary(o, "<=")
    def __gt__(self, o: Any) -> "Expr": return self._binary(o, ">")
    def __ge__(self, o: Any) -> "Expr": return self._binary(o, ">=")
    def __eq__(self, o: Any) -> "Expr": return self._binary(o, "==")    # type: ignore[override]
    def __neg__(self) -> "Expr": return Expr(f"(-({self.text}))")
    __hash__ = None          # type: ignore[assignment]


def _text(value: Any) -> str:
    return value.text if isinstance(value, Expr) else lit(value)


def no_backward_reason(kernel: Kernel, plan: Plan) -> str | None:
    """Why ``kernel`` gets no backward kernel (None when it does)."""
    if kernel.kind != "pointwise":
        return f"a {kernel.kind} kernel has no backward yet"
    if has_gather(kernel, plan.ops):
        return "a reshape read through strides has no backward yet"
    for n in kernel.outputs:
        meta = tensor_meta(n)
        if meta is None or not meta.dtype.is_floating_point:
            return f"its output {n.name} is not a float tensor"
    for n in kernel.nodes:
        op = plan.ops[n]
        if op.extra.get("indices") or op.extra.get("source"):
            return f"{op.name} reads index arithmetic"
        if op.name not in NO_GRADIENT and derivative.op_vjp_params(op) is None:
            return f"{op.name} has no derivative in the table"
    return None


def _differentiable(i: int, pw: PointwiseBody) -> bool:
    """Whether the kernel's tensor input ``i`` gets a gradient (a float tensor, not a number)."""
    return i not in pw.numbers and i not in pw.gathered


def input_positions(kernel: Kernel) -> dict[fx.Node, int]:
    """Each input's position among the launcher's arguments (a split bias follows its linear/conv), in the
    order ``pointwise_body`` gives them (a kernel with a backward reads no input through a reshape)."""
    positions, i = {}, 0
    for node in kernel.inputs:
        positions[node] = i
        i += 2 if node in kernel.split_bias else 1
    return positions


def backward_body(kernel: Kernel, plan: Plan, pw: PointwiseBody) -> tuple[list[str], dict[int, str]]:
    """Lines after the recomputation: the group walked backwards from the output gradients ``g0``, ``g1``;
    returns them and, per tensor input index, the variable holding its gradient (inputs no gradient reaches
    are absent)."""
    lines: list[str] = []
    pieces: dict[fx.Node, list[str]] = {n: [f"g{j}"] for j, n in enumerate(kernel.outputs)}
    count = 0
    inputs_of = input_positions(kernel)

    def total(node: fx.Node) -> str:
        name = f"d_{node.name}"
        lines.append(f"{name} = " + " + ".join(pieces[node]))
        return name

    for node in reversed(kernel.nodes):
        if node not in pieces:
            continue
        op = plan.ops[node]
        grad = total(node)
        if op.name in NO_GRADIENT:
            continue
        operands = [Expr(pw.value_of[a]) if isinstance(a, fx.Node) else a for a in op.tensor_args]
        found = derivative.vjp(op.name, Expr(grad), Expr(pw.value_of[node]), operands,
                               derivative.op_vjp_params(op))
        for a, g in zip(op.tensor_args, found):
            if g is None or not isinstance(a, fx.Node) or is_number(a):
                continue
            meta = tensor_meta(a)
            if meta is None or not meta.dtype.is_floating_point:
                continue
            lines.append(f"b{count} = {g.text}")
            pieces.setdefault(a, []).append(f"b{count}")
            count += 1
    grads: dict[int, str] = {}
    for node, i in inputs_of.items():
        if node in pieces and _differentiable(i, pw):
            name = total(node)
            grads[i] = name
            if node in kernel.split_bias:               # value (in_i + in_i+1): the bias gets the same gradient
                grads[i + 1] = name
    return lines, grads


def backward_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> str:
    """The backward kernel and its launcher ``{name}_backward(a0, ..., g0, ...)``: one gradient per launcher
    argument (None for numbers and for inputs no gradient reaches), each of its argument's shape and dtype."""
    out_shape = shape_of(kernel.outputs[0])
    rank = len(out_shape)
    name = kernel.name
    pw = pointwise_body(kernel.nodes, kernel.inputs, kernel.split_bias, out_shape, plan)
    body, grads = backward_body(kernel, plan, pw)
    if not grads:
        raise ProposalError(f"internal: no gradient reaches the inputs of {name}")
    a = pw.launcher_names()
    gs = [f"g{j}" for j in range(len(kernel.outputs))]
    ds = [f"d{i}" for i in sorted(grads)]
    loads = [f"g{j} = tl.load(g{j}_ptr + offs, mask=mask, other=0.0).to(tl.float32)" for j in range(len(gs))]
    stores = [f"tl.store(d{i}_ptr + offs, {grads[i]}.to(d{i}_ptr.dtype.element_ty), mask=mask)" for i in sorted(grads)]
    params = pw.params() + [f"{g}_ptr" for g in gs] + [f"{d}_ptr" for d in ds] + ["n_elements"] + \
        pw.index_params() + ["BLOCK_SIZE: tl.constexpr"]
    kernel_src = (
        "@triton.jit\n"
        f"def {name}_backward_kernel({', '.join(params)}):\n"
        f"    # the gradients of {name}'s inputs: its values recomputed, then its ops walked backwards\n"
        + "".join(f"    # {describe_node(n, plan)}\n" for n in kernel.nodes) +
        "    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
        "    mask = offs < n_elements\n"
        + "".join(f"    {line}\n" for line in pw.lines + loads + body + stores)
    )
    first_full = pw.full.index(True) if any(pw.full) else None
    device = f"a{first_full}.device" if first_full is not None else f"{pw.tensor_names()[0]}.device"
    launcher = [f"def {name}_backward({', '.join(a + gs)}):",
                f"    shape = torch.broadcast_shapes({', '.join(x + '.shape' for x in pw.tensor_names())})"]
    launcher += pointwise_inputs_prep(pw, rank, device, keep_layout=False)
    launcher.append(f"    inner = inner_sizes(shape, list(range({rank})))")
    launcher += [f"    {g} = {g}.expand(shape).contiguous()   # any layout of the incoming gradient" for g in gs]
    for i in sorted(grads):
        dtype = f"{a[i]}.dtype" if pw.full[i] else "torch.float32"     # summed in float32 where broadcast
        launcher.append(f"    d{i} = torch.empty(shape, device={device}, dtype={dtype})")
    launcher += [
        f"    grid = (triton.cdiv(max(g0.numel(), 1), {knobs['BLOCK_SIZE']}),)",
        f"    {name}_backward_kernel[grid]({', '.join(a + gs + ds + ['g0.numel()'] + pw.index_args())}, "
        f"BLOCK_SIZE={knobs['BLOCK_SIZE']}, num_warps={knobs['num_warps']})",
    ]
    results = []
    for i in range(len(a)):
        if i not in grads:
            results.append("None")
        elif pw.full[i]:
            results.append(f"d{i}")
        else:
            results.append(f"d{i}.sum_to_size({a[i]}.shape).to({a[i]}.dtype)")
    launcher.append(f"    return {', '.join(results)}" + ("," if len(results) == 1 else ""))
    return kernel_src + "\n\n" + "\n".join(launcher)


def autograd_function(kernel: Kernel, count: int) -> str:
    """``{name}_function``, the ``torch.autograd.Function`` of a kernel with ``count`` launcher arguments, and
    ``{name}_call(recompute, *args)``: the Function where autograd records the call, the plain launcher
    otherwise (no autograd cost at inference)."""
    name = kernel.name
    outputs = len(kernel.outputs)
    grads = ", ".join(f"g{j}" for j in range(outputs))
    return f'''
class {name}_function(torch.autograd.Function):
    """{name}'s forward kernel, with its backward kernel for autograd; the inputs are saved, the group's
    values recomputed in the backward."""

    @staticmethod
    def forward(ctx, recompute, *args):
        ctx.recompute = recompute
        ctx.numbers = [None if isinstance(a, torch.Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, torch.Tensor)])
        return {name}(*args)

    @staticmethod
    def backward(ctx, {grads}):
        saved = iter(ctx.saved_tensors)
        args = [next(saved) if a is None else a for a in ctx.numbers]
        if torch.is_grad_enabled():          # create_graph=True: a backward that is itself differentiable
            return (None,) + recomputed_grads(ctx.recompute, args, ({grads},), ctx.needs_input_grad[1:])
        return (None,) + {name}_backward(*args, {grads})


def {name}_call(recompute, *args):
    if torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
        return {name}_function.apply(recompute, *args)
    return {name}(*args)
'''.strip()


def recompute_method(kernel: Kernel, torch_lines: list[str]) -> str:
    """``_{name}_torch(self, p0, ...)``: the kernel's ops in torch, from the launcher's arguments
    (``input_positions``; the backward with grad mode on differentiates this)."""
    positions = input_positions(kernel)
    lines = [f"{node.name} = p{i} + p{i + 1}" if node in kernel.split_bias else f"{node.name} = p{i}"
             for node, i in positions.items()]           # a split bias: the linear/conv's, added in the kernel
    count = sum(2 if node in kernel.split_bias else 1 for node in kernel.inputs)
    params = ", ".join(f"p{k}" for k in range(count))
    outs = ", ".join(n.name for n in kernel.outputs)
    body = "\n".join(f"    {line}" for line in lines + torch_lines + [f"return {outs}"])
    return f"def _{kernel.name}_torch(self, {params}):\n" + body
