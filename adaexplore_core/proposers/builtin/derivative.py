"""Local derivatives of the pointwise ops the builder fuses: the first piece of backward kernels (issue 16).

``vjp(name, grad, out, args, params)`` returns the gradient of each tensor argument of one op, given the
gradient of its output: written with the torch functions the classifier already turns into Triton
(``torch.where``, ``torch.exp``, comparisons, arithmetic), so the same table can run on tensors (the tests
compare it with torch's autograd) or on fx proxies (a backward graph for the planner). Each gradient has the
broadcast output's shape; ``reduce_to`` sums it back to an argument's own shape (a bias vector). Ties and
kinks follow torch's conventions (relu's gradient is 0 at 0, a tie of maximum splits the gradient in half),
so a backward built from this table matches the reference's exactly where torch's does. Ops not in the table
have no backward here: their kernels keep the fallback to the original forward.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import torch

Grads = tuple[Any, ...]
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
INV_SQRT_2 = 1.0 / math.sqrt(2.0)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
GELU_TANH_CUBIC = 0.044715
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _zero_where(condition: Any, grad: Any) -> Any:
    return torch.where(condition, torch.zeros_like(grad), grad)


def _gelu(g: Any, y: Any, x: Any, approximate: str = "none") -> Grads:
    if approximate == "tanh":
        inner = SQRT_2_OVER_PI * (x + GELU_TANH_CUBIC * x * x * x)
        t = torch.tanh(inner)
        slope = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_TANH_CUBIC * x * x)
        return (g * slope,)
    cdf = 0.5 * (1.0 + torch.erf(x * INV_SQRT_2))
    pdf = torch.exp(-0.5 * x * x) * INV_SQRT_2PI
    return (g * (cdf + x * pdf),)


def _silu(g: Any, y: Any, x: Any) -> Grads:
    s = torch.sigmoid(x)
    return (g * s * (1.0 + x * (1.0 - s)),)


def _mish(g: Any, y: Any, x: Any) -> Grads:
    t = torch.tanh(torch.nn.functional.softplus(x))
    return (g * (t + x * torch.sigmoid(x) * (1.0 - t * t)),)


def _elu(g: Any, y: Any, x: Any, alpha: float = 1.0, scale: float = 1.0) -> Grads:
    return (torch.where(x > 0, g * scale, g * (scale * alpha) * torch.exp(x)),)


def _softplus(g: Any, y: Any, x: Any, beta: float = 1.0, threshold: float = 20.0) -> Grads:
    return (torch.where(x * beta > threshold, g, g * torch.sigmoid(x * beta)),)


def _hardtanh(g: Any, y: Any, x: Any, min_val: float = -1.0, max_val: float = 1.0) -> Grads:
    return (_zero_where((x <= min_val) | (x >= max_val), g),)


def _clamp(g: Any, y: Any, x: Any, min: float | None = None, max: float | None = None) -> Grads:
    inside = torch.ones_like(x, dtype=torch.bool)
    if min is not None:
        inside = inside & (x >= min)
    if max is not None:
        inside = inside & (x <= max)
    return (torch.where(inside, g, torch.zeros_like(g)),)


def _extremum(g: Any, y: Any, a: Any, b: Any, larger: bool) -> Grads:
    wins = (a > b) if larger else (a < b)
    loses = (a < b) if larger else (a > b)
    half = g * 0.5
    tie = a == b
    zero = torch.zeros_like(g)
    return (torch.where(wins, g, torch.where(tie, half, zero)), torch.where(loses, g, torch.where(tie, half, zero)))


def _batch_norm(g: Any, y: Any, v: Any, m: Any, var: Any, w: Any, b: Any, eps: float = 1e-5) -> Grads:
    """(v - m) * rsqrt(var + eps) * w + b, the batch-norm-in-eval op of the classifier (running statistics)."""
    r = torch.rsqrt(var + eps)
    centred = v - m
    return (g * w * r, -(g * w * r), g * w * centred * (-0.5) * r * r * r, g * centred * r, g)


DERIVATIVES: dict[str, Callable[..., Grads]] = {
    "identity": lambda g, y, x: (g,),
    "cast": lambda g, y, x: (g,),      # a kernel computes in float32: the gradient is rounded where stored
    "neg": lambda g, y, x: (-g,),
    "relu": lambda g, y, x: (_zero_where(x <= 0, g),),
    "relu6": lambda g, y, x: _hardtanh(g, y, x, 0.0, 6.0),
    "leaky_relu": lambda g, y, x, negative_slope=0.01: (torch.where(x > 0, g, g * negative_slope),),
    "hardtanh": _hardtanh,
    "clamp": _clamp,
    "sigmoid": lambda g, y, x: (g * y * (1.0 - y),),
    "tanh": lambda g, y, x: (g * (1.0 - y * y),),
    "silu": _silu,
    "mish": _mish,
    "gelu": _gelu,
    "hardswish": lambda g, y, x: (torch.where(x <= -3.0, torch.zeros_like(g),
                                              torch.where(x < 3.0, g * (x / 3.0 + 0.5), g)),),
    "hardsigmoid": lambda g, y, x: (torch.where((x > -3.0) & (x < 3.0), g / 6.0, torch.zeros_like(g)),),
    "elu": _elu,
    "selu": lambda g, y, x: _elu(g, y, x, SELU_ALPHA, SELU_SCALE),
    "softplus": _softplus,
    "exp": lambda g, y, x: (g * y,),
    "log": lambda g, y, x: (g / x,),
    "sqrt": lambda g, y, x: (g / (2.0 * y),),
    "rsqrt": lambda g, y, x: (-0.5 * g * y * y * y,),
    "abs": lambda g, y, x: (g * torch.sign(x),),
    "square": lambda g, y, x: (2.0 * g * x,),
    "cube": lambda g, y, x: (3.0 * g * x * x,),
    "reciprocal": lambda g, y, x: (-(g * y * y),),
    "erf": lambda g, y, x: (g * (2.0 / math.sqrt(math.pi)) * torch.exp(-(x * x)),),
    "sin": lambda g, y, x: (g * torch.cos(x),),
    "cos": lambda g, y, x: (-(g * torch.sin(x)),),
    "floor": lambda g, y, x: (torch.zeros_like(g),),
    "ceil": lambda g, y, x: (torch.zeros_like(g),),
    "add": lambda g, y, a, b: (g, g),
    "sub": lambda g, y, a, b: (g, -g),
    "mul": lambda g, y, a, b: (g * b, g * a),
    "div": lambda g, y, a, b: (g / b, -(g * a) / (b * b)),
    "maximum": lambda g, y, a, b: _extremum(g, y, a, b, larger=True),
    "minimum": lambda g, y, a, b: _extremum(g, y, a, b, larger=False),
    "where": lambda g, y, c, a, b: (None, torch.where(c, g, torch.zeros_like(g)),
                                    torch.where(c, torch.zeros_like(g), g)),
    "batch_norm": _batch_norm,
}


# ops whose derivative needs the constants the classifier read (``Op.extra["params"]``)
WITH_PARAMETERS = frozenset({"gelu", "leaky_relu", "hardtanh", "softplus", "elu", "clamp", "batch_norm"})


def has_vjp(name: str) -> bool:
    """Whether the op ``name`` has a backward in this table."""
    return name in DERIVATIVES


def op_vjp_params(op: Any) -> dict[str, Any] | None:
    """The parameters ``vjp`` needs for a classified pointwise op (``ops.Op``), or None where it has no
    backward here (not in the table; a clamp with run-time bounds; batch norm on shifted statistics)."""
    if op.kind != "pointwise" or not has_vjp(op.name):
        return None
    if op.name in WITH_PARAMETERS:
        return op.extra.get("params")
    return {}


def vjp(name: str, grad: Any, out: Any, args: list[Any], params: dict[str, Any] | None = None) -> Grads:
    """The gradients of ``args`` (operands in the op's order; Python numbers allowed: their entry is unused)
    of op ``name`` with output ``out`` and output gradient ``grad``; KeyError for an op with no backward."""
    return DERIVATIVES[name](grad, out, *args, **(params or {}))


def reduce_to(grad: Any, shape: tuple[int, ...]) -> Any:
    """``grad`` (of the broadcast output's shape) summed over the dims an argument of ``shape`` was broadcast
    along: a bias's gradient is the sum over the batch."""
    if tuple(grad.shape) == tuple(shape):
        return grad
    lead = grad.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, size in enumerate(shape) if size == 1 and grad.shape[lead + i] != 1]
    summed = grad.sum(dim=dims, keepdim=True) if dims else grad
    return summed.reshape(shape)
