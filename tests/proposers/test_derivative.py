"""The builder's table of local derivatives against torch's autograd, in float64, kinks and ties included."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from adaexplore_core.proposers.builtin import derivative

SHAPE = (6, 33)


def spread(g: torch.Generator) -> torch.Tensor:
    """Values across the ops' interesting ranges, with the kinks themselves: 0, +-1, +-3, 6."""
    x = torch.randn(SHAPE, generator=g, dtype=torch.float64) * 4
    x.view(-1)[:8] = torch.tensor([0.0, 1.0, -1.0, 3.0, -3.0, 6.0, 0.5, -0.5], dtype=torch.float64)
    return x


def positive(g: torch.Generator) -> torch.Tensor:
    return torch.rand(SHAPE, generator=g, dtype=torch.float64) * 5 + 0.1


UNARY = {   # name: (torch function, inputs, params)
    "identity": (lambda x: x * 1.0, spread, {}),
    "cast": (lambda x: x.to(torch.float32).to(torch.float64), spread, {}),
    "neg": (torch.neg, spread, {}),
    "relu": (torch.relu, spread, {}),
    "relu6": (F.relu6, spread, {}),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), spread, {"negative_slope": 0.2}),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 1.0), spread, {"min_val": -0.5, "max_val": 1.0}),
    "clamp": (lambda x: torch.clamp(x, -1.0, 3.0), spread, {"min": -1.0, "max": 3.0}),
    "sigmoid": (torch.sigmoid, spread, {}),
    "tanh": (torch.tanh, spread, {}),
    "silu": (F.silu, spread, {}),
    "mish": (F.mish, spread, {}),
    "gelu": (F.gelu, spread, {}),
    "hardswish": (F.hardswish, spread, {}),
    "hardsigmoid": (F.hardsigmoid, spread, {}),
    "elu": (lambda x: F.elu(x, 0.7), spread, {"alpha": 0.7}),
    "selu": (F.selu, spread, {}),
    "softplus": (lambda x: F.softplus(x, 2.0, 5.0), spread, {"beta": 2.0, "threshold": 5.0}),
    "exp": (torch.exp, spread, {}),
    "log": (torch.log, positive, {}),
    "sqrt": (torch.sqrt, positive, {}),
    "rsqrt": (torch.rsqrt, positive, {}),
    "abs": (torch.abs, spread, {}),
    "square": (torch.square, spread, {}),
    "cube": (lambda x: x * x * x, spread, {}),
    "reciprocal": (torch.reciprocal, positive, {}),
    "erf": (torch.erf, spread, {}),
    "sin": (torch.sin, spread, {}),
    "cos": (torch.cos, spread, {}),
    "floor": (torch.floor, spread, {}),
    "ceil": (torch.ceil, spread, {}),
}


def torch_grads(fn, args, g):
    leaves = [a.clone().requires_grad_(True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
              for a in args]
    out = fn(*leaves)
    wanted = [a for a in leaves if isinstance(a, torch.Tensor) and a.requires_grad]
    found = iter(torch.autograd.grad(out, wanted, g, allow_unused=True))
    return out.detach(), [next(found) if isinstance(a, torch.Tensor) and a.requires_grad else None for a in leaves]


@pytest.mark.parametrize("name", sorted(UNARY))
def test_a_unary_derivative_is_torchs(name):
    fn, make, params = UNARY[name]
    g = torch.Generator().manual_seed(7)
    x, grad = make(g), torch.randn(SHAPE, generator=g, dtype=torch.float64)
    out, (expected,) = torch_grads(fn, [x], grad)
    (found,) = derivative.vjp(name, grad, out, [x], params)
    expected = torch.zeros_like(x) if expected is None else expected
    torch.testing.assert_close(found, expected, rtol=1e-7, atol=1e-10)   # torch: 1/6 as a float32 constant


def test_the_tanh_gelu_derivative_is_torchs():
    g = torch.Generator().manual_seed(3)
    x, grad = spread(g), torch.randn(SHAPE, generator=g, dtype=torch.float64)
    out, (expected,) = torch_grads(lambda v: F.gelu(v, approximate="tanh"), [x], grad)
    torch.testing.assert_close(derivative.vjp("gelu", grad, out, [x], {"approximate": "tanh"})[0], expected)


BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "maximum": torch.maximum,
          "minimum": torch.minimum}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_a_binary_derivative_with_a_broadcast_operand_is_torchs(name):
    """The second operand a bias row (1, 33): its gradient is summed over the batch by ``reduce_to``; a third
    of the first operand's elements tie with it (maximum and minimum split the gradient there)."""
    g = torch.Generator().manual_seed(11)
    a = torch.randn(SHAPE, generator=g, dtype=torch.float64)
    b = torch.rand((1, SHAPE[1]), generator=g, dtype=torch.float64) + 0.5
    a[::3] = b.expand(SHAPE)[::3]
    grad = torch.randn(SHAPE, generator=g, dtype=torch.float64)
    out, expected = torch_grads(BINARY[name], [a, b], grad)
    found = derivative.vjp(name, grad, out, [a, b])
    torch.testing.assert_close(derivative.reduce_to(found[0], a.shape), expected[0])
    torch.testing.assert_close(derivative.reduce_to(found[1], b.shape), expected[1])


def test_where_and_batch_norm_in_eval_are_torchs():
    g = torch.Generator().manual_seed(5)
    c = torch.rand(SHAPE, generator=g) > 0.5
    a, b = (torch.randn(SHAPE, generator=g, dtype=torch.float64) for _ in range(2))
    grad = torch.randn(SHAPE, generator=g, dtype=torch.float64)
    out, expected = torch_grads(torch.where, [c, a, b], grad)
    found = derivative.vjp("where", grad, out, [c, a, b])
    assert found[0] is None
    torch.testing.assert_close(found[1], expected[1])
    torch.testing.assert_close(found[2], expected[2])
    v = torch.randn(SHAPE, generator=g, dtype=torch.float64)
    m, w, bias = (torch.randn((1, SHAPE[1]), generator=g, dtype=torch.float64) for _ in range(3))
    var = torch.rand((1, SHAPE[1]), generator=g, dtype=torch.float64) + 0.1

    def batch_norm(v, m, var, w, bias):
        return (v - m) * torch.rsqrt(var + 1e-3) * w + bias
    out, expected = torch_grads(batch_norm, [v, m, var, w, bias], grad)
    found = derivative.vjp("batch_norm", grad, out, [v, m, var, w, bias], {"eps": 1e-3})
    for f, e, arg in zip(found, expected, (v, m, var, w, bias)):
        torch.testing.assert_close(derivative.reduce_to(f, arg.shape), e)


def test_reduce_to_sums_leading_and_size_one_dims():
    grad = torch.arange(24.0).reshape(2, 3, 4)
    assert torch.equal(derivative.reduce_to(grad, (4,)), grad.sum((0, 1)))
    assert torch.equal(derivative.reduce_to(grad, (3, 1)), grad.sum(0).sum(1, keepdim=True))
    assert derivative.reduce_to(grad, (2, 3, 4)) is grad


def test_every_unary_and_binary_op_of_the_classifier_has_a_derivative():
    from adaexplore_core.proposers.builtin import ops
    assert sorted(n for n in set(ops.UNARY) | set(ops.BINARY) if not derivative.has_vjp(n)) == []
    assert not derivative.has_vjp("softmax")               # a reduction: its kernels keep the fallback


def test_the_classifier_keeps_the_parameters_the_derivatives_need():
    """Traced modules and calls: each pointwise op's parameters (read from the module or the call) give the
    same gradients as torch's autograd."""
    import torch.fx as fx
    from torch import nn

    from adaexplore_core.proposers.builtin import ops

    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.gelu, self.soft = nn.GELU(approximate="tanh"), nn.Softplus(beta=2.0, threshold=3.0)

        def forward(self, x):
            a = F.leaky_relu(self.gelu(x), negative_slope=0.3)
            b = F.elu(self.soft(a), alpha=0.4)
            return torch.clamp(F.hardtanh(b, -0.25, 2.0), min=-0.1, max=1.5)

    model = Mixed()
    traced = fx.symbolic_trace(model)
    modules = dict(traced.named_modules())
    g = torch.Generator().manual_seed(2)
    x = spread(g)
    values = {}
    found_ops = []
    for node in traced.graph.nodes:
        if node.op == "placeholder":
            values[node] = x
        elif node.op in ("call_function", "call_module", "call_method"):
            args = [values[a] if isinstance(a, fx.Node) else a for a in node.args]
            fn = modules[node.target] if node.op == "call_module" else node.target
            values[node] = fn(*args, **node.kwargs)
            op = ops.classify(node, modules)
            assert derivative.op_vjp_params(op) is not None, op
            found_ops.append((node, op))
    grad = torch.randn(SHAPE, generator=g, dtype=torch.float64)
    out_node = found_ops[-1][0]
    adjoint = {out_node: grad}
    for node, op in reversed(found_ops):              # the chain rule through the captured ops
        operand = op.tensor_args[0]
        (d,) = derivative.vjp(op.name, adjoint.pop(node), values[node], [values[operand]],
                              derivative.op_vjp_params(op))
        adjoint[operand] = adjoint.get(operand, 0) + d
    x_node = next(n for n in traced.graph.nodes if n.op == "placeholder")
    _, (expected,) = torch_grads(model, [x], grad)
    torch.testing.assert_close(adjoint[x_node], expected)


def test_ops_without_a_derivative_here_say_so():
    import torch.fx as fx
    from torch import nn

    from adaexplore_core.proposers.builtin import ops

    class Bounded(nn.Module):
        def forward(self, x, lo):
            return torch.clamp(x, min=lo).softmax(-1)

    traced = fx.symbolic_trace(Bounded())
    found = {n.name: ops.classify(n, dict(traced.named_modules())) for n in traced.graph.nodes
             if n.op in ("call_function", "call_method")}
    assert all(derivative.op_vjp_params(op) is None for op in found.values()), found
