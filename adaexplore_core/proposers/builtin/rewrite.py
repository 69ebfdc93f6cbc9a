"""Exact algebraic rewrites of a captured graph (exact in real arithmetic; the judge checks the numerics).

``fold_linear_reductions``: a sum or mean over a linear layer's output features, reached through per-feature
shifts (add/sub of a bias-like vector or a scalar) and scalar scales, equals a matrix-vector product with
the summed weights:  sum_j (a * (x W^T + b)_j + c_j) = a * (x . sum_j W_j + sum_j b_j) + sum_j c_j.
A (batch x in) by (in x out) GEMM becomes a GEMV.
"""
from __future__ import annotations

import copy
import operator
from typing import Any

import torch
from torch import fx, nn

from .capture import propagate_shapes
from .ops import classify
from .plan import tensor_meta

_AFFINE = {"add", "sub", "mul", "div"}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _feature_vector(value: Any, features: int) -> bool:
    """A tensor that varies at most along the last (feature) dim, with `features` or 1 elements."""
    meta = tensor_meta(value)
    return meta is not None and all(s == 1 for s in meta.shape[:-1]) and \
        (len(meta.shape) == 0 or meta.shape[-1] in (1, features))


def _chain(start: fx.Node, modules: dict[str, nn.Module], features: int) -> tuple[fx.Node, list] | None:
    """Walk back from the reduction's input through affine ops to a Linear; (linear node, steps outward)."""
    steps: list[tuple[str, Any, bool]] = []       # (op name, other operand, chain operand is on the left)
    node = start
    while True:
        if node.op == "call_module" and isinstance(modules.get(str(node.target)), nn.Linear):
            return (node, list(reversed(steps))) if len(node.users) == 1 else None
        op = classify(node, modules) if node.op in ("call_function", "call_method") else None
        if op is None or op.kind != "pointwise" or op.name not in _AFFINE or len(node.users) != 1:
            return None
        a, b = op.tensor_args
        left = isinstance(a, fx.Node) and (not isinstance(b, fx.Node) or _leads_to_linear(a, modules))
        chain_arg, other = (a, b) if left else (b, a)
        if not isinstance(chain_arg, fx.Node):
            return None
        if op.name in ("mul", "div"):
            if not _is_number(other) or (op.name == "div" and not left):
                return None
        elif not (_is_number(other) or _feature_vector(other, features)):
            return None
        steps.append((op.name, other, left))
        node = chain_arg


def _leads_to_linear(node: fx.Node, modules: dict[str, nn.Module]) -> bool:
    while node.op != "call_module" or not isinstance(modules.get(str(node.target)), nn.Linear):
        inputs = node.all_input_nodes
        if node.op not in ("call_function", "call_method") or not inputs:
            return False
        node = inputs[0]
    return True


def fold_linear_reductions(graph_module: fx.GraphModule, example_inputs: list[Any]) -> fx.GraphModule | None:
    """A rewritten copy of ``graph_module`` (shapes propagated again), or None when nothing matched."""
    gm = copy.deepcopy(graph_module)
    modules = dict(gm.named_modules())
    graph = gm.graph
    folded = 0
    for red in list(graph.nodes):
        if red.op not in ("call_function", "call_method"):
            continue
        op = classify(red, modules)
        if op.kind != "reduction" or op.reduction not in ("sum", "mean") or not isinstance(op.tensor_args[0],
                                                                                             fx.Node):
            continue
        x = op.tensor_args[0]
        meta = tensor_meta(x)
        if meta is None or len(meta.shape) < 2:
            continue
        rank = len(meta.shape)
        dims = op.dim if isinstance(op.dim, (tuple, list)) else (op.dim,)
        if [int(d) % rank for d in dims] != [rank - 1] or len(x.users) != 1:
            continue
        features = meta.shape[-1]
        found = _chain(x, modules, features)
        if found is None:
            continue
        linear, steps = found
        target = str(linear.target)
        with graph.inserting_before(red):
            w_sum = graph.call_method("sum", (graph.get_attr(f"{target}.weight"), 0))
            total = graph.call_function(torch.matmul, (linear.args[0], w_sum))
            if modules[target].bias is not None:
                b_sum = graph.call_method("sum", (graph.get_attr(f"{target}.bias"),))
                total = graph.call_function(operator.add, (total, b_sum))
            for name, other, left in steps:
                if name in ("mul", "div"):
                    total = graph.call_function(operator.mul if name == "mul" else operator.truediv, (total, other))
                    continue
                if _is_number(other):
                    shift: Any = other * features
                elif tensor_meta(other).shape and tensor_meta(other).shape[-1] == features:
                    shift = graph.call_method("sum", (other,))
                else:                                   # one value broadcast over every feature
                    shift = graph.call_function(operator.mul, (graph.call_method("sum", (other,)), features))
                if name == "add":
                    total = graph.call_function(operator.add, (total, shift))
                elif left:
                    total = graph.call_function(operator.sub, (total, shift))
                else:
                    total = graph.call_function(operator.sub, (shift, total))
            if op.reduction == "mean":
                total = graph.call_function(operator.truediv, (total, features))
            if op.keepdim:
                total = graph.call_method("unsqueeze", (total, -1))
        red.replace_all_uses_with(total)
        folded += 1
    if not folded:
        return None
    graph.eliminate_dead_code()
    gm.recompile()
    propagate_shapes(gm, example_inputs)
    return gm
