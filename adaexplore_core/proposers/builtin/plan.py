"""Fusion planning over a captured fx graph: which nodes become which Triton kernel, and in what order.

Pointwise ops of one shape are fused into one kernel (inputs of other shapes broadcast into it); each
supported reduction is a kernel of its own; everything else stays a PyTorch call. ``PlanOptions`` are the
structural choices a large search step varies; kernel knobs (block size, warps) are what small steps tune.
"""
from __future__ import annotations

import heapq
import math
import operator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import fx, nn
from torch.fx.passes.shape_prop import TensorMetadata

from .ops import Op, batch_norm_stats, classify, reduced_dims

BIAS_SPLIT_MODULES = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d, nn.ConvTranspose2d,
                      nn.ConvTranspose3d)


@dataclass(frozen=True)
class PlanOptions:
    """Structural choices. ``fuse``: fuse pointwise chains (else one kernel per op); ``split_bias``: run a
    linear/conv without its bias and add the bias inside the following fused kernel; ``fold``: apply the
    exact algebraic rewrites of ``rewrite.py`` first; ``batch_norm``: "triton" computes a training-mode batch
    norm's statistics in Triton, "torch" leaves the whole module to cuDNN (a capture without that rewrite)."""

    fuse: bool = True
    split_bias: bool = False
    fold: bool = True
    gemm: str = "torch"          # "torch": cuBLAS, epilogue in a fused kernel; "triton": a Triton GEMM with it
    boundaries: tuple[str, ...] = ()   # nodes that start a new fused kernel instead of joining their input's
    batch_norm: str = "triton"
    pool: str = "triton"         # "triton": pooling kernels (with their prologue fused); "torch": cuDNN

    def to_dict(self) -> dict[str, Any]:
        return {"fuse": self.fuse, "split_bias": self.split_bias, "fold": self.fold, "gemm": self.gemm,
                "boundaries": list(self.boundaries), "batch_norm": self.batch_norm, "pool": self.pool}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PlanOptions":
        return cls(**{**data, "boundaries": tuple(data.get("boundaries", ()))})


@dataclass(eq=False)          # identity semantics: kernels are graph units, hashed by identity
class Kernel:
    kind: str                                  # pointwise, reduction, loss, stats, pool, gemm (+ epilogue)
    nodes: list[fx.Node]                       # members, in graph order
    index: int = 0
    name: str = ""                             # launcher name; the kernel is name + "_kernel"
    inputs: list[fx.Node] = field(default_factory=list)     # external tensor inputs, in first-use order
    outputs: list[fx.Node] = field(default_factory=list)    # members whose values are needed outside
    split_bias: dict[fx.Node, str] = field(default_factory=dict)   # input node -> bias expression to add

    def base_name(self) -> str:
        names: list[str] = []
        for n in self.nodes[-1:] if self.kind == "loss" else self.nodes:   # a loss: not its folded views
            base = n.name.rstrip("0123456789").rstrip("_") or n.name
            if base not in names:
                names.append(base)
        return "_".join(names[:4])


@dataclass
class Plan:
    steps: list[fx.Node | Kernel]              # in execution order
    kernels: list[Kernel]
    ops: dict[fx.Node, Op]
    options: PlanOptions
    split_nodes: set[fx.Node] = field(default_factory=set)   # linear/conv nodes emitted without their bias


def external_inputs(members: list[fx.Node], also_skip: fx.Node | None = None,
                    ops: dict[fx.Node, Op] | None = None) -> list[fx.Node]:
    """The nodes ``members`` read that are not themselves members, in first-use order. With ``ops``, a tensor
    made from sizes (``torch.ones(t, t, device=d)``), a reshape's sizes and a cast's dtype are not read (see
    ``Op.reads_only_operands``): the kernel makes the first in its own index space."""
    inside = set(members)
    found: list[fx.Node] = []
    for n in members:
        only = ops is not None and n in ops and ops[n].reads_only_operands()
        for a in [a for a in ops[n].tensor_args if isinstance(a, fx.Node)] if only else n.all_input_nodes:
            if a not in inside and a is not also_skip and a not in found:
                found.append(a)
    return found


def gather_sizes(node: fx.Node, ops: dict[fx.Node, Op]) -> list[fx.Node]:
    """The values of the forward among a reshape's sizes (a kernel's launcher takes them for the output's shape)."""
    op = ops.get(node)
    return [s for s in op.extra.get("gather", ()) if isinstance(s, fx.Node)] if op is not None else []


def has_gather(kernel: "Kernel", ops: dict[fx.Node, Op]) -> bool:
    """Whether a kernel holds a reshape read through strides: its elements must be walked in row-major order
    at the reshape's own shape, so it is never merged into a kernel of another index space."""
    return any("gather" in ops[n].extra for n in kernel.nodes if n in ops)


def self_path(target: str) -> str:
    """Source for a submodule or attribute path: ``body.0.weight`` -> ``self.body[0].weight``."""
    return "self" + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in str(target).split("."))


def gemm_operands(node: fx.Node, modules: dict[str, nn.Module]) -> dict[str, Any] | None:
    """For a float matrix product — 2-D (nn.Linear, F.linear, mm, matmul) or batched 3-D (bmm, matmul) —
    its operands; else None.

    ``weight``/``bias`` are source expressions or fx nodes; ``transposed`` means the weight is (N, K);
    ``batched`` means both operands are (B, ., .)."""
    meta = tensor_meta(node)
    if meta is None or len(meta.shape) not in (2, 3) or \
            meta.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        return None
    args = node.args
    rank = len(meta.shape)
    if rank == 2 and node.op == "call_module" and isinstance(modules.get(str(node.target)), nn.Linear):
        module = modules[str(node.target)]
        path = self_path(node.target)
        return {"a": args[0], "weight": f"{path}.weight", "bias": f"{path}.bias" if module.bias is not None
                else None, "transposed": True, "batched": False}
    if rank == 2 and node.op == "call_function" and node.target is F.linear and len(args) >= 2 and not node.kwargs:
        return {"a": args[0], "weight": args[1], "bias": args[2] if len(args) > 2 else None, "transposed": True,
                "batched": False}
    is_mm = (node.op == "call_function" and node.target in (torch.matmul, torch.mm, torch.bmm, operator.matmul)) \
        or (node.op == "call_method" and node.target in ("mm", "bmm", "matmul"))
    if is_mm and len(args) == 2 and not node.kwargs and all(
            tensor_meta(a) is not None and len(tensor_meta(a).shape) == rank for a in args):
        return {"a": args[0], "weight": args[1], "bias": None, "transposed": False, "batched": rank == 3}
    return None


def tensor_meta(node: Any) -> TensorMetadata | None:
    meta = node.meta.get("tensor_meta") if isinstance(node, fx.Node) else None
    return meta if isinstance(meta, TensorMetadata) else None


def is_number(node: Any) -> bool:
    """A value of the forward that is a Python number at run time (a float argument, ``x.shape[1] ** -0.5``):
    kernels take it as a scalar argument."""
    return isinstance(node, fx.Node) and tensor_meta(node) is None and node.meta.get("type") in (int, float, bool)


def _fusable(node: fx.Node, op: Op) -> bool:
    """A pointwise op with float output on tensors with known metadata or on run-time numbers (other Python
    values keep the op in torch)."""
    meta = tensor_meta(node)
    if op.kind != "pointwise" or meta is None or not (meta.dtype.is_floating_point or meta.dtype == torch.bool):
        return False
    return all(tensor_meta(a) is not None or is_number(a) for a in op.tensor_args if isinstance(a, fx.Node))


def _reducible(node: fx.Node, op: Op) -> bool:
    """A reduction of one float tensor (to a float result; argmax/argmin to int64 indices)."""
    meta = tensor_meta(node)
    inputs = [a for a in op.tensor_args if isinstance(a, fx.Node)]
    if op.kind != "reduction" or meta is None or len(inputs) != 1 or tensor_meta(inputs[0]) is None:
        return False
    if op.reduction in ("argmax", "argmin"):    # compared in fp32: exact only for these (indices must match)
        return tensor_meta(inputs[0]).dtype in (torch.float32, torch.float16, torch.bfloat16)
    return meta.dtype.is_floating_point


def _loss(node: fx.Node, op: Op) -> bool:
    """Cross-entropy of (N, C) float logits against N int64 class indices (class weights: C floats), or
    BCE-with-logits of float logits and targets of one shape (weights: floats that broadcast to it)."""
    if op.kind != "loss" or len(op.tensor_args) < 2:
        return False
    metas = [tensor_meta(a) for a in op.tensor_args]
    if any(m is None for m in metas) or not all(m.dtype.is_floating_point for i, m in enumerate(metas) if i != 1):
        return False
    x, target, weights = metas[0], metas[1], metas[2:]
    if op.name == "cross_entropy":
        return (len(x.shape) == 2 and target.dtype == torch.int64 and tuple(target.shape) == (x.shape[0],)
                and all(tuple(w.shape) == (x.shape[1],) for w in weights))
    return (len(x.shape) >= 1 and target.dtype.is_floating_point and target.shape == x.shape and all(
        len(w.shape) <= len(x.shape) and all(d in (1, e) for d, e in zip(reversed(w.shape), reversed(x.shape)))
        for w in weights))


def loss_operand_view(node: Any) -> str | None:
    """What a loss kernel can fold of a node between a tensor and the loss: "cast" (to float32 from a narrower
    float or an integer: converted as the kernel loads, rounded as torch rounds), "copy" (``.contiguous()``),
    "slice" (indexing by constant slices, replayed as a view), "flatten" (a view/reshape that merges leading
    dims: the kernel's row arithmetic); else None."""
    meta = tensor_meta(node)
    source = tensor_meta(node.args[0]) if meta is not None and node.args else None
    if source is None:
        return None
    if node.op == "call_method" and (node.target == "float" and len(node.args) == 1 and not node.kwargs or
                                     node.target == "to" and node.args[1:] == (torch.float32,) and not node.kwargs):
        narrower = source.dtype in (torch.float16, torch.bfloat16, torch.float32) or not source.dtype.is_floating_point
        return "cast" if narrower and not source.dtype.is_complex else None     # rounded as torch rounds
    if node.op == "call_method" and node.target == "contiguous" and len(node.args) == 1 and not node.kwargs:
        return "copy"
    if node.op == "call_function" and node.target is operator.getitem and len(node.args) == 2:
        index = node.args[1] if isinstance(node.args[1], tuple) else (node.args[1],)
        if all(i is Ellipsis or isinstance(i, slice) and all(type(b) in (int, type(None))
                                                              for b in (i.start, i.stop, i.step)) for i in index):
            return "slice"
        return None
    reshapes = node.op == "call_method" and node.target in ("view", "reshape", "flatten") or \
        node.op == "call_function" and node.target in (torch.reshape, torch.flatten)
    shape, before = tuple(meta.shape), tuple(source.shape)
    if reshapes and len(before) >= 2 and shape in ((math.prod(before),), (math.prod(before[:-1]), before[-1])):
        return "flatten"
    return None


def _poolable(node: fx.Node, op: Op) -> bool:
    """Pooling of a float (N, C, *window dims) tensor."""
    meta = tensor_meta(op.tensor_args[0]) if op.kind == "pool" else None
    return meta is not None and meta.dtype.is_floating_point and len(meta.shape) == op.extra["dims"] + 2


def _stats(node: fx.Node, op: Op) -> bool:
    """Training-mode batch norm statistics of a float (N, C, ...) tensor."""
    meta = tensor_meta(op.tensor_args[0]) if op.kind == "stats" and op.tensor_args else None
    return meta is not None and meta.dtype.is_floating_point and len(meta.shape) >= 2


def stateful(node: fx.Node, modules: dict[str, nn.Module]) -> bool:
    """A node that changes module state (batch-norm statistics, a module with buffers): such nodes must run
    in their graph order, so the planner treats each as depending on the one before."""
    if node.op == "call_function":
        return node.target is batch_norm_stats
    module = modules.get(str(node.target)) if node.op == "call_module" else None
    return module is not None and next(module.buffers(), None) is not None


def make_plan(graph_module: fx.GraphModule, modules: dict[str, nn.Module],
              options: PlanOptions = PlanOptions()) -> Plan:
    nodes = list(graph_module.graph.nodes)
    position = {n: i for i, n in enumerate(nodes)}
    ops: dict[fx.Node, Op] = {}
    kernels: list[Kernel] = []
    kernel_of: dict[fx.Node, Kernel] = {}
    depends: dict[fx.Node, set[int]] = {}      # kernels a node's value depends on, transitively

    def deps_through(a: fx.Node) -> set[int]:
        d = set(depends.get(a, ()))
        if a in kernel_of:
            d.add(id(kernel_of[a]))
        return d

    previous_stateful: fx.Node | None = None
    for n in nodes:
        inputs = [a for a in n.all_input_nodes]
        depends[n] = set().union(*(deps_through(a) for a in inputs)) if inputs else set()
        if stateful(n, modules):                # state changes keep their order: a virtual dependency
            if previous_stateful is not None:
                depends[n] |= deps_through(previous_stateful)
            previous_stateful = n
        if n.op not in ("call_function", "call_method", "call_module"):
            continue
        op = ops[n] = classify(n, modules)
        if _reducible(n, op) or _loss(n, op) or _stats(n, op) or (options.pool == "triton" and _poolable(n, op)) \
                or (options.gemm == "triton" and gemm_operands(n, modules) is not None):
            k = Kernel(op.kind if op.kind in ("reduction", "loss", "stats", "pool") else "gemm", [n])
            kernels.append(k)
            kernel_of[n] = k
            continue
        if not _fusable(n, op):
            continue
        shape = tuple(tensor_meta(n).shape)
        target = None
        if options.fuse and n.name not in options.boundaries and "gather" not in op.extra:   # a gather reads its
            #                                                    operand through strides: never a member's value
            for a in op.tensor_args:
                k = kernel_of.get(a) if isinstance(a, fx.Node) else None
                if k is None or k.kind not in ("pointwise", "gemm") or tuple(tensor_meta(k.nodes[0]).shape) != shape:
                    continue
                if k.kind == "gemm" and (op.extra.get("indices") or op.extra.get("source")):
                    continue                   # the GEMM's epilogue has no element indices (tril) to give
                outside = [b for b in inputs if kernel_of.get(b) is not k]
                if any(id(k) in deps_through(b) for b in outside):
                    continue                   # would make a cycle: k feeds one of n's other inputs
                target = k
                break
        if target is None:
            if op.name == "identity":
                continue                       # a kernel of its own would only copy: leave it to torch
            target = Kernel("pointwise", [])
            kernels.append(target)
        target.nodes.append(n)
        kernel_of[n] = target

    if options.fuse:
        _fuse_broadcast_producers(kernels, kernel_of, position, options.boundaries, ops)
        _fuse_row_statistics(kernels, kernel_of, ops, position)
        _fuse_prologues(kernels, kernel_of, ops)
        _fuse_epilogues(kernels, kernel_of, ops)
        _fold_loss_views(kernels, kernel_of, ops)
    _without_lone_casts(kernels, kernel_of, ops)
    _without_tensor_inputs(kernels, kernel_of, ops)
    taken = {n.name for n in nodes}
    for i, k in enumerate(kernels):
        k.index = i
        k.name = f"{k.base_name()}_{i}"
        while k.name in taken or k.name + "_kernel" in taken:     # never shadow a value of the forward
            k.name = "triton_" + k.name
        taken.add(k.name)
        members = set(k.nodes)
        k.inputs = external_inputs(k.nodes, ops=ops)
        k.outputs = [n for n in k.nodes if any(u not in members for u in n.users)]

    ordered = tuple(n for n in nodes if stateful(n, modules))
    unread = _unread_values(nodes, kernel_of, ops)
    steps = [s for s in _schedule(nodes, position, kernel_of, ordered) if s not in unread]
    plan = Plan(steps=steps, kernels=kernels, ops=ops, options=options)
    if options.split_bias:
        _split_biases(plan, modules, kernel_of)
    return plan


def _fuse_broadcast_producers(kernels: list[Kernel], kernel_of: dict[fx.Node, Kernel],
                              position: dict[fx.Node, int], boundaries: tuple[str, ...],
                              ops: dict[fx.Node, Op]) -> None:
    """Move a pointwise kernel whose values only one other pointwise kernel reads, at a shape that broadcasts
    to that kernel's, into it: its ops are then computed at every element of the larger shape (a (T, T) mask
    inverted or made with ``torch.ones(t, t).tril()``, for scores of (B, H, T, T)) and its output is never
    written. A tensor made from sizes alone has no kernel otherwise (``_without_tensor_inputs``)."""
    for p in [k for k in kernels if k.kind == "pointwise"]:
        members = set(p.nodes)
        readers = {kernel_of.get(u) for n in p.nodes for u in n.users if u not in members}
        if len(readers) != 1 or None in readers:
            continue
        (k,) = readers
        if k.kind != "pointwise" or k.split_bias or p.split_bias or has_gather(p, ops):
            continue
        shape, into = tuple(tensor_meta(p.nodes[-1]).shape), tuple(tensor_meta(k.nodes[-1]).shape)
        if (shape == into and boundaries) or len(shape) > len(into) or \
                any(d not in (1, e) for d, e in zip(reversed(shape), reversed(into))):
            continue              # no broadcast; or one shape in a plan with fusion boundaries (a small step's
            #                       split stays a split, and the kernels it leaves stay as the grouping made them)
        k.nodes = sorted(k.nodes + p.nodes, key=position.__getitem__)
        for n in p.nodes:
            kernel_of[n] = k
        kernels.remove(p)


def _unread_values(nodes: list[fx.Node], kernel_of: dict[fx.Node, Kernel], ops: dict[fx.Node, Op]) -> set[fx.Node]:
    """PyTorch values that only the size arguments of kernel members need (``t`` and the device of
    ``torch.ones(t, t, device=d)`` made inside a kernel, which reads neither): they are not computed."""
    unread: set[fx.Node] = set()
    for n in reversed(nodes):
        if n in kernel_of or n.op not in ("call_function", "call_method") or not n.users:
            continue
        if all(u in unread or u in kernel_of and n not in external_inputs([u], ops=ops) + gather_sizes(u, ops)
               for u in n.users):
            unread.add(n)
    return unread


def _without_lone_casts(kernels: list[Kernel], kernel_of: dict[fx.Node, Kernel], ops: dict[fx.Node, Op]) -> None:
    """Pointwise kernels that only cast (``x.float()`` that nothing fused with, perhaps with a dropout of p=0 after
    it) stay PyTorch calls: torch's own cast is that same one kernel."""
    for k in [k for k in kernels if k.kind == "pointwise"]:
        if all("cast" in ops[n].extra or ops[n].name == "identity" for n in k.nodes):
            kernels.remove(k)
            for n in k.nodes:
                del kernel_of[n]


def _without_tensor_inputs(kernels: list[Kernel], kernel_of: dict[fx.Node, Kernel], ops: dict[fx.Node, Op]) -> None:
    """Pointwise kernels that read no tensor (``torch.ones(t, t).tril()`` that no other kernel took in) stay
    PyTorch calls: a kernel's index space is the shape of its tensor inputs."""
    for k in [k for k in kernels if k.kind == "pointwise"]:
        if not any(tensor_meta(a) is not None for a in external_inputs(k.nodes, ops=ops)):
            kernels.remove(k)
            for n in k.nodes:
                del kernel_of[n]


def _fuse_prologues(kernels: list[Kernel], kernel_of: dict[fx.Node, Kernel], ops: dict[fx.Node, Op]) -> None:
    """Move a pointwise kernel that only feeds a row reduction or a pooling into it: that kernel then computes
    its input on the fly and the intermediate tensor is never written. Only for reductions over trailing
    dims (the row kernels), and only when the pointwise group has an input of the full shape."""
    for r in [k for k in kernels if k.kind in ("reduction", "pool")]:
        red = r.nodes[0]
        op = ops[red]
        x = op.tensor_args[0]
        p = kernel_of.get(x) if isinstance(x, fx.Node) else None
        if p is None or p.kind != "pointwise" or p.split_bias or list(x.users) != [red] or has_gather(p, ops):
            continue
        members = set(p.nodes)
        if any(u not in members for m in p.nodes if m is not x for u in m.users):
            continue                                        # another member is needed outside
        shape = tuple(tensor_meta(x).shape)
        rank = len(shape)
        dims = reduced_dims(op, rank) if r.kind == "reduction" else tuple(range(rank))
        if not dims or dims != tuple(range(rank - len(dims), rank)):
            continue                                        # not the row kernels
        if op.reduction in ("argmax", "argmin") and tensor_meta(x).dtype != torch.float32:
            continue       # the prologue computes in fp32: ties after rounding to fp16/bf16 would be missed
        outside = [a for n in p.nodes for a in n.all_input_nodes if a not in members]
        if not any(tensor_meta(a) is not None and tuple(tensor_meta(a).shape) == shape for a in outside):
            continue
        r.nodes = p.nodes + r.nodes
        for n in p.nodes:
            kernel_of[n] = r
        kernels.remove(p)


ROW_STATISTICS = {"sum", "mean"}


def row_statistic(kernel: Kernel, ops: dict[fx.Node, Op]) -> fx.Node | None:
    """The reduction node of a kernel ``_fuse_row_statistics`` made (a statistic with ops after it); else None."""
    if kernel.kind != "reduction":
        return None
    red = next(n for n in kernel.nodes if ops[n].kind == "reduction")
    return red if ops[red].reduction in ROW_STATISTICS and red is not kernel.nodes[-1] else None


def _fuse_row_statistics(kernels: list[Kernel], kernel_of: dict[fx.Node, Kernel], ops: dict[fx.Node, Op],
                         position: dict[fx.Node, int]) -> None:
    """One kernel for a sum or mean over trailing dims with keepdim, the pointwise group that computes its input
    and the pointwise group that reads the statistic back at every element of that input (RMSNorm: the upcast
    and the square, the mean, then rsqrt, the multiply, the downcast and the weight). Each row is read once and
    the result written once; neither the squares nor the statistic hit memory. Only when the input group's
    values are needed nowhere else, every output of the group after it has the input's shape, and no other
    input of the fused ops depends on them (that would be a cycle)."""
    for r in [k for k in kernels if k.kind == "reduction" and len(k.nodes) == 1]:
        red = r.nodes[0]
        op = ops[red]
        x = op.tensor_args[0]
        if op.reduction not in ROW_STATISTICS or not op.keepdim or not isinstance(x, fx.Node):
            continue
        shape = tuple(tensor_meta(x).shape)
        dims = reduced_dims(op, len(shape))
        if not dims or dims != tuple(range(len(shape) - len(dims), len(shape))):
            continue                                        # not rows
        after = {kernel_of.get(u) for u in red.users}
        if len(after) != 1 or None in after:
            continue
        (e,) = after
        before = kernel_of.get(x)
        groups = [e] + ([before] if before is not None else [])
        if any(g.kind != "pointwise" or g.split_bias or has_gather(g, ops) for g in groups) or before is e:
            continue
        members = set(e.nodes) | {red} | (set(before.nodes) if before else set())
        if before is not None and any(u not in members for n in before.nodes for u in n.users):
            continue                                        # the input group's values are needed elsewhere
        if any(tuple(tensor_meta(n).shape) != shape for n in e.nodes if any(u not in members for u in n.users)):
            continue                                        # an output of another shape
        outside = external_inputs(sorted(members, key=position.__getitem__), ops=ops)
        if _reaches(outside, members):
            continue
        r.nodes = (before.nodes if before else []) + [red] + e.nodes
        for g in groups:
            kernels.remove(g)
            for n in g.nodes:
                kernel_of[n] = r


def _reaches(starts: list[fx.Node], targets: set[fx.Node]) -> bool:
    """Whether any of ``targets`` is among ``starts`` or their ancestors."""
    seen: set[fx.Node] = set()
    todo = list(starts)
    while todo:
        n = todo.pop()
        if n in targets:
            return True
        if n not in seen:
            seen.add(n)
            todo.extend(n.all_input_nodes)
    return False


FULL_OUTPUT_REDUCTIONS = {"softmax", "log_softmax", "layer_norm", "group_norm", "cumsum"}


def _fuse_epilogues(kernels: list[Kernel], kernel_of: dict[fx.Node, Kernel], ops: dict[fx.Node, Op]) -> None:
    """Move a pointwise kernel that consumes a full-output row reduction (softmax, norms) into it: its ops
    run on each value before the store. Only when the reduction's value has no other user and the pointwise
    kernel has one output of the same shape."""
    for r in [k for k in kernels if k.kind == "reduction"]:
        red = next(n for n in r.nodes if ops[n].kind == "reduction")
        op = ops[red]
        users = list(red.users)
        if op.reduction not in FULL_OUTPUT_REDUCTIONS or len(users) != 1 or red is not r.nodes[-1]:
            continue
        e = kernel_of.get(users[0])
        if e is None or e.kind != "pointwise" or e.split_bias or has_gather(e, ops):
            continue
        members = set(e.nodes)
        outputs = [n for n in e.nodes if any(u not in members for u in n.users)]
        shape = tuple(tensor_meta(red).shape)
        rank = len(shape)
        dims = reduced_dims(op, rank)
        if len(outputs) != 1 or outputs[0] is not e.nodes[-1] or tuple(tensor_meta(outputs[0]).shape) != shape \
                or not dims or dims != tuple(range(rank - len(dims), rank)):
            continue
        r.nodes = r.nodes + e.nodes
        for n in e.nodes:
            kernel_of[n] = r
        kernels.remove(e)


def _fold_loss_views(kernels: list[Kernel], kernel_of: dict[fx.Node, Kernel], ops: dict[fx.Node, Op]) -> None:
    """Move the casts, copies, slices and flattening views in front of a loss kernel into it (they would copy
    the logits, the largest tensor, once or twice): the kernel then reads the tensor they start from. Only
    nodes whose value nothing else needs; a cross-entropy's logits and target may be sliced and flattened,
    other operands only cast and copied; the ``size`` of a folded node goes with it."""
    for k in [k for k in kernels if k.kind == "loss"]:
        loss = k.nodes[-1]
        op = ops[loss]
        folded: list[fx.Node] = []
        for i, a in enumerate(op.tensor_args):
            allowed = {"cast", "copy", "slice", "flatten"} if op.name == "cross_entropy" and i < 2 else \
                {"cast", "copy"}
            user, n = loss, a
            while isinstance(n, fx.Node) and loss_operand_view(n) in allowed:
                sizes = [u for u in n.users if u.op == "call_method" and u.target == "size"]
                own = kernel_of.get(n)
                if set(n.users) - set(sizes) != {user} or any(set(s.users) - set(folded) - {user} for s in sizes) \
                        or (own is not None and (own.kind != "pointwise" or own.nodes != [n])):
                    break
                if own is not None:
                    kernels.remove(own)
                folded += [n] + sizes
                if loss_operand_view(n) in ("flatten", "slice"):
                    allowed = allowed - {"flatten"}        # one flattening, nearest the loss: slices come before it
                user, n = n, n.args[0]
        order = {n: i for i, n in enumerate(loss.graph.nodes)}
        k.nodes = sorted(folded, key=order.__getitem__) + [loss]
        for n in folded:
            kernel_of[n] = k


def _schedule(nodes: list[fx.Node], position: dict[fx.Node, int], kernel_of: dict[fx.Node, Kernel],
              ordered: tuple[fx.Node, ...] = ()) -> list[fx.Node | Kernel]:
    """Topological order of the condensed graph (kernels as single units), stable by first appearance;
    ``ordered`` nodes (state changes) also keep their relative order."""
    unit_of = {n: kernel_of.get(n, n) for n in nodes}
    units: list[fx.Node | Kernel] = []
    for n in nodes:
        if unit_of[n] not in units:
            units.append(unit_of[n])
    first = {u: min(position[m] for m in (u.nodes if isinstance(u, Kernel) else [u])) for u in units}
    preds: dict[int, set[int]] = {id(u): set() for u in units}
    by_id = {id(u): u for u in units}
    for n in nodes:
        for a in n.all_input_nodes:
            if unit_of[a] is not unit_of[n]:
                preds[id(unit_of[n])].add(id(unit_of[a]))
    for before, after in zip(ordered, ordered[1:]):
        if unit_of[before] is not unit_of[after]:
            preds[id(unit_of[after])].add(id(unit_of[before]))
    succs: dict[int, set[int]] = {id(u): set() for u in units}
    for u, ps in preds.items():
        for p in ps:
            succs[p].add(u)
    ready = [(first[u], id(u)) for u in units if not preds[id(u)]]
    heapq.heapify(ready)
    order: list[fx.Node | Kernel] = []
    while ready:
        _, uid = heapq.heappop(ready)
        order.append(by_id[uid])
        for s in succs[uid]:
            preds[s].discard(uid)
            if not preds[s]:
                heapq.heappush(ready, (first[by_id[s]], s))
    if len(order) != len(units):
        raise AssertionError("fusion plan has a cycle")     # prevented by the dependency check above
    return order


def _split_biases(plan: Plan, modules: dict[str, nn.Module], kernel_of: dict[fx.Node, Kernel]) -> None:
    """Linear/conv nodes whose only users sit in one pointwise kernel: add their bias inside that kernel."""
    for node, op in plan.ops.items():
        if node.op != "call_module":
            continue
        module = modules[str(node.target)]
        if not isinstance(module, BIAS_SPLIT_MODULES) or module.bias is None:
            continue
        if isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d)) and module.padding_mode != "zeros":
            continue
        users = list(node.users)
        kernel = kernel_of.get(users[0]) if users else None
        if kernel is None or kernel.kind != "pointwise" or any(kernel_of.get(u) is not kernel for u in users):
            continue
        meta = tensor_meta(node)
        if meta is None:
            continue
        bias = f"{self_path(node.target)}.bias"
        if not isinstance(module, nn.Linear):
            bias += ".view(-1" + ", 1" * (len(meta.shape) - 2) + ")"
        kernel.split_bias[node] = bias
        plan.split_nodes.add(node)
