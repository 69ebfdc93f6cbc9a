"""Small helpers for writing kernel source: fx arguments as Python, node shapes, one-line descriptions."""
from __future__ import annotations

from typing import Any

import torch
from torch import fx

from ..base import ProposalError
from .ops import lit
from .plan import Plan, tensor_meta


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


def shape_of(node: fx.Node) -> tuple[int, ...]:
    """The traced shape of a tensor node."""
    return tuple(tensor_meta(node).shape)


def describe_node(node: fx.Node, plan: Plan) -> str:
    """'value = op(operands)', for kernel comments."""
    op = plan.ops[node]
    args = ", ".join(a.name if isinstance(a, fx.Node) else render(a) for a in op.tensor_args)
    return f"{node.name} = {op.name}({args})"


def aligned(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    """``shape`` left-padded with 1s to ``rank`` dims, as broadcasting sees it."""
    return (1,) * (rank - len(shape)) + tuple(shape)
