"""Source generation: a Plan becomes one self-contained, readable candidate file.

The file keeps the reference's imports, module-level constants, helper classes and the reference class's
constructor (renamed ModelNew, so parameter names, ``state_dict`` keys and checkpoints stay the same), and
replaces ``forward`` with straight-line code: PyTorch calls for what stays in torch, and a launcher per
Triton kernel. Kernels read every size at run time; an assumption about shapes is asserted.
"""
from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from typing import Any

import torch
from torch import fx

from ..base import ProposalError
from .capture import Captured, reference_class_node
from .ops import lit
from .plan import Kernel, Plan, gemm_operands, self_path, tensor_meta

DEFAULT_KNOBS = {"pointwise": {"BLOCK_SIZE": 1024, "num_warps": 4},
                 "reduction": {"BLOCK_SIZE": 2048, "num_warps": 8, "TILE": 4096},
                 "gemm": {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8, "num_warps": 4,
                          "num_stages": 3}}
_DROPPED_FUNCTIONS = {"get_inputs", "get_init_inputs"}


def render(value: Any) -> str:
    """Python source for an fx argument."""
    if isinstance(value, fx.Node):
        return value.name
    if isinstance(value, tuple):
        inner = ", ".join(render(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(render(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{render(k)}: {render(v)}" for k, v in value.items()) + "}"
    if isinstance(value, slice):
        return f"slice({render(value.start)}, {render(value.stop)}, {render(value.step)})"
    if isinstance(value, float):
        return lit(value)
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, torch.memory_format):
        return str(value)
    if value is Ellipsis:
        return "..."
    if isinstance(value, (int, bool, str, type(None))):
        return repr(value)
    raise ProposalError(f"unsupported: cannot write the argument {value!r} ({type(value).__name__}) as source")


def _qualified(target: Any) -> str:
    if getattr(target, "__module__", None) in ("_operator", "operator"):
        return f"operator.{target.__name__}"
    if target is getattr:
        return "getattr"
    name = fx.node._get_qualified_name(target)
    if not (name.startswith("torch.") or name.startswith("operator.") or name.startswith("math.")):
        raise ProposalError(f"unsupported: the forward calls {name}, which a candidate file cannot import")
    return name


def _call_args(node: fx.Node, skip_first: bool = False) -> str:
    args = list(node.args[1:] if skip_first else node.args)
    parts = [render(a) for a in args] + [f"{k}={render(v)}" for k, v in node.kwargs.items()]
    return ", ".join(parts)


class SourceWriter:
    """Builds the candidate file for one plan and kernel knobs."""

    def __init__(self, captured: Captured, plan: Plan, knobs: dict[int, dict[str, int]]) -> None:
        self.captured = captured
        self.plan = plan
        self.knobs = knobs
        self.kernel_sources: list[str] = []
        self.needs_operator = False

    # forward
    def forward_lines(self) -> list[str]:
        lines: list[str] = []
        for step in self.plan.steps:
            if isinstance(step, Kernel):
                lines.append(self.kernel_call(step))
            else:
                line = self.torch_line(step)
                if line:
                    lines.append(line)
        return lines

    def torch_line(self, node: fx.Node) -> str | None:
        if node.op == "placeholder":
            return None
        if node.op == "get_attr":
            return f"{node.name} = {self.attribute(node)}"
        if node.op == "output":
            return f"return {render(node.args[0])}"
        if node.op == "call_module":
            if node in self.plan.split_nodes:
                return f"{node.name} = {self.without_bias(node)}"
            return f"{node.name} = {self_path(node.target)}({_call_args(node)})"
        if node.op == "call_method":
            return f"{node.name} = {render(node.args[0])}.{node.target}({_call_args(node, skip_first=True)})"
        name = _qualified(node.target)
        self.needs_operator |= name.startswith("operator.")
        return f"{node.name} = {name}({_call_args(node)})"

    def attribute(self, node: fx.Node) -> str:
        """``self.<path>`` for the module's own attributes; a literal for constants fx lifted out of forward."""
        target = str(node.target)
        if not target.startswith("_tensor_constant"):
            return self_path(target)
        value = getattr(self.captured.graph_module, target)
        if not isinstance(value, torch.Tensor) or value.numel() > 64 or value.device.type == "meta":
            raise ProposalError("unsupported: the forward creates a tensor constant the proposer cannot copy "
                                f"({target})")
        return f"torch.tensor({value.tolist()!r}, dtype={value.dtype})"

    def without_bias(self, node: fx.Node) -> str:
        module = self.captured.modules[str(node.target)]
        m = self_path(node.target)
        x = render(node.args[0])
        kind = type(module).__name__
        if kind == "Linear":
            return f"torch.nn.functional.linear({x}, {m}.weight)"
        if kind.startswith("ConvTranspose"):
            return (f"torch.nn.functional.conv_transpose{kind[-2]}d({x}, {m}.weight, None, {m}.stride, {m}.padding, "
                    f"{m}.output_padding, {m}.groups, {m}.dilation)")
        return f"torch.nn.functional.conv{kind[-2]}d({x}, {m}.weight, None, {m}.stride, {m}.padding, {m}.dilation, " \
               f"{m}.groups)"

    def kernel_call(self, kernel: Kernel) -> str:
        knobs = {**DEFAULT_KNOBS[kernel.kind], **self.knobs.get(kernel.index, {})}
        if kernel.kind == "pointwise":
            source, args = pointwise_kernel(kernel, self.plan, knobs)
        elif kernel.kind == "gemm":
            source, args = gemm_kernel(kernel, self.plan, knobs, self.captured.modules)
        else:
            source, args = reduction_kernel(kernel, self.plan, knobs)
        self.kernel_sources.append(source)
        targets = ", ".join(n.name for n in kernel.outputs)
        return f"{targets} = {kernel.name}({', '.join(args)})"

    # the whole file
    def write(self) -> str:
        forward = self.forward_lines()
        placeholders = [n for n in self.captured.graph_module.graph.nodes if n.op == "placeholder"]
        params = ", ".join(["self"] + [p.name + (f"={render(p.args[0])}" if p.args else "") for p in placeholders])
        forward_src = f"def forward({params}):\n" + textwrap.indent("\n".join(forward), "    ")
        imports, body = self.module_without_reference(forward_src)
        header = ["import torch", "import triton", "import triton.language as tl"]
        if self.needs_operator:
            header.append("import operator")
        header += [line for line in imports if line not in header]
        if any(k.kind == "pointwise" or (k.kind == "reduction" and len(k.nodes) > 1) for k in self.plan.kernels):
            self.kernel_sources.insert(0, LAYOUT_HELPERS.strip())
        kernels = "\n\n\n".join(self.kernel_sources)
        return "\n".join(header) + f"\n\n\n{kernels}\n\n\n{body}\n"

    def module_without_reference(self, forward_src: str) -> tuple[list[str], str]:
        """(import lines, body): the reference module with ModelNew in place of the reference class.

        Constants and helper definitions stay (the constructor may use them); get_inputs/get_init_inputs and
        top-level statements with effects go."""
        tree = ast.parse(self.captured.source)
        class_name = self.captured.spec.class_name
        reference_class_node(self.captured.source, class_name)   # raises if missing
        imports: list[str] = []
        blocks: list[list[str]] = []             # definitions apart, consecutive constants together
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imports.append(ast.unparse(node))
            elif isinstance(node, ast.ClassDef) and node.name == class_name:
                blocks.append([self.model_new(node, forward_src)])
            elif isinstance(node, ast.FunctionDef) and node.name in _DROPPED_FUNCTIONS:
                continue
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                blocks.append([ast.unparse(node)])
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                if blocks and blocks[-1] and blocks[-1][-1].split("\n")[0].split(" ")[0] not in ("class", "def"):
                    blocks[-1].append(ast.unparse(node))
                else:
                    blocks.append([ast.unparse(node)])
        return imports, "\n\n\n".join("\n".join(b) for b in blocks)

    def model_new(self, cls: ast.ClassDef, forward_src: str) -> str:
        class_name = cls.name
        cls = ast.parse(ast.unparse(cls)).body[0]
        for node in ast.walk(cls):
            if isinstance(node, ast.Name) and node.id == class_name:
                node.id = "ModelNew"
        cls.name = "ModelNew"
        cls.body = [n for n in cls.body if not (isinstance(n, ast.FunctionDef) and n.name == "forward")]
        cls.body.append(ast.parse(forward_src).body[0])
        doc = ast.Expr(ast.Constant(f"{class_name} with its forward rewritten to Triton kernels by the AdaExplore "
                                    "built-in proposer (same constructor, same state_dict)."))
        if cls.body and isinstance(cls.body[0], ast.Expr) and isinstance(getattr(cls.body[0], "value", None),
                                                                          ast.Constant):
            cls.body[0] = doc
        else:
            cls.body.insert(0, doc)
        return ast.unparse(ast.fix_missing_locations(cls))


def _shape(node: fx.Node) -> tuple[int, ...]:
    return tuple(tensor_meta(node).shape)


def _describe(node: fx.Node, plan: Plan) -> str:
    op = plan.ops[node]
    args = ", ".join(a.name if isinstance(a, fx.Node) else render(a) for a in op.tensor_args)
    return f"{node.name} = {op.name}({args})"


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


def _aligned(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    return (1,) * (rank - len(shape)) + tuple(shape)


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

    def params(self) -> list[str]:
        return [f"{t[0]}_ptr" for t in self.tensors]

    def index_params(self) -> list[str]:
        return [p for d in self.dims for p in (f"inner{d}", f"size{d}")] + \
            [f"{self.tensors[i][0]}_s{d}" for i in self.varying for d in self.varying[i]]

    def index_args(self) -> list[str]:
        return [x for d in self.dims for x in (f"inner[{d}]", f"shape[{d}]")] + \
            [f"s{i}[{d}]" for i in self.varying for d in self.varying[i]]


def pointwise_body(nodes: list[fx.Node], inputs: list[fx.Node], split_bias: dict[fx.Node, str],
                   out_shape: tuple[int, ...], plan: Plan, offs: str = "offs") -> PointwiseBody:
    rank = len(out_shape)
    tensors: list[tuple[str, str, tuple[int, ...]]] = []
    value_of: dict[fx.Node, str] = {}
    for node in inputs:
        i = len(tensors)
        tensors.append((f"in{i}", node.name, _shape(node)))
        value_of[node] = f"in{i}"
        if node in split_bias:                  # the linear/conv ran without its bias: add it here
            produced = _shape(node)             # the linear/conv output the bias belongs to
            bias_shape = (produced[-1],) if split_bias[node].endswith(".bias") else \
                (produced[1],) + (1,) * (len(produced) - 2)
            tensors.append((f"in{i + 1}", split_bias[node], bias_shape))
            value_of[node] = f"(in{i} + in{i + 1})"
    full = [t[2] == out_shape for t in tensors]
    varying = {i: [d for d, size in enumerate(_aligned(t[2], rank)) if size == out_shape[d] and size > 1]
               for i, t in enumerate(tensors) if not full[i]}
    skipped = {i: [d for d, size in enumerate(_aligned(tensors[i][2], rank)) if size == 1 and out_shape[d] > 1]
               for i in varying}
    dims = sorted({d for ds in varying.values() for d in ds})
    lines = [f"i{d} = {offs} // inner{d}" + (f" % size{d}" if d else "") for d in dims]
    for i, (arg, _, _) in enumerate(tensors):
        if not full[i] and not varying[i]:         # one value for the whole output (a scalar tensor)
            lines.append(f"{arg} = tl.load({arg}_ptr).to(tl.float32)")
            continue
        where = offs if full[i] else " + ".join(f"i{d} * {arg}_s{d}" for d in varying[i])
        lines.append(f"{arg} = tl.load({arg}_ptr + {where}, mask=mask, other=0.0).to(tl.float32)")
    for node in nodes:
        op = plan.ops[node]
        operands = [value_of[a] if isinstance(a, fx.Node) else lit(a) for a in op.tensor_args]
        lines.append(f"v_{node.name} = {op.expr(*operands)}")
        value_of[node] = f"v_{node.name}"
    return PointwiseBody(tensors, full, varying, skipped, dims, lines, value_of)


def pointwise_inputs_prep(body: PointwiseBody, rank: int, device: str, keep_layout: bool) -> list[str]:
    """Launcher lines: check shapes, lay full inputs out in ``order``, strides for broadcast inputs."""
    lines = []
    for i in range(len(body.tensors)):
        if body.full[i]:
            lines.append(f"    assert a{i}.shape == shape, 'input {i} must have the full output shape'")
            lines.append(f"    a{i} = a{i}.permute(order).contiguous()   # no copy when already in that layout"
                         if keep_layout else f"    a{i} = a{i}.contiguous()")
        else:
            lines.append(f"    a{i} = a{i}.to({device})")
            lines.append(f"    s{i} = a{i}.expand(shape).stride()")
            if body.skipped[i]:
                cond = " and ".join(f"s{i}[{d}] == 0" for d in body.skipped[i])
                lines.append(f"    assert {cond}, 'input {i} must broadcast as in the traced model'")
    return lines


def pointwise_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    """The kernel and launcher text, and the launcher's call arguments.

    The kernel walks the output in the memory order of the first full-shaped input (so channels-last or
    transposed tensors are not copied); other inputs broadcast into it through their strides, and only
    along the dims where the traced model had them vary (the launcher asserts the rest are broadcast)."""
    out_shape = _shape(kernel.outputs[0])
    rank = len(out_shape)
    name = kernel.name
    pw = pointwise_body(kernel.nodes, kernel.inputs, kernel.split_bias, out_shape, plan)
    tensors, full, value_of = pw.tensors, pw.full, pw.value_of
    stores = [f"tl.store(out{i}_ptr + offs, {value_of[n]}.to(out{i}_ptr.dtype.element_ty), mask=mask)"
              for i, n in enumerate(kernel.outputs)]
    params = pw.params() + [f"out{i}_ptr" for i in range(len(kernel.outputs))] + ["n_elements"] + \
        pw.index_params() + ["BLOCK_SIZE: tl.constexpr"]
    comment = "\n".join(f"    # {_describe(n, plan)}" for n in kernel.nodes)
    kernel_src = (
        "@triton.jit\n"
        f"def {name}_kernel({', '.join(params)}):\n"
        f"{comment}\n"
        "    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
        "    mask = offs < n_elements\n"
        + "".join(f"    {line}\n" for line in pw.lines + stores)
    )
    a = [f"a{i}" for i in range(len(tensors))]
    first_full = full.index(True) if any(full) else None
    device = f"a{first_full if first_full is not None else 0}.device"
    launcher = [f"def {name}({', '.join(a)}):",
                f"    shape = torch.broadcast_shapes({', '.join(x + '.shape' for x in a)})",
                f"    assert len(shape) == {rank}, 'rank differs from the traced model'"]
    if first_full is not None:
        launcher.append(f"    order = memory_order(a{first_full}) or list(range({rank}))   # keep its layout")
    else:
        launcher.append(f"    order = list(range({rank}))")
    launcher += pointwise_inputs_prep(pw, rank, device, keep_layout=True)
    launcher.append("    inner = inner_sizes(shape, order)")
    outs = [f"out{i}" for i in range(len(kernel.outputs))]
    for o, n in zip(outs, kernel.outputs):
        launcher.append(f"    {o} = torch.empty([shape[d] for d in order], device={device}, "
                        f"dtype={tensor_meta(n).dtype})")
    call_args = a + outs + ["out0.numel()"] + pw.index_args()
    inverse = "[order.index(d) for d in range(len(order))]"
    launcher += [
        f"    grid = (triton.cdiv(out0.numel(), {knobs['BLOCK_SIZE']}),)",
        f"    {name}_kernel[grid]({', '.join(call_args)}, BLOCK_SIZE={knobs['BLOCK_SIZE']}, "
        f"num_warps={knobs['num_warps']})",
        f"    return {', '.join(o + '.permute(' + inverse + ')' for o in outs)}",
    ]
    return kernel_src + "\n\n" + "\n".join(launcher), [t[1] for t in tensors]


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
    "amax": ("acc = tl.full([BLOCK_SIZE], float('-inf'), tl.float32)\n"
             "for start in range(0, n_cols, BLOCK_SIZE):\n"
             "    x = tl.load(x_row + start + offs, mask=start + offs < n_cols, other=float('-inf')).to(tl.float32)\n"
             "    acc = tl.maximum(acc, x)\n"
             "tl.store(out_ptr + row, tl.max(acc, axis=0))"),
    "amin": ("acc = tl.full([BLOCK_SIZE], float('inf'), tl.float32)\n"
             "for start in range(0, n_cols, BLOCK_SIZE):\n"
             "    x = tl.load(x_row + start + offs, mask=start + offs < n_cols, other=float('inf')).to(tl.float32)\n"
             "    acc = tl.minimum(acc, x)\n"
             "tl.store(out_ptr + row, tl.min(acc, axis=0))"),
}
_ONLINE_MAX_SUM = (
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
_REDUCTION_BODIES["logsumexp"] = _ONLINE_MAX_SUM + "tl.store(out_ptr + row, row_max + tl.log(row_sum))"
_ROW_WRITE = (
    "for start in range(0, n_cols, BLOCK_SIZE):\n"
    "    mask = start + offs < n_cols\n"
    "    x = tl.load(x_row + start + offs, mask=mask, other=0.0).to(tl.float32)\n"
    "    tl.store(out_row + start + offs, ({value}).to(out_ptr.dtype.element_ty), mask=mask)"
)
_REDUCTION_BODIES["softmax"] = _ONLINE_MAX_SUM + "inv = 1.0 / row_sum\n" + \
    _ROW_WRITE.format(value="tl.exp(x - row_max) * inv")
_REDUCTION_BODIES["log_softmax"] = _ONLINE_MAX_SUM + "log_sum = tl.log(row_sum)\n" + \
    _ROW_WRITE.format(value="x - row_max - log_sum")
_REDUCTION_BODIES["layer_norm"] = (
    "acc = tl.zeros([BLOCK_SIZE], tl.float32)\n"
    "for start in range(0, n_cols, BLOCK_SIZE):\n"
    "    acc += tl.load(x_row + start + offs, mask=start + offs < n_cols, other=0.0).to(tl.float32)\n"
    "mean = tl.sum(acc, axis=0) / n_cols\n"
    "acc = tl.zeros([BLOCK_SIZE], tl.float32)   # second pass: variance around the mean (no cancellation)\n"
    "for start in range(0, n_cols, BLOCK_SIZE):\n"
    "    mask = start + offs < n_cols\n"
    "    x = tl.load(x_row + start + offs, mask=mask, other=0.0).to(tl.float32)\n"
    "    acc += tl.where(mask, (x - mean) * (x - mean), 0.0)\n"
    "rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)\n"
    + _ROW_WRITE.format(value="(x - mean) * rstd * {weight} + {bias}")
)
_REDUCTION_BODIES["group_norm"] = _REDUCTION_BODIES["layer_norm"]    # same statistics, other affine indexing
_FULL_OUTPUT = {"softmax", "log_softmax", "layer_norm", "group_norm"}
_NORMS = {"layer_norm", "group_norm"}


# Short rows: a [BLOCK_ROWS, BLOCK_COLS] tile per program, the whole row in registers, one read.
_TILE_BODIES = {
    "sum": ("x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)", "tl.sum(x, axis=1)"),
    "mean": ("x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)", "tl.sum(x, axis=1) / n_cols"),
    "amax": ("x = tl.load(ptrs, mask=mask, other=float('-inf')).to(tl.float32)", "tl.max(x, axis=1)"),
    "amin": ("x = tl.load(ptrs, mask=mask, other=float('inf')).to(tl.float32)", "tl.min(x, axis=1)"),
}
_TILE_EXP = ("x = tl.load(ptrs, mask=mask, other=float('-inf')).to(tl.float32)\n"
             "m = tl.max(x, axis=1)\n"
             "m = tl.where(m == float('-inf'), 0.0, m)   # rows of -inf (and padding rows) stay finite\n"
             "e = tl.exp(x - m[:, None])\n"
             "s = tl.sum(e, axis=1)\n")
_TILE_BODIES["logsumexp"] = (_TILE_EXP, "m + tl.log(s)")
_TILE_FULL = {
    "softmax": _TILE_EXP + "y = e / s[:, None]",
    "log_softmax": _TILE_EXP + "y = x - m[:, None] - tl.log(s)[:, None]",
    "layer_norm": ("x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)\n"
                   "mean = tl.sum(x, axis=1) / n_cols\n"
                   "d = tl.where(mask, x - mean[:, None], 0.0)\n"
                   "rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=1) / n_cols + eps)\n"
                   "y = d * rstd[:, None] * {weight} + {bias}"),
}
_TILE_FULL["group_norm"] = _TILE_FULL["layer_norm"]
# Where a norm's weight and bias are read: by column (layer norm), or by the channel of the element (group
# norm: rows are (sample, group), columns run over the group's channels times the spatial positions).
_AFFINE_INDEX = {
    "layer_norm": ("start + offs", "cols[None, :]"),
    "group_norm": ("(row % groups) * cpg + (start + offs) // spatial",
                   "(rows % groups)[:, None] * cpg + cols[None, :] // spatial"),
}
TILE_MAX_COLS = 1024       # rows up to this length use the tile kernel


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
_MID_BODIES = {
    "sum": _MID_ACCUMULATE.format(init="0.0", update="acc + x", result="acc"),
    "mean": _MID_ACCUMULATE.format(init="0.0", update="acc + x", result="acc / n_red"),
    "amax": _MID_ACCUMULATE.format(init="float('-inf')", update="tl.maximum(acc, x)", result="acc"),
    "amin": _MID_ACCUMULATE.format(init="float('inf')", update="tl.minimum(acc, x)", result="acc"),
    "logsumexp": _MID_ONLINE + "tl.store(out_ptr + outer * n_inner + cols, (m + tl.log(s)).to("
                               "out_ptr.dtype.element_ty), mask=cmask)",
    "softmax": _MID_ONLINE + "inv = 1.0 / s\n" + _MID_WRITE.format(value="tl.exp(x - m) * inv"),
    "log_softmax": _MID_ONLINE + "log_s = tl.log(s)\n" + _MID_WRITE.format(value="x - m - log_s"),
}


def _reduced_dims(op: Any, rank: int) -> tuple[int, ...]:
    if op.reduction == "layer_norm":
        return tuple(range(rank - len(op.dim), rank))
    if op.reduction == "group_norm":
        return tuple(range(1, rank))
    raw = op.dim if isinstance(op.dim, (tuple, list)) else (op.dim,)
    return tuple(sorted({int(d) % rank for d in raw})) if rank else ()


def reduction_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int]) -> tuple[str, list[str]]:
    """Reduced dims in the middle: one strided kernel. Otherwise a looped kernel (one program per row, any
    length) and a tile kernel (many short rows per program), picked by the row length at run time."""
    node = kernel.nodes[-1]
    op = plan.ops[node]
    x = next(a for a in op.tensor_args if isinstance(a, fx.Node))
    rank = len(_shape(x))
    name = kernel.name
    kind = op.reduction
    dims = _reduced_dims(op, rank)
    if kind in _MID_BODIES and dims and dims[-1] < rank - 1 and list(dims) == list(range(dims[0], dims[-1] + 1)):
        return middle_reduction_kernel(kernel, plan, knobs, dims)
    node = kernel.nodes[-1]               # a fused pointwise prologue, if any, comes first
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
    what = f"{_describe(node, plan)} over dims {list(dims)}"
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
             f"        grid = (triton.cdiv(n_rows, block_rows),)",
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
    if len(kernel.nodes) > 1:
        return _with_prologue(kernel, plan, x, loop_src, tile_src, lines, args)
    return loop_src + "\n\n" + tile_src + "\n\n" + "\n".join(lines), args


_LOOP_LOAD = re.compile(r"tl\.load\(x_row \+ start \+ offs, mask=(.+?), other=(0\.0|float\('-?inf'\))\)")
_TILE_LOAD = re.compile(r"tl\.load\(ptrs, mask=mask, other=(0\.0|float\('-?inf'\))\)")


def _with_prologue(kernel: Kernel, plan: Plan, x: fx.Node, loop_src: str, tile_src: str, lines: list[str],
                   args: list[str]) -> tuple[str, list[str]]:
    """Compute the reduction's input inside the reduction kernels: every read of x becomes a call of a
    device function that loads the prologue's inputs and applies its pointwise ops (x never hits memory)."""
    name = kernel.name
    members = kernel.nodes[:-1]
    inputs: list[fx.Node] = []
    for n in members:
        for a in n.all_input_nodes:
            if a not in members and a not in inputs:
                inputs.append(a)
    rank = len(_shape(x))
    pw = pointwise_body(members, inputs, {}, _shape(x), plan)
    params = ", ".join(pw.params() + pw.index_params())
    comment = "\n".join(f"    # {_describe(n, plan)}" for n in members)
    prologue = (
        "@triton.jit\n"
        f"def {name}_prologue(offs, mask, other, {params}):\n"
        f"{comment}\n"
        + "".join(f"    {line}\n" for line in pw.lines)
        + f"    return tl.where(mask, {pw.value_of[x]}, other)\n"
    )
    noted = "".join(f"    # {_describe(n, plan)}   (prologue: computed at each read of x)\n" for n in members)
    loop_src, tile_src = (src.replace("):\n", "):\n" + noted, 1) for src in (loop_src, tile_src))
    loop_src = loop_src.replace("(x_ptr, ", f"({params}, ", 1).replace("    x_row = x_ptr + row * n_cols\n", "")
    loop_src = _LOOP_LOAD.sub(lambda m: f"{name}_prologue(row * n_cols + start + offs, {m.group(1)}, "
                                        f"{m.group(2)}, {params})", loop_src)
    tile_src = tile_src.replace("(x_ptr, ", f"({params}, ", 1).replace("    ptrs = x_ptr + offs2d\n", "")
    tile_src = _TILE_LOAD.sub(lambda m: f"{name}_prologue(offs2d, mask, {m.group(1)}, {params})", tile_src)
    assert "x_ptr" not in loop_src + tile_src and "x_row" not in loop_src, "a read of x was not replaced"
    a = [f"a{i}" for i in range(len(pw.tensors))]
    first_full = pw.full.index(True)
    call = ", ".join(a + pw.index_args())
    head = lines[0].replace(f"def {name}(x", f"def {name}({', '.join(a)}", 1)
    prep = [f"    shape = torch.broadcast_shapes({', '.join(v + '.shape' for v in a)})",
            f"    assert len(shape) == {rank}, 'rank differs from the traced model'"]
    prep += pointwise_inputs_prep(pw, rank, f"a{first_full}.device", keep_layout=False)
    prep += [f"    inner = inner_sizes(shape, list(range({rank})))",
             f"    x = a{first_full}    # the prologue's value has this input's shape (it is never stored)"]
    body = [line.replace("](xt, ", f"]({call}, ") for line in lines[1:]]
    launcher = "\n".join([head] + prep + body)
    return (prologue + "\n\n" + loop_src + "\n\n" + tile_src + "\n\n"
            + launcher, [t[1] for t in pw.tensors] + args[1:])


def middle_reduction_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int], dims: tuple[int, ...]
                            ) -> tuple[str, list[str]]:
    node = kernel.nodes[0]
    op = plan.ops[node]
    x = next(a for a in op.tensor_args if isinstance(a, fx.Node))
    rank = len(_shape(x))
    name, kind = kernel.name, op.reduction
    full = kind in _FULL_OUTPUT
    first, last = dims[0], dims[-1]
    kernel_src = (
        "@triton.jit\n"
        f"def {name}_kernel(x_ptr, out_ptr, n_red, n_inner, n_col_blocks, BLOCK_INNER: tl.constexpr):\n"
        f"    # {_describe(node, plan)} over dims {list(dims)}: x as (outer, n_red, n_inner); each program\n"
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
             "    n_col_blocks = triton.cdiv(n_inner, block)",
             f"    {name}_kernel[(n_outer * n_col_blocks,)](x, out, n_red, n_inner, n_col_blocks, BLOCK_INNER=block, "
             f"num_warps={knobs['num_warps']})",
             "    return out"]
    return kernel_src + "\n\n" + "\n".join(lines), [x.name]


def gemm_kernel(kernel: Kernel, plan: Plan, knobs: dict[str, int], modules: dict[str, Any]
                ) -> tuple[str, list[str]]:
    """A tiled Triton matrix product (fp32 accumulation, IEEE fp32 products: no TF32) with the bias and the
    following pointwise ops applied to each output tile before it is stored."""
    gemm = kernel.nodes[0]
    operands = gemm_operands(gemm, modules)
    name = kernel.name
    members = set(kernel.nodes)
    epilogue_inputs: list[fx.Node] = []
    for n in kernel.nodes[1:]:
        for a in n.all_input_nodes:
            if a not in members and a not in epilogue_inputs:
                epilogue_inputs.append(a)
    value_of: dict[fx.Node, str] = {gemm: "v_gemm"}
    loads = []
    for i, node in enumerate(epilogue_inputs):
        arg = f"e{i}"
        value_of[node] = arg
        loads.append(f"{arg} = tl.load({arg}_ptr + offs_m[:, None] * {arg}_sm + offs_n[None, :] * {arg}_sn, "
                     "mask=mask, other=0.0).to(tl.float32)")
    body = []
    for node in kernel.nodes[1:]:
        op = plan.ops[node]
        terms = [value_of[a] if isinstance(a, fx.Node) else lit(a) for a in op.tensor_args]
        body.append(f"v_{node.name} = {op.expr(*terms)}")
        value_of[node] = f"v_{node.name}"
    has_bias = operands["bias"] is not None
    outs = [f"out{i}" for i in range(len(kernel.outputs))]
    stores = [f"tl.store({o}_ptr + offs_m[:, None] * N + offs_n[None, :], {value_of[n]}.to({o}_ptr.dtype.element_ty), "
              "mask=mask)" for o, n in zip(outs, kernel.outputs)]
    params = (["a_ptr", "w_ptr"] + (["bias_ptr"] if has_bias else []) + [f"e{i}_ptr" for i in range(len(loads))]
              + [f"{o}_ptr" for o in outs] + ["M", "N", "K", "stride_am", "stride_ak", "stride_wk", "stride_wn"]
              + [p for i in range(len(loads)) for p in (f"e{i}_sm", f"e{i}_sn")]
              + ["BLOCK_M: tl.constexpr", "BLOCK_N: tl.constexpr", "BLOCK_K: tl.constexpr", "GROUP_M: tl.constexpr"])
    comment = "\n".join(f"    # {_describe(n, plan)}" for n in kernel.nodes[1:])
    kernel_src = (
        "@triton.jit\n"
        f"def {name}_kernel({', '.join(params)}):\n"
        f"    # {gemm.name} = matmul(a, w{'.T' if operands['transposed'] else ''}){' + bias' if has_bias else ''}, "
        "tiled; then, per output tile:\n"
        f"{comment}\n"
        "    pid = tl.program_id(0)\n"
        "    num_pid_m, num_pid_n = tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N)\n"
        "    group = pid // (GROUP_M * num_pid_n)                  # GROUP_M row blocks share w tiles in L2\n"
        "    first_m = group * GROUP_M\n"
        "    group_size = tl.minimum(num_pid_m - first_m, GROUP_M)\n"
        "    pid_m = first_m + (pid % (GROUP_M * num_pid_n)) % group_size\n"
        "    pid_n = (pid % (GROUP_M * num_pid_n)) // group_size\n"
        "    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)\n"
        "    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n"
        "    offs_k = tl.arange(0, BLOCK_K)\n"
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
    n_expr, strides = ("w.shape[0]", "w.stride(1), w.stride(0)") if operands["transposed"] else \
        ("w.shape[1]", "w.stride(0), w.stride(1)")
    lines = [f"def {name}({', '.join(lp)}):",
             "    assert a.dim() == 2 and w.dim() == 2, 'a 2-D matrix product, as traced'",
             f"    M, K = a.shape",
             f"    N = {n_expr}",
             f"    assert {'w.shape[1]' if operands['transposed'] else 'w.shape[0]'} == K, 'inner dimensions differ'"]
    for i in range(len(loads)):
        lines += [f"    e{i} = e{i}.to(a.device)", f"    s{i} = e{i}.expand(M, N).stride()"]
    lines += [f"    {o} = torch.empty((M, N), device=a.device, dtype={tensor_meta(n).dtype})"
              for o, n in zip(outs, kernel.outputs)]
    call = lp + outs + ["M", "N", "K", "a.stride(0)", "a.stride(1)", strides] + \
        [x for i in range(len(loads)) for x in (f"s{i}[0]", f"s{i}[1]")]
    lines += [f"    grid = (triton.cdiv(M, {knobs['BLOCK_M']}) * triton.cdiv(N, {knobs['BLOCK_N']}),)",
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


def _layer_norm_affine(op: Any, plan: Plan) -> tuple[str | None, str | None]:
    if "module" in op.extra:
        m = self_path(op.extra["module"])
        return (f"{m}.weight" if op.extra["affine"] else None,
                f"{m}.bias" if op.extra["affine"] and op.extra["has_bias"] else None)
    w, b = op.extra.get("weight"), op.extra.get("bias")
    return (render(w) if w is not None else None, render(b) if b is not None else None)


def generate(captured: Captured, plan: Plan, knobs: dict[int, dict[str, int]] | None = None) -> str:
    """The candidate source for ``plan`` with per-kernel ``knobs`` (kernel index -> knob values)."""
    if not plan.kernels:
        numbers = sorted({f"'{a.name}'" for op in plan.ops.values() if op.kind != "torch"
                          for a in op.tensor_args if isinstance(a, fx.Node) and tensor_meta(a) is None})
        if numbers:
            raise ProposalError("unsupported: the module's pointwise ops take Python numbers computed or passed at "
                                f"run time ({', '.join(numbers)}); the built-in proposer fuses only tensor "
                                "operands and constants")
        ops = sorted({op.name for op in plan.ops.values()})
        raise ProposalError("unsupported: nothing to fuse; the module's ops (" + ", ".join(ops) + ") have no "
                            "Triton template in the built-in proposer yet")
    try:
        return SourceWriter(captured, plan, knobs or {}).write()
    except SyntaxError as e:      # a construct the writer cannot express; never a raw traceback
        raise ProposalError(f"unsupported: the generated forward does not parse ({e.msg}); please report this "
                            "module") from e

