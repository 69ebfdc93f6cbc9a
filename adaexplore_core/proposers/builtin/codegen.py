"""Source generation: a Plan becomes one self-contained, readable candidate file.

The file keeps the reference's imports, module-level constants, helper classes and the reference class's
constructor (renamed ModelNew, so parameter names, ``state_dict`` keys and checkpoints stay the same), and
adds ``_triton_forward``: straight-line code, PyTorch calls for what stays in torch and a launcher per Triton
kernel. Kernels read every size at run time. ``forward`` takes the Triton path only for calls inside the
envelope (``ENVELOPE``, envelope.py) with the int and bool arguments the graph was specialized to (capture.py)
and runs the reference's own forward, kept as ``_reference_forward``,
for every other call: training, other dtypes, devices, ranks and sizes.
"""
from __future__ import annotations

import ast
import pprint
import textwrap
from typing import Any

import torch
from torch import fx

from ...schema import envelope as envelope_text
from ..base import ProposalError
from .capture import Captured, reference_class_node
from . import backward, envelope
from .batchnorm import batch_norm_stats_kernel
from .gemm import gemm_kernel
from .loss import loss_kernel
from .plan import Kernel, Plan, has_gather, is_number, self_path, tensor_meta
from .pointwise import LAYOUT_HELPERS, RESHAPE_HELPER, pointwise_kernel
from .pool import pool_kernel
from .reduction import reduction_kernel
from .text import render

DEFAULT_KNOBS = {"pointwise": {"BLOCK_SIZE": 1024, "num_warps": 4},
                 "reduction": {"BLOCK_SIZE": 2048, "num_warps": 8, "TILE": 4096},
                 "loss": {"BLOCK_SIZE": 4096, "num_warps": 8},
                 "stats": {"BLOCK_SIZE": 1024, "num_warps": 4},
                 "pool": {"BLOCK_SIZE": 256, "num_warps": 4},
                 "gemm": {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8, "num_warps": 4,
                          "num_stages": 3}}
_DROPPED_FUNCTIONS = {"get_inputs", "get_init_inputs"}
_LIBRARY_KERNELS = ("conv", "maxpool", "avgpool", "adaptiveavgpool", "adaptivemaxpool", "linear", "matmul", "mm",
                    "bmm")     # op names the planner keeps as PyTorch calls by design
_PUBLIC_MODULES = (("torch.nn.functional", torch.nn.functional), ("torch", torch), ("torch.special", torch.special),
                   ("torch.linalg", torch.linalg), ("torch.fft", torch.fft))


def _qualified(target: Any) -> str:
    if getattr(target, "__module__", None) in ("_operator", "operator"):
        return f"operator.{target.__name__}"
    if target is getattr:
        return "getattr"
    name = fx.node._get_qualified_name(target)
    if any(part.startswith("_") for part in name.split(".")):
        name = _public_name(target) or name
    if not (name.startswith("torch.") or name.startswith("operator.") or name.startswith("math.")):
        raise ProposalError(f"unsupported: the forward calls {name}, which a candidate file cannot import")
    return name


def _public_name(target: Any) -> str | None:
    """A public name of a torch function that fx names by its private home (``F.linear`` is
    ``torch._C._nn.linear``), the guard allowing only public ones; None when there is none."""
    for prefix, module in _PUBLIC_MODULES:
        if getattr(module, getattr(target, "__name__", ""), None) is target:
            return f"{prefix}.{target.__name__}"
    for prefix, module in _PUBLIC_MODULES:          # the same function under another name
        for name, value in vars(module).items():
            if value is target and not name.startswith("_"):
                return f"{prefix}.{name}"
    return None


def _call_args(node: fx.Node, skip_first: bool = False) -> str:
    args = list(node.args[1:] if skip_first else node.args)
    parts = [render(a) for a in args] + [f"{k}={render(v)}" for k, v in node.kwargs.items()]
    return ", ".join(parts)


class SourceWriter:
    """Builds the candidate file for one plan and kernel knobs."""

    def __init__(self, captured: Captured, plan: Plan, knobs: dict[int, dict[str, int]],
                 device_type: str = "cuda") -> None:
        self.captured = captured
        self.plan = plan
        self.knobs = knobs
        self.device_type = device_type
        self.kernel_sources: list[str] = []
        self.needs_operator = False
        self.methods: list[str] = []          # more methods of ModelNew (the kernels' ops in torch)
        self.autograd = self.backward_methods() is not None

    def backward_methods(self) -> list[str] | None:
        """Every kernel has a backward kernel: the torch form of each (for a backward with grad mode on),
        kept in ``self.methods``; None where one has none (autograd then runs the original forward)."""
        if not self.plan.kernels or any(backward.no_backward_reason(k, self.plan) for k in self.plan.kernels):
            return None
        methods = []
        for k in self.plan.kernels:
            try:
                lines = [line for n in k.nodes if (line := self.torch_line(n))]
            except ProposalError:            # an op with no public torch name (a folded batch norm)
                return None
            methods.append(backward.recompute_method(k, lines))
        self.methods = methods
        return methods

    # forward
    def forward_lines(self) -> list[str]:
        lines: list[str] = []        # the batch norms' train/eval mode is part of the envelope (envelope.py)
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
            if self.autograd:                 # the Function's forward and backward kernels
                source += "\n\n\n" + backward.backward_kernel(kernel, self.plan, knobs) + "\n\n\n" + \
                    backward.autograd_function(kernel, len(args))
                self.kernel_sources.append(source)
                targets = ", ".join(n.name for n in kernel.outputs)
                return f"{targets} = {kernel.name}_call(self._{kernel.name}_torch, {', '.join(args)})"
        elif kernel.kind == "gemm":
            source, args = gemm_kernel(kernel, self.plan, knobs, self.captured.modules)
        elif kernel.kind == "loss":
            source, args = loss_kernel(kernel, self.plan, knobs)
        elif kernel.kind == "stats":
            source, args = batch_norm_stats_kernel(kernel, self.plan, knobs)
        elif kernel.kind == "pool":
            source, args = pool_kernel(kernel, self.plan, knobs)
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
        names = ", ".join(p.name for p in placeholders)
        self.envelope = envelope.build(self.captured, self.device_type, placeholders)
        self.envelope["autograd"] = self.autograd
        traced = "".join(_as_traced(name, value) for name, value in self.captured.specialized.items())
        dispatch_src = (f"def forward({params}):\n"
                        f"    if self._in_envelope([{names}]){traced}:\n"
                        f"        return self._triton_forward({names})\n"
                        f"    return self._reference_forward({names})")
        triton_src = f"def _triton_forward({params}):\n" + textwrap.indent("\n".join(forward), "    ")
        imports, body = self.module_without_reference("\n\n".join([dispatch_src, triton_src] + self.methods))
        future = [line for line in imports if line.startswith("from __future__ ")]   # must come first
        header = future + ["import torch", "import triton", "import triton.language as tl"]
        if self.needs_operator:
            header.append("import operator")
        header += [line for line in imports if line not in header]
        if any(has_gather(k, self.plan.ops) for k in self.plan.kernels):
            self.kernel_sources.insert(0, RESHAPE_HELPER.strip())
        if self.autograd:
            self.kernel_sources.insert(0, backward.RECOMPUTE_HELPER.strip())
        if any(k.kind == "pointwise" or (k.kind in ("reduction", "pool") and len(k.nodes) > 1)
               for k in self.plan.kernels):
            self.kernel_sources.insert(0, LAYOUT_HELPERS.strip())
        kernels = "\n\n\n".join(self.kernel_sources)
        return "\n".join(header) + f"\n\n\n{kernels}\n\n\n{body}\n"

    def module_without_reference(self, forward_src: str) -> tuple[list[str], str]:
        """(import lines, body): the reference module with ModelNew in place of the reference class.

        Constants and helper definitions stay (the constructor may use them); get_inputs/get_init_inputs,
        definitions that name the reference class (a subclass of it, a factory: ModelNew never needs them, and
        the name is gone) and top-level statements with effects go."""
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
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _names(node, class_name):
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
        original = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
        if original is None:                       # inherited (a subclass of a library class): the same bases
            original = ast.parse("def _reference_forward(self, *args, **kwargs):\n"           # give the same one
                                 "    return super().forward(*args, **kwargs)").body[0]
            cls.body.append(original)
        original.name = "_reference_forward"       # the exact fallback: every call outside the envelope
        cls.body.extend(ast.parse(forward_src).body)
        doc = ast.Expr(ast.Constant(f"{class_name} with its forward rewritten to Triton kernels by the AdaExplore "
                                    "built-in proposer (same constructor, same state_dict). "
                                    + envelope_text.summary(self.envelope)))
        if cls.body and isinstance(cls.body[0], ast.Expr) and isinstance(getattr(cls.body[0], "value", None),
                                                                          ast.Constant):
            cls.body[0] = doc
        else:
            cls.body.insert(0, doc)
        text = ast.unparse(ast.fix_missing_locations(cls)).split("\n")
        literal = "ENVELOPE = " + pprint.pformat(self.envelope, width=100, sort_dicts=False)
        literal = textwrap.indent(literal, "    ") + "   # the calls the Triton path is for (envelope.py)"
        methods = textwrap.indent(envelope.methods(self.captured), "    ")
        return "\n".join(text[:2] + [literal] + text[2:] + [""] + methods.split("\n"))   # ENVELOPE after the docstring


def _as_traced(name: str, value: int | bool) -> str:
    """The dispatch's check that argument ``name`` has the value the graph was specialized to (True is not 1)."""
    if isinstance(value, bool):
        return f" and {name} is {value}"
    return f" and isinstance({name}, int) and not isinstance({name}, bool) and {name} == {value!r}"


def _names(node: ast.AST, name: str) -> bool:
    """Whether ``node`` mentions ``name`` as a variable (a base class, a call, an annotation)."""
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def generate(captured: Captured, plan: Plan, knobs: dict[int, dict[str, int]] | None = None,
             device_type: str = "cuda") -> str:
    """The candidate source for ``plan`` with per-kernel ``knobs`` (kernel index -> knob values), taking its
    Triton path for tensors on ``device_type`` (envelope.py)."""
    if not plan.kernels:
        values = sorted({f"'{a.name}'" for op in plan.ops.values() if op.kind != "torch"
                         for a in op.tensor_args if isinstance(a, fx.Node) and tensor_meta(a) is None
                         and not is_number(a)})
        if values:
            raise ProposalError("unsupported: the module's pointwise ops take Python values that are neither "
                                f"tensors nor numbers ({', '.join(values)}); the built-in proposer fuses "
                                "tensors, numbers and constants")
        ops = sorted({op.name for op in plan.ops.values()})
        reasons = sorted({op.why for op in plan.ops.values() if op.why})
        others = sorted({op.name for op in plan.ops.values() if not op.why})
        if reasons:
            raise ProposalError("unsupported: nothing to fuse; " + "; ".join(reasons) + (
                f"; the module's other ops ({', '.join(others)}) have no Triton template" if others else ""))
        if all(name.startswith(_LIBRARY_KERNELS) for name in ops):
            raise ProposalError("unsupported: nothing to fuse; the module's ops (" + ", ".join(ops) + ") stay in "
                                "PyTorch's own library kernels (cuDNN / cuBLAS) in the built-in proposer, and no "
                                "pointwise or reduction op sits next to them")
        raise ProposalError("unsupported: nothing to fuse; the module's ops (" + ", ".join(ops) + ") have no "
                            "Triton template in the built-in proposer yet")
    try:
        return SourceWriter(captured, plan, knobs or {}, device_type).write()
    except SyntaxError as e:      # a construct the writer cannot express; never a raw traceback
        raise ProposalError(f"unsupported: the generated forward does not parse ({e.msg}); please report this "
                            "module") from e
