"""What the built-in proposer knows about PyTorch ops: pointwise ops as Triton expressions, and reductions.

``classify(node, modules)`` turns an fx node into an ``Op``: kind "pointwise" (with a function that builds
a Triton expression from operand expressions), "reduction" (row-wise kernels), or "torch" (kept as a
PyTorch call). Every Triton expression computes in float32; bool values are 0.0 and 1.0 (``_mask_op``: masks,
masked_fill, comparisons, tril/triu as index arithmetic, tensors made from the input's sizes). Casts between
float dtypes round where torch rounds (``_cast``); a reshape that torch would copy reads its input through
strides (``_reshape``). An op whose dim or other parameter is a value computed at run time stays in torch.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.nn.functional as F
from torch import fx, nn

Expr = Callable[..., str]     # operand expressions (strings) -> expression string


@dataclass
class Op:
    kind: str                       # "pointwise" | "reduction" | "loss" | "stats" | "pool" | "torch"
    name: str                       # short name used in kernel names and comments
    tensor_args: list[Any] = field(default_factory=list)   # fx nodes or constants, in expression order
    expr: Expr | None = None        # pointwise only
    reduction: str = ""             # reduction only: softmax, log_softmax, sum, mean, amax, amin, argmax,
    #                                 argmin, logsumexp, layer_norm, group_norm, cumsum (a scan: full output)
    dim: Any = None                 # reduction dims (int or tuple), normalized to non-negative later
    keepdim: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    why: str = ""                   # torch only: why no template applies, where that is not plain absence

    def reads_only_operands(self) -> bool:
        """Whether a kernel reads only ``tensor_args`` of this op: its other arguments are sizes (a tensor made
        from sizes, a reshape's sizes) or a dtype (a cast), not values of the kernel."""
        return bool(self.extra.get("source") or "gather" in self.extra or "cast" in self.extra)


def batch_norm_eval(x: torch.Tensor, mean: torch.Tensor, var: torch.Tensor, weight: Any, bias: Any,
                    eps: float, shift: Any = 0.0) -> torch.Tensor:
    """Batch norm with running statistics, on per-channel views shaped (C, 1, ...): the pointwise form that
    capture puts in place of a BatchNorm module (see capture._batch_norms). With batch statistics, ``mean`` is
    that of x minus ``shift`` (a value of each channel), so it is never rounded at x's own scale."""
    return (((x - shift) - mean) * torch.rsqrt(var + eps) * weight + bias).to(x.dtype)   # x's dtype, as torch


def batch_norm_stats(x: torch.Tensor, running_mean: Any, running_var: Any, num_batches_tracked: Any,
                     momentum: Any, eps: float) -> torch.Tensor:
    """Training-mode batch norm statistics as a (3, C) float32 tensor: per channel (channels on dim 1) a shift
    (the channel's first value), the mean of x minus the shift, and the biased variance; the running statistics
    are updated as nn.BatchNorm does (when it tracks them). What capture puts in place of a training-mode
    BatchNorm module, together with ``batch_norm_eval`` on the rows (see capture._batch_norms); the generated
    code computes it with Triton kernels."""
    dims = [0] + list(range(2, x.dim()))
    xf = x.float()
    shift = xf[(0, slice(None)) + (0,) * (x.dim() - 2)]
    var, shifted_mean = torch.var_mean(xf - shift.view((-1,) + (1,) * (x.dim() - 2)), dim=dims, unbiased=False)
    mean = shift + shifted_mean
    if running_mean is not None:
        n = x.numel() // x.shape[1]
        with torch.no_grad():
            num_batches_tracked.add_(1)
            factor = momentum if momentum is not None else 1.0 / num_batches_tracked
            running_mean.mul_(1 - factor).add_(mean * factor)
            running_var.mul_(1 - factor).add_(var * (n / max(n - 1, 1)) * factor)
    return torch.stack((shift, shifted_mean, var))


def lit(value: float) -> str:
    """A float literal Triton accepts (inf and nan spelled out)."""
    value = float(value)
    if math.isinf(value):
        return "float('inf')" if value > 0 else "float('-inf')"
    if math.isnan(value):
        return "float('nan')"
    return repr(value)


def _sigmoid(x: str) -> str:
    return f"(1.0 / (1.0 + tl.exp(-({x}))))"


def _tanh(x: str) -> str:
    # sign(x) * (1 - e^(-2|x|)) / (1 + e^(-2|x|)): exact in float32 for small and large |x|
    e = f"tl.exp(-2.0 * tl.abs({x}))"
    return f"tl.where({x} >= 0, 1.0, -1.0) * ((1.0 - {e}) / (1.0 + {e}))"


def _max(a: str, b: str) -> str:
    """Elementwise maximum that returns NaN when either operand is NaN, as torch does (tl.maximum alone
    returns the other operand)."""
    return f"tl.maximum({a}, {b}, propagate_nan=tl.PropagateNan.ALL)"


def _min(a: str, b: str) -> str:
    return f"tl.minimum({a}, {b}, propagate_nan=tl.PropagateNan.ALL)"


def _softplus(x: str, beta: float = 1.0, threshold: float = 20.0) -> str:
    bx = f"({lit(beta)} * ({x}))"
    return f"tl.where({bx} > {lit(threshold)}, {x}, tl.log(1.0 + tl.exp({_min(bx, lit(threshold))})) / {lit(beta)})"


def _gelu(x: str, approximate: str = "none") -> str:
    if approximate == "tanh":
        inner = f"(0.7978845608028654 * (({x}) + 0.044715 * ({x}) * ({x}) * ({x})))"
        return f"(0.5 * ({x}) * (1.0 + {_tanh(inner)}))"
    return f"(0.5 * ({x}) * (1.0 + tl.math.erf(({x}) * 0.7071067811865476)))"


def _elu(x: str, alpha: float = 1.0, scale: float = 1.0) -> str:
    return f"({lit(scale)} * tl.where({x} > 0, {x}, {lit(alpha)} * (tl.exp({x}) - 1.0)))"


def _clamp(x: str, lo: Any = None, hi: Any = None) -> str:
    out = x
    if lo is not None:
        out = _max(out, lo)
    if hi is not None:
        out = _min(out, hi)
    return out


SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805

# name -> expression over tensor operands; parameters come from the node (see _pointwise_from_call)
UNARY: dict[str, Expr] = {
    "relu": lambda x: _max(x, "0.0"),
    "relu6": lambda x: _min(_max(x, "0.0"), "6.0"),
    "sigmoid": _sigmoid,
    "tanh": _tanh,
    "silu": lambda x: f"(({x}) * {_sigmoid(x)})",
    "mish": lambda x: f"(({x}) * {_tanh(_softplus(x))})",
    "hardswish": lambda x: f"(({x}) * {_min(_max(f'({x}) + 3.0', '0.0'), '6.0')} / 6.0)",
    "hardsigmoid": lambda x: f"({_min(_max(f'({x}) + 3.0', '0.0'), '6.0')} / 6.0)",
    "selu": lambda x: _elu(x, SELU_ALPHA, SELU_SCALE),
    "exp": lambda x: f"tl.exp({x})",
    "log": lambda x: f"tl.log({x})",
    "sqrt": lambda x: f"tl.sqrt({x})",
    "rsqrt": lambda x: f"tl.rsqrt({x})",
    "abs": lambda x: f"tl.abs({x})",
    "neg": lambda x: f"(-({x}))",
    "square": lambda x: f"(({x}) * ({x}))",
    "reciprocal": lambda x: f"(1.0 / ({x}))",
    "erf": lambda x: f"tl.math.erf({x})",
    "floor": lambda x: f"tl.floor({x})",
    "ceil": lambda x: f"tl.ceil({x})",
    "sin": lambda x: f"tl.sin({x})",
    "cos": lambda x: f"tl.cos({x})",
    "identity": lambda x: x,
}
BINARY: dict[str, Expr] = {
    "add": lambda a, b: f"(({a}) + ({b}))",
    "sub": lambda a, b: f"(({a}) - ({b}))",
    "mul": lambda a, b: f"(({a}) * ({b}))",
    "div": lambda a, b: f"(({a}) / ({b}))",
    "maximum": _max,
    "minimum": _min,
}

_FUNCTION_NAMES: dict[Any, str] = {
    operator.add: "add", torch.add: "add",
    operator.sub: "sub", torch.sub: "sub", torch.subtract: "sub",
    operator.mul: "mul", torch.mul: "mul", torch.multiply: "mul",
    operator.truediv: "div", torch.div: "div", torch.true_divide: "div",
    operator.neg: "neg", torch.neg: "neg",
    torch.relu: "relu", F.relu: "relu", F.relu6: "relu6", torch.sigmoid: "sigmoid", F.sigmoid: "sigmoid",
    torch.tanh: "tanh", F.tanh: "tanh", F.silu: "silu", F.mish: "mish", F.hardswish: "hardswish",
    F.hardsigmoid: "hardsigmoid", F.selu: "selu", torch.selu: "selu", torch.exp: "exp", torch.log: "log",
    torch.sqrt: "sqrt", torch.rsqrt: "rsqrt", torch.abs: "abs", torch.square: "square",
    torch.reciprocal: "reciprocal", torch.erf: "erf", torch.floor: "floor", torch.ceil: "ceil",
    torch.sin: "sin", torch.cos: "cos",
    torch.maximum: "maximum", torch.minimum: "minimum",
    F.gelu: "gelu", F.leaky_relu: "leaky_relu", F.hardtanh: "hardtanh", F.softplus: "softplus", F.elu: "elu",
    torch.clamp: "clamp", torch.clip: "clamp", torch.clamp_min: "clamp_min", torch.clamp_max: "clamp_max",
    torch.where: "where", torch.pow: "pow", operator.pow: "pow",
    F.dropout: "dropout",
    torch.softmax: "softmax", F.softmax: "softmax", torch.log_softmax: "log_softmax",
    F.log_softmax: "log_softmax", torch.sum: "sum", torch.mean: "mean", torch.amax: "amax",
    torch.amin: "amin", torch.logsumexp: "logsumexp", F.layer_norm: "layer_norm", F.group_norm: "group_norm",
    torch.max: "max", torch.min: "min", torch.cumsum: "cumsum", batch_norm_eval: "batch_norm",
    torch.argmax: "argmax", torch.argmin: "argmin", F.cross_entropy: "cross_entropy",
    F.binary_cross_entropy_with_logits: "binary_cross_entropy_with_logits",
    batch_norm_stats: "batch_norm_stats",
}
_METHOD_NAMES = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "neg": "neg", "relu": "relu",
    "sigmoid": "sigmoid", "tanh": "tanh", "exp": "exp", "log": "log", "sqrt": "sqrt", "rsqrt": "rsqrt",
    "abs": "abs", "square": "square", "reciprocal": "reciprocal", "clamp": "clamp", "clip": "clamp",
    "clamp_min": "clamp_min", "clamp_max": "clamp_max", "pow": "pow", "erf": "erf", "floor": "floor",
    "ceil": "ceil", "sin": "sin", "cos": "cos", "maximum": "maximum", "minimum": "minimum",
    "softmax": "softmax", "log_softmax": "log_softmax", "sum": "sum", "mean": "mean", "amax": "amax",
    "amin": "amin", "logsumexp": "logsumexp", "max": "max", "min": "min", "cumsum": "cumsum",
    "argmax": "argmax", "argmin": "argmin",
}
_MODULE_NAMES = {
    nn.ReLU: "relu", nn.ReLU6: "relu6", nn.Sigmoid: "sigmoid", nn.Tanh: "tanh", nn.SiLU: "silu",
    nn.Mish: "mish", nn.Hardswish: "hardswish", nn.Hardsigmoid: "hardsigmoid", nn.SELU: "selu",
    nn.GELU: "gelu", nn.LeakyReLU: "leaky_relu", nn.Hardtanh: "hardtanh", nn.Softplus: "softplus",
    nn.ELU: "elu", nn.Identity: "identity", nn.Dropout: "dropout", nn.Softmax: "softmax",
    nn.LogSoftmax: "log_softmax", nn.LayerNorm: "layer_norm", nn.GroupNorm: "group_norm",
    nn.InstanceNorm1d: "instance_norm", nn.InstanceNorm2d: "instance_norm", nn.InstanceNorm3d: "instance_norm",
    nn.CrossEntropyLoss: "cross_entropy", nn.BCEWithLogitsLoss: "binary_cross_entropy_with_logits",
}
_INPLACE_OPERATORS = {operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ipow}
# masks (see _mask_op): bool values, masked_fill, tril/triu as index arithmetic, tensors made from sizes
_COMPARISONS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_FUNCTION_NAMES.update({
    torch.masked_fill: "masked_fill", operator.invert: "invert", torch.bitwise_not: "invert",
    torch.logical_not: "logical_not", torch.tril: "tril", torch.triu: "triu",
    torch.ones: "ones", torch.zeros: "zeros", torch.full: "full",
    **{getattr(operator, c): c for c in _COMPARISONS}, **{getattr(torch, c): c for c in _COMPARISONS},
})
_METHOD_NAMES.update({name: name for name in ("masked_fill", "bool", "logical_not", "tril", "triu", *_COMPARISONS)})
_METHOD_NAMES["bitwise_not"] = "invert"
# views and casts (see _reshape, _cast): a reshape that copies reads through strides; a cast rounds in the kernel
_FUNCTION_NAMES[torch.reshape] = "reshape"
_METHOD_NAMES.update({"reshape": "reshape", "to": "cast", "float": "cast", "half": "cast", "bfloat16": "cast"})
MASK_OPS = {"masked_fill", "invert", "logical_not", "bool", "tril", "triu", "ones", "zeros", "full", *_COMPARISONS}
ZERO_ONE = {"invert", "logical_not", "bool", *_COMPARISONS}    # ops whose value is already exactly 0.0 or 1.0
REDUCTIONS = {"softmax", "log_softmax", "sum", "mean", "amax", "amin", "argmax", "argmin", "logsumexp",
              "layer_norm", "group_norm", "cumsum"}


def _arg(node: fx.Node, index: int, name: str, default: Any = None) -> Any:
    if name in node.kwargs:
        return node.kwargs[name]
    return node.args[index] if len(node.args) > index else default


def _params(**values: Any) -> dict[str, Any]:
    """An op's constant parameters, kept for its derivative (``derivative.vjp``): the expression bakes them in."""
    return {"params": values}


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (int, float, bool)) and not isinstance(value, fx.Node)


def _scalar_or_none(value: Any) -> bool:
    return value is None or _is_scalar(value)


def torch_op(name: str, why: str = "") -> Op:
    return Op(kind="torch", name=name, why=why)


MAX_POOL_WINDOW = 64      # window elements the pool kernel unrolls; larger (global) windows stay in torch
_POOL_MODULES = {nn.MaxPool1d: ("max", 1), nn.MaxPool2d: ("max", 2), nn.MaxPool3d: ("max", 3),
                 nn.AvgPool1d: ("avg", 1), nn.AvgPool2d: ("avg", 2), nn.AvgPool3d: ("avg", 3)}
_POOL_FUNCTIONS = {F.max_pool1d: ("max", 1), F.max_pool2d: ("max", 2), F.max_pool3d: ("max", 3),
                   F.avg_pool1d: ("avg", 1), F.avg_pool2d: ("avg", 2), F.avg_pool3d: ("avg", 3)}
_POOL_ARGS = {"max": ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"),
              "avg": ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")}


def _pool(node: fx.Node, kind: str, dims: int, given: dict[str, Any]) -> Op:
    """Max or average pooling over the last ``dims`` dims of an (N, C, ...) input: a "pool" kernel. Left to
    torch: indices returned, run-time window parameters, windows of more than MAX_POOL_WINDOW elements (the
    kernel unrolls the window) and average pooling with ceil_mode."""
    def sizes(value: Any, default: Any) -> tuple[int, ...] | None:
        value = default if value is None or value == [] or value == () else value
        values = tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims
        return values if len(values) == dims and all(type(v) is int for v in values) else None

    kernel = sizes(given.get("kernel_size"), None)
    stride = sizes(given.get("stride"), kernel)
    padding, dilation = sizes(given.get("padding"), 0), sizes(given.get("dilation"), 1)
    divisor = given.get("divisor_override")
    if None in (kernel, stride, padding, dilation) or math.prod(kernel) > MAX_POOL_WINDOW or \
            given.get("return_indices") or not isinstance(given.get("ceil_mode", False), bool) or \
            (divisor is not None and type(divisor) is not int) or (kind == "avg" and given.get("ceil_mode")) or \
            not isinstance(node.args[0], fx.Node):
        return torch_op(f"{kind}pool{dims}d")
    return Op("pool", f"{kind}_pool{dims}d", [node.args[0]], extra={
        "kind": kind, "dims": dims, "kernel": kernel, "stride": stride, "padding": padding, "dilation": dilation,
        "ceil_mode": bool(given.get("ceil_mode", False)), "count_include_pad": given.get("count_include_pad", True),
        "divisor": divisor})


def classify(node: fx.Node, modules: dict[str, nn.Module]) -> Op:
    """What to do with one call node; ``torch`` when no Triton template applies.

    In-place ops (``x += y``, ``inplace=True``) stay in torch: their mutation is part of the semantics. An op
    whose parameters (a dim, keepdim, a slope) are Python values computed at run time (``softmax(x, dim=dim)``
    with ``dim`` an argument of forward) stays in torch too: the templates bake those in as constants."""
    op = _classify(node, modules)
    runtime = [] if op.kind == "torch" or op.reads_only_operands() else _runtime_parameters(node, op)
    if runtime:
        return torch_op(op.name, why=f"{op.name} takes {' and '.join(runtime)} as a value computed at run time "
                                     "(a Triton template needs it as a constant)")
    return op


_FIXED_TYPES = (torch.Tensor, nn.Parameter, torch.dtype, torch.device)   # tensors; dtypes and devices: the
#                                                                           envelope fixes those of the inputs


def _runtime_parameters(node: fx.Node, op: Op) -> list[str]:
    """The arguments of ``node`` that are values of the graph other than the op's operands ('dim=dim')."""
    operands = {a for a in op.tensor_args if isinstance(a, fx.Node)}

    def nodes_in(value: Any) -> list[fx.Node]:
        if isinstance(value, fx.Node):
            return [value]
        if isinstance(value, (tuple, list)):
            return [n for v in value for n in nodes_in(v)]
        return []
    given = list(enumerate(node.args)) + list(node.kwargs.items())
    if op.reduction == "layer_norm":        # only how many trailing dims (the kernel reads their sizes)
        given = [(key, value) for key, value in given if key not in (1, "normalized_shape")]
    found = []
    for key, value in given:
        for n in nodes_in(value):
            if n not in operands and n.meta.get("tensor_meta") is None and n.op != "get_attr" and \
                    n.meta.get("type") not in _FIXED_TYPES:
                label = f"{key}={n.name}" if isinstance(key, str) else f"'{n.name}'"
                if label not in found:
                    found.append(label)
    return found


def _classify(node: fx.Node, modules: dict[str, nn.Module]) -> Op:
    if node.kwargs.get("inplace") is True or node.target in _INPLACE_OPERATORS:
        return torch_op("inplace")
    if node.op == "call_module":
        module = modules[str(node.target)]
        if getattr(module, "inplace", False) is True:
            return torch_op(type(module).__name__.lower())
        if type(module) in _POOL_MODULES and len(node.args) == 1 and not node.kwargs:
            kind, dims = _POOL_MODULES[type(module)]
            return _pool(node, kind, dims, {a: getattr(module, a, None) for a in _POOL_ARGS[kind]})
        name = _MODULE_NAMES.get(type(module))
        if name is None:
            return torch_op(type(module).__name__.lower())
        return _from_module(node, module, name)
    if node.op == "call_function" and node.target in _POOL_FUNCTIONS:
        kind, dims = _POOL_FUNCTIONS[node.target]
        names = _POOL_ARGS[kind][:len(node.args) - 1]
        return _pool(node, kind, dims, {**dict(zip(names, node.args[1:])), **node.kwargs})
    if node.op == "call_function":
        name = _FUNCTION_NAMES.get(node.target)
    elif node.op == "call_method":
        name = _METHOD_NAMES.get(str(node.target))
    else:
        return torch_op(node.op)
    if name is None:
        return torch_op(getattr(node.target, "__name__", str(node.target)))
    return _from_call(node, name)


def _from_module(node: fx.Node, module: nn.Module, name: str) -> Op:
    x = node.args[0] if node.args else None
    if name == "dropout":
        return Op("pointwise", "identity", [x], UNARY["identity"]) if (not module.training or module.p == 0) \
            else torch_op("dropout")
    if name in UNARY:
        return Op("pointwise", name, [x], UNARY[name])
    if name == "gelu":
        return Op("pointwise", name, [x], lambda a, ap=module.approximate: _gelu(a, ap),
                  extra=_params(approximate=module.approximate))
    if name == "leaky_relu":
        s = lit(module.negative_slope)
        return Op("pointwise", name, [x], lambda a: f"tl.where({a} > 0, {a}, {a} * {s})",
                  extra=_params(negative_slope=module.negative_slope))
    if name == "hardtanh":
        return Op("pointwise", name, [x], lambda a: _clamp(a, lit(module.min_val), lit(module.max_val)),
                  extra=_params(min_val=module.min_val, max_val=module.max_val))
    if name == "softplus":
        return Op("pointwise", name, [x], lambda a: _softplus(a, module.beta, module.threshold),
                  extra=_params(beta=module.beta, threshold=module.threshold))
    if name == "elu":
        return Op("pointwise", name, [x], lambda a: _elu(a, module.alpha), extra=_params(alpha=module.alpha))
    if name in ("softmax", "log_softmax"):
        if module.dim is None:                   # legacy implicit dim: left to torch
            return torch_op(name)
        return Op("reduction", name, [x], reduction=name, dim=module.dim)
    if name == "layer_norm":
        return Op("reduction", name, [x], reduction=name, dim=tuple(module.normalized_shape),
                  extra={"eps": module.eps, "affine": module.elementwise_affine,
                         "has_bias": module.bias is not None, "module": str(node.target)})
    if name == "group_norm":
        return Op("reduction", name, [x], reduction=name, extra={
            "groups": module.num_groups, "eps": module.eps, "affine": module.affine, "has_bias": module.affine,
            "module": str(node.target)})
    if name == "cross_entropy":
        return _cross_entropy(x, node.args[1] if len(node.args) > 1 else node.kwargs.get("target"),
                              None if module.weight is None else f"{node.target}.weight", module.reduction,
                              module.ignore_index, module.label_smoothing)
    if name == "binary_cross_entropy_with_logits":
        return _bce_with_logits(x, node.args[1] if len(node.args) > 1 else node.kwargs.get("target"),
                                *(None if getattr(module, w) is None else f"{node.target}.{w}"
                                  for w in ("weight", "pos_weight")), module.reduction)
    if name == "instance_norm" and not module.track_running_stats:   # batch statistics: a group norm, G = C
        return Op("reduction", name, [x], reduction="group_norm", extra={
            "groups": None, "eps": module.eps, "affine": module.affine, "has_bias": module.affine,
            "module": str(node.target)})
    return torch_op(name)


def _from_call(node: fx.Node, name: str) -> Op:
    args = node.args
    x = args[0] if args else node.kwargs.get("input")
    if name in MASK_OPS:
        return _mask_op(node, name)
    if name == "reshape":
        return _reshape(node)
    if name == "cast":
        return _cast(node)
    if name in UNARY:
        if len(args) > 1 or set(node.kwargs) - {"inplace"}:
            return torch_op(name)
        return Op("pointwise", name, [x], UNARY[name])
    if name in ("add", "sub") and len(args) == 2 and "alpha" not in node.kwargs:
        return _binary(name, args[0], args[1])
    if name in ("mul", "maximum", "minimum") and len(args) == 2 and not node.kwargs:
        return _binary(name, args[0], args[1])
    if name == "div" and len(args) == 2 and node.kwargs.get("rounding_mode") is None:
        return _binary(name, args[0], args[1])
    parameters = {"gelu": [(1, "approximate")], "leaky_relu": [(1, "negative_slope")],
                  "hardtanh": [(1, "min_val"), (2, "max_val")], "softplus": [(1, "beta"), (2, "threshold")],
                  "elu": [(1, "alpha")], "group_norm": [(4, "eps")], "layer_norm": [(4, "eps")]}
    if any(isinstance(_arg(node, i, key), fx.Node) for i, key in parameters.get(name, ())):
        return torch_op(name)          # a parameter computed at run time: these templates bake it in
    if name == "gelu":
        approximate = _arg(node, 1, "approximate", "none")
        return Op("pointwise", name, [x], lambda a, ap=approximate: _gelu(a, ap),
                  extra=_params(approximate=approximate))
    if name == "leaky_relu":
        slope = _arg(node, 1, "negative_slope", 0.01)
        s = lit(slope)
        return Op("pointwise", name, [x], lambda a: f"tl.where({a} > 0, {a}, {a} * {s})",
                  extra=_params(negative_slope=slope))
    if name == "hardtanh":
        low, high = _arg(node, 1, "min_val", -1.0), _arg(node, 2, "max_val", 1.0)
        lo, hi = lit(low), lit(high)
        return Op("pointwise", name, [x], lambda a: _clamp(a, lo, hi), extra=_params(min_val=low, max_val=high))
    if name == "softplus":
        beta, threshold = _arg(node, 1, "beta", 1.0), _arg(node, 2, "threshold", 20.0)
        return Op("pointwise", name, [x], lambda a: _softplus(a, beta, threshold),
                  extra=_params(beta=beta, threshold=threshold))
    if name == "elu":
        alpha = _arg(node, 1, "alpha", 1.0)
        return Op("pointwise", name, [x], lambda a, al=alpha: _elu(a, al), extra=_params(alpha=alpha))
    if name in ("clamp", "clamp_min", "clamp_max"):
        lo = _arg(node, 1, "min") if name != "clamp_max" else None
        hi = _arg(node, 2 if name == "clamp" else 1, "max") if name != "clamp_min" else None
        if not all(_scalar_or_none(b) or isinstance(b, fx.Node) for b in (lo, hi)) or (lo is None and hi is None):
            return torch_op(name)
        bounds = [b for b in (lo, hi) if isinstance(b, fx.Node)]     # run-time bounds: operands of their own

        def clamp(a: str, *given: str) -> str:
            values = iter(given)
            lo_s, hi_s = (next(values) if isinstance(b, fx.Node) else lit(b) if b is not None else None
                          for b in (lo, hi))
            return _clamp(a, lo_s, hi_s)
        return Op("pointwise", "clamp", [x, *bounds], clamp,
                  extra={} if bounds else _params(min=lo, max=hi))   # run-time bounds: no derivative yet
    if name == "pow":
        exponent = _arg(node, 1, "exponent")
        if isinstance(x, fx.Node) and exponent in (2, 2.0):
            return Op("pointwise", "square", [x], UNARY["square"])
        if isinstance(x, fx.Node) and exponent in (0.5,):
            return Op("pointwise", "sqrt", [x], UNARY["sqrt"])
        if isinstance(x, fx.Node) and exponent in (3, 3.0):
            return Op("pointwise", "cube", [x], lambda a: f"(({a}) * ({a}) * ({a}))")
        return torch_op(name)
    if name == "batch_norm":
        eps = lit(args[5])
        if len(args) > 6 and isinstance(args[6], fx.Node):       # batch statistics: the mean is of x - shift
            return Op("pointwise", name, list(args[:5]) + [args[6]],
                      lambda v, m, var, w, b, s: f"(((({v}) - ({s})) - ({m})) * tl.rsqrt(({var}) + {eps}) * ({w})"
                                                 f" + ({b}))")
        return Op("pointwise", name, list(args[:5]),
                  lambda v, m, var, w, b: f"((({v}) - ({m})) * tl.rsqrt(({var}) + {eps}) * ({w}) + ({b}))",
                  extra=_params(eps=args[5]))
    if name == "where" and len(args) == 3:
        return Op("pointwise", "where", list(args), lambda c, a, b: f"tl.where(({c}) != 0, {a}, {b})")
    if name == "dropout":
        p, training = _arg(node, 1, "p", 0.5), _arg(node, 2, "training", True)
        return Op("pointwise", "identity", [x], UNARY["identity"]) if (p == 0 or training is False) \
            else torch_op("dropout")
    if name in ("max", "min"):
        if len(args) == 2 and isinstance(args[1], fx.Node) and not node.kwargs:   # elementwise with a tensor
            return _binary("maximum" if name == "max" else "minimum", args[0], args[1])
        return torch_op(name)      # values+indices or a global reduction: left to torch
    if name in REDUCTIONS:
        return _reduction(node, name, x)
    if name == "batch_norm_stats":
        return Op("stats", name, list(args[:4]), extra={"momentum": args[4], "eps": args[5]})
    if name == "cross_entropy":
        if any(_arg(node, i, key) is not None for i, key in ((3, "size_average"), (5, "reduce"))):
            return torch_op(name)          # the deprecated arguments: left to torch
        return _cross_entropy(x, _arg(node, 1, "target"), _arg(node, 2, "weight"), _arg(node, 6, "reduction", "mean"),
                              _arg(node, 4, "ignore_index", -100), _arg(node, 7, "label_smoothing", 0.0))
    if name == "binary_cross_entropy_with_logits":
        if any(_arg(node, i, key) is not None for i, key in ((3, "size_average"), (4, "reduce"))):
            return torch_op(name)          # the deprecated arguments: left to torch
        return _bce_with_logits(x, _arg(node, 1, "target"), _arg(node, 2, "weight"), _arg(node, 6, "pos_weight"),
                                _arg(node, 5, "reduction", "mean"))
    return torch_op(name)


def _cross_entropy(x: Any, target: Any, weight: Any, reduction: Any, ignore_index: Any, smoothing: Any) -> Op:
    """Cross-entropy over class indices, with optional class weights and label smoothing: a "loss" kernel.

    ``weight``: None, an fx node, or the attribute path of a module's weight buffer ("criterion.weight");
    a node is a tensor argument of the op, a path stays in ``extra`` (the launcher reads it from ``self``)."""
    if reduction not in ("mean", "sum", "none") or type(ignore_index) is not int or \
            not isinstance(x, fx.Node) or not isinstance(target, fx.Node) or \
            not (weight is None or isinstance(weight, (fx.Node, str))) or \
            not (_is_scalar(smoothing) and 0.0 <= float(smoothing) <= 1.0):
        return torch_op("cross_entropy")
    return Op("loss", "cross_entropy", [x, target] + ([weight] if isinstance(weight, fx.Node) else []),
              extra={"reduction": reduction, "ignore_index": ignore_index, "smoothing": float(smoothing),
                     "weight": weight})


def bce_with_logits_expr(x: str, t: str, weight: str | None = None, pos_weight: str | None = None) -> str:
    """Triton expression of one element of F.binary_cross_entropy_with_logits, as torch computes it:
    (1 - t) * x - (1 + (pos_weight - 1) * t) * log_sigmoid(x), times weight. log_sigmoid(x) is
    min(x, 0) - log1p(exp(-|x|)); log1p(e) as log(u) * e / (u - 1) with u = 1 + e (exact for tiny e)."""
    e = f"tl.exp(-tl.abs({x}))"
    log1p = f"tl.where(1.0 + {e} == 1.0, {e}, tl.log(1.0 + {e}) * ({e} / ((1.0 + {e}) - 1.0)))"
    log_sigmoid = f"({_min(x, '0.0')} - {log1p})"
    scale = "1.0" if pos_weight is None else f"(1.0 + (({pos_weight}) - 1.0) * ({t}))"
    loss = f"((1.0 - ({t})) * ({x}) - {scale} * {log_sigmoid})"
    return loss if weight is None else f"({loss} * ({weight}))"


def _bce_with_logits(x: Any, target: Any, weight: Any, pos_weight: Any, reduction: Any) -> Op:
    """F.binary_cross_entropy_with_logits / nn.BCEWithLogitsLoss. Reduction "none": a pointwise op (it fuses
    with its neighbours; weights must then be fx nodes); "mean"/"sum": a "loss" kernel that sums as it goes.
    ``weight``/``pos_weight`` as in ``_cross_entropy``: None, an fx node or a module attribute path."""
    given = {"weight": weight, "pos_weight": pos_weight}
    if reduction not in ("mean", "sum", "none") or not isinstance(x, fx.Node) or not isinstance(target, fx.Node) \
            or not all(w is None or isinstance(w, (fx.Node, str)) for w in given.values()):
        return torch_op("binary_cross_entropy_with_logits")
    nodes = [w for w in given.values() if isinstance(w, fx.Node)]
    if reduction != "none":
        return Op("loss", "binary_cross_entropy_with_logits", [x, target] + nodes,
                  extra={"reduction": reduction, **given})
    if any(isinstance(w, str) for w in given.values()):
        return torch_op("binary_cross_entropy_with_logits")     # a module's buffers: no operand of a fused kernel

    def expr(a: str, t: str, *rest: str) -> str:
        values = iter(rest)
        return bce_with_logits_expr(a, t, *(next(values) if w is not None else None for w in given.values()))
    return Op("pointwise", "binary_cross_entropy_with_logits", [x, target] + nodes, expr)


def _binary(name: str, a: Any, b: Any) -> Op:
    if not (isinstance(a, fx.Node) or _is_scalar(a)) or not (isinstance(b, fx.Node) or _is_scalar(b)):
        return torch_op(name)
    return Op("pointwise", name, [a, b], BINARY[name])


def _reduction(node: fx.Node, name: str, x: Any) -> Op:
    if name in ("softmax", "log_softmax"):
        dim = _arg(node, 1, "dim")
        if dim is None or _arg(node, 2, "dtype") is not None or _arg(node, 3, "_stacklevel") not in (None, 3):
            return torch_op(name)
        return Op("reduction", name, [x], reduction=name, dim=dim)
    if name == "cumsum":          # a scan: full output, one dim
        dim = _arg(node, 1, "dim")
        if not isinstance(dim, int) or _arg(node, 2, "dtype") is not None or (node.kwargs.keys() - {"dim"}):
            return torch_op(name)
        return Op("reduction", name, [x], reduction=name, dim=dim)
    if name == "group_norm":
        groups = _arg(node, 1, "num_groups")
        if not isinstance(groups, int):
            return torch_op(name)
        return Op("reduction", name, [x], reduction=name, extra={
            "groups": groups, "weight": _arg(node, 2, "weight"), "bias": _arg(node, 3, "bias"),
            "eps": _arg(node, 4, "eps", 1e-5)})
    if name == "layer_norm":
        shape = _arg(node, 1, "normalized_shape")
        if not isinstance(shape, (tuple, list)):
            return torch_op(name, why="layer_norm takes its normalized_shape as a value computed at run time")
        weight, bias, eps = _arg(node, 2, "weight"), _arg(node, 3, "bias"), _arg(node, 4, "eps", 1e-5)
        return Op("reduction", name, [x], reduction=name, dim=tuple(shape),
                  extra={"eps": eps, "weight": weight, "bias": bias})
    dim = _arg(node, 1, "dim")
    keepdim = bool(_arg(node, 2, "keepdim", False))
    if dim is None or _arg(node, 3, "dtype") is not None or (node.kwargs.keys() - {"dim", "keepdim"}):
        return torch_op(name)
    return Op("reduction", name, [x], reduction=name, dim=tuple(dim) if isinstance(dim, (list, tuple)) else dim,
              keepdim=keepdim)


def reduced_dims(op: Op, rank: int) -> tuple[int, ...]:
    """The dims a reduction op reduces, non-negative and sorted (norms: their trailing or per-sample dims)."""
    if op.reduction == "layer_norm":
        return tuple(range(rank - len(op.dim), rank))
    if op.reduction == "group_norm":
        return tuple(range(1, rank))
    raw = op.dim if isinstance(op.dim, (tuple, list)) else (op.dim,)
    return tuple(sorted({int(d) % rank for d in raw})) if rank else ()


# --------------------------------------------------------------------------------------------------------------
# masks: bool values are 0.0 / 1.0 inside a kernel (pointwise.py stores them as bool)


def _dtype(value: Any) -> torch.dtype | None:
    meta = value.meta.get("tensor_meta") if isinstance(value, fx.Node) else None
    return getattr(meta, "dtype", None)


def rounded(value: Any, dtype: torch.dtype | None) -> str:
    """A Python number as a float literal, first rounded to ``dtype`` as torch does when it mixes a number with
    a tensor of that dtype (0.1 is another value in float16)."""
    if dtype is None or dtype in (torch.float32, torch.float64):
        return lit(value)
    return lit(torch.tensor(value, dtype=dtype).item())


_EXACT_IN_FLOAT32 = (torch.float32, torch.float16, torch.bfloat16, torch.bool, torch.int8, torch.uint8, torch.int16)
_FACTORY_KWARGS = {"dtype", "device", "layout", "requires_grad", "pin_memory"}


def _mask_op(node: fx.Node, name: str) -> Op:
    """Ops of masks, as pointwise ops. ``tril``/``triu`` read the element's row and column (two index
    operands appended by pointwise.py, ``extra["indices"]``), so ``torch.ones(t, t).tril()`` is the
    predicate ``col <= row`` and never a tensor; ``ones``/``zeros``/``full`` are constants of the kernel's
    index space (``extra["source"]``: the kernel reads none of their arguments, only the fill value)."""
    args, kwargs = node.args, node.kwargs
    x = args[0] if args else None
    if name in ("ones", "zeros", "full"):
        if set(kwargs) - _FACTORY_KWARGS - {"fill_value", "size"} or kwargs.get("requires_grad") or \
                kwargs.get("layout") not in (None, torch.strided):
            return torch_op(name)
        dtype = _dtype(node)
        value = {"ones": 1.0, "zeros": 0.0}.get(name, _arg(node, 1, "fill_value"))
        if isinstance(value, fx.Node) and value.meta.get("type") in (int, float, bool) and dtype != torch.bool:
            return Op("pointwise", name, [value], lambda v: v, extra={"source": True})
        if not _is_scalar(value):
            return torch_op(name)
        fill = rounded(value, dtype) if dtype != torch.bool else lit(bool(value))
        return Op("pointwise", name, [], lambda: fill, extra={"source": True})
    if not isinstance(x, fx.Node) or _dtype(x) is None:
        return torch_op(name)
    if name == "invert":                 # ~ on bool tensors (on integers it is a bitwise not)
        if _dtype(x) != torch.bool or len(args) != 1 or kwargs:
            return torch_op(name)
        return Op("pointwise", name, [x], lambda a: f"tl.where(({a}) != 0, 0.0, 1.0)")
    if name == "logical_not" and len(args) == 1 and not kwargs:
        return Op("pointwise", name, [x], lambda a: f"tl.where(({a}) != 0, 0.0, 1.0)")
    if name == "bool" and len(args) == 1 and not kwargs:
        return Op("pointwise", name, [x], lambda a: f"tl.where(({a}) != 0, 1.0, 0.0)")
    if name == "masked_fill":
        mask, value = _arg(node, 1, "mask"), _arg(node, 2, "value")
        if _dtype(mask) != torch.bool or set(kwargs) - {"mask", "value"}:
            return torch_op(name)
        if _is_scalar(value):
            fill = lit(bool(value)) if _dtype(x) == torch.bool else rounded(value, _dtype(x))
            return Op("pointwise", name, [x, mask], lambda a, m: f"tl.where(({m}) != 0, {fill}, {a})")
        if isinstance(value, fx.Node) and (value.meta.get("type") in (int, float) or
                                           _dtype(value) is not None and not value.meta["tensor_meta"].shape):
            return Op("pointwise", name, [x, mask, value], lambda a, m, v: f"tl.where(({m}) != 0, {v}, {a})")
        return torch_op(name)
    if name in ("tril", "triu"):
        diagonal = _arg(node, 1, "diagonal", 0)
        if type(diagonal) is not int or set(kwargs) - {"diagonal"} or len(node.meta["tensor_meta"].shape) < 2:
            return torch_op(name)
        keep = "<=" if name == "tril" else ">="
        return Op("pointwise", name, [x], lambda a, row, col: f"tl.where({col} - {row} {keep} {diagonal}, {a}, 0.0)",
                  extra={"indices": 2})
    if name in _COMPARISONS and len(args) == 2 and not kwargs:
        tensors = [a for a in args if isinstance(a, fx.Node)]
        dtypes = {_dtype(a) for a in tensors}
        if len(dtypes) != 1 or not dtypes <= set(_EXACT_IN_FLOAT32) or not all(
                isinstance(a, fx.Node) or _is_scalar(a) for a in args):
            return torch_op(name)        # mixed dtypes: torch compares in the promoted one, not always float32
        (dtype,) = dtypes
        operands = [a for a in args if isinstance(a, fx.Node)]
        literal = {i: rounded(a, dtype if dtype.is_floating_point else None) for i, a in enumerate(args)
                   if not isinstance(a, fx.Node)}
        if any(not isinstance(a, (bool, int)) for a in args if not isinstance(a, fx.Node)) and \
                not dtype.is_floating_point:
            return torch_op(name)        # an integer tensor against a float: promoted to float32 by torch
        symbol = _COMPARISONS[name]

        def compare(*given: str) -> str:
            values = iter(given)
            a, b = (literal[i] if i in literal else next(values) for i in range(2))
            return f"tl.where(({a}) {symbol} ({b}), 1.0, 0.0)"
        return Op("pointwise", name, operands, compare)
    return torch_op(name)


# --------------------------------------------------------------------------------------------------------------
# views and casts


def is_contiguous(meta: Any) -> bool:
    """Whether traced tensor metadata (shape and stride) is row-major contiguous (size-1 dims ignored)."""
    expected = 1
    for size, stride in reversed(list(zip(meta.shape, meta.stride))):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _reshape(node: fx.Node) -> Op:
    """``x.reshape(sizes)`` of an x that is not contiguous as traced (an expand, a transpose), which torch would
    copy: a pointwise copy that reads x at the element's row-major (logical) index through x's run-time sizes
    and strides, so the views before it (``x[:, :, None].expand(...)`` of repeat_kv) are index arithmetic.
    ``extra["gather"]``: the sizes (ints or values of the forward), which the launcher takes for the output's
    shape. A contiguous x stays a torch view (free)."""
    x = node.args[0] if node.args else None
    sizes = tuple(node.args[1:]) if node.op == "call_method" else tuple(node.args[1:2])
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    meta = x.meta.get("tensor_meta") if isinstance(x, fx.Node) else None
    if node.kwargs or not sizes or meta is None or not hasattr(meta, "stride") or is_contiguous(meta) or \
            not all(type(s) is int or isinstance(s, fx.Node) and s.meta.get("type") is int for s in sizes):
        return torch_op("reshape")
    return Op("pointwise", "reshape", [x], UNARY["identity"], extra={"gather": sizes})


_CAST_DTYPES = {torch.float32: "tl.float32", torch.float16: "tl.float16", torch.bfloat16: "tl.bfloat16"}


def _cast(node: fx.Node) -> Op:
    """``x.float()``, ``x.half()``, ``x.bfloat16()``, ``x.to(dtype)`` (a dtype constant or ``other.dtype``) between
    float32, float16 and bfloat16 (or from bool): computed in float32, rounded to float16/bfloat16 where torch
    rounds (``extra["cast"]``: the target dtype, from the traced output). A cast to the tensor's own dtype
    returns the tensor itself in torch: it stays there."""
    x = node.args[0] if node.args else None
    out, source = _dtype(node), _dtype(x)
    rest = list(node.args[1:]) + list(node.kwargs.values())
    is_dtype = [isinstance(a, torch.dtype) or isinstance(a, fx.Node) and a.meta.get("type") is torch.dtype
                for a in rest]
    if out not in _CAST_DTYPES or not (source in _CAST_DTYPES or source == torch.bool) or out == source or \
            set(node.kwargs) - {"dtype"} or (node.target == "to" and is_dtype != [True]) or \
            (node.target != "to" and rest):
        return torch_op(str(node.target))
    if out == torch.float32:
        return Op("pointwise", "cast", [x], UNARY["identity"], extra={"cast": out})
    return Op("pointwise", "cast", [x], lambda a: f"({a}).to({_CAST_DTYPES[out]}).to(tl.float32)", extra={"cast": out})
