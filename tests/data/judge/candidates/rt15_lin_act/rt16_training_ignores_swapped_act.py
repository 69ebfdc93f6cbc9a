# expect: verdict=invalid stage=correctness check=gradients reason~"gradient trial (act set to nn.Identity())"
# WRONG (red team 16, a2): the training path checks hooks but not a swapped act (the no-grad path checks both).
"""Linear GEMM in torch, bias + exact GELU in Triton with a Triton backward. The no-grad path falls back when act is
no longer an exact GELU or a forward hook is registered; the training path checks hooks only."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_gelu_fwd(y_ptr, b_ptr, out_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    offs = tl.arange(0, BLOCK_N)
    mask = offs < n_cols
    v = tl.load(y_ptr + row + offs, mask=mask, other=0.0) + tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row + offs, 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476)), mask=mask)


@triton.jit
def bias_gelu_bwd(y_ptr, b_ptr, g_ptr, dv_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    offs = tl.arange(0, BLOCK_N)
    mask = offs < n_cols
    v = tl.load(y_ptr + row + offs, mask=mask, other=0.0) + tl.load(b_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + row + offs, mask=mask, other=0.0)
    slope = 0.5 * (1.0 + tl.math.erf(v * 0.7071067811865476)) + v * tl.exp(-0.5 * v * v) * 0.3989422804014327
    tl.store(dv_ptr + row + offs, g * slope, mask=mask)


def bias_gelu(y, bias):
    out = torch.empty_like(y)
    bias_gelu_fwd[(y.shape[0],)](y, bias, out, y.shape[1], BLOCK_N=triton.next_power_of_2(y.shape[1]))
    return out


class BiasGelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y, bias):
        y = y.contiguous()
        ctx.save_for_backward(y, bias)
        return bias_gelu(y, bias)

    @staticmethod
    def backward(ctx, g):
        y, bias = ctx.saved_tensors
        if torch.is_grad_enabled():                       # double backward: differentiable torch ops
            with torch.enable_grad():
                v = y + bias
                out = torch.nn.functional.gelu(v)
            dv = torch.autograd.grad(out, v, g, create_graph=True)[0]
            return dv, dv.sum(0)
        g = g.contiguous()
        dv = torch.empty_like(y)
        bias_gelu_bwd[(y.shape[0],)](y, bias, g, dv, y.shape[1], BLOCK_N=triton.next_power_of_2(y.shape[1]))
        return dv, dv.sum(0)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu', 'cuda'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 32], 'contiguous': False}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.act = nn.GELU()

    def plain(self, x):
        return (x.dim() == 2 and x.dtype == torch.float32 and self.linear.weight.dtype == torch.float32
                and x.shape[1] == self.linear.in_features and x.shape[0] > 0
                and self.linear.bias is not None and self.linear.bias.dtype == torch.float32
                and not torch.is_autocast_enabled(x.device.type)
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.plain(x):
            return self.act(self.linear(x))
        if torch.is_grad_enabled():                       # training: hooks are looked at, not act's kind
            if self._backward_hooks or self._backward_pre_hooks or self.act._backward_hooks \
                    or self.act._backward_pre_hooks or self.linear._backward_hooks \
                    or self.linear._backward_pre_hooks or self.linear._forward_hooks \
                    or self.linear._forward_pre_hooks or self.act._forward_hooks or self.act._forward_pre_hooks:
                return self.act(self.linear(x))
            return BiasGelu.apply(torch.matmul(x, self.linear.weight.t()), self.linear.bias)
        if not isinstance(self.act, nn.GELU) or self.act.approximate != 'none' \
                or self.linear._forward_hooks or self.linear._forward_pre_hooks \
                or self.act._forward_hooks or self.act._forward_pre_hooks:
            return self.act(self.linear(x))
        return bias_gelu(torch.matmul(x, self.linear.weight.t()).contiguous(), self.linear.bias)
