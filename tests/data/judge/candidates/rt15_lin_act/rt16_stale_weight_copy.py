# expect: verdict=invalid stage=correctness check=gradients reason~"before any call without autograd"
# WRONG (red team 16, a4): the backward's dx uses a weight copy that only no-grad calls refresh (stale after a step).
"""Linear GEMM in torch, bias + exact GELU in Triton with a Triton backward. The weight is copied once (the first
call) and again on every no-grad call (validation); the backward multiplies by that copy, not the live weight."""
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


class LinearGelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, owner, x, weight, bias):
        y = torch.matmul(x, weight.t()).contiguous()
        ctx.owner = owner
        ctx.save_for_backward(x, weight, bias, y)
        return bias_gelu(y, bias)

    @staticmethod
    def backward(ctx, g):
        x, weight, bias, y = ctx.saved_tensors
        if torch.is_grad_enabled():                       # double backward: differentiable torch ops
            with torch.enable_grad():
                out = torch.nn.functional.gelu(torch.matmul(x, weight.t()) + bias)
            return (None,) + torch.autograd.grad(out, (x, weight, bias), g, create_graph=True, allow_unused=True)
        g = g.contiguous()
        dv = torch.empty_like(y)
        bias_gelu_bwd[(y.shape[0],)](y, bias, g, dv, y.shape[1], BLOCK_N=triton.next_power_of_2(y.shape[1]))
        return None, dv @ ctx.owner.weight_copy, dv.t() @ x, dv.sum(0)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu', 'cuda'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 32], 'contiguous': False}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.act = nn.GELU()
        self.weight_copy = None

    def plain(self, x):
        return (x.dim() == 2 and x.dtype == torch.float32 and self.linear.weight.dtype == torch.float32
                and x.shape[1] == self.linear.in_features and x.shape[0] > 0
                and self.linear.bias is not None and self.linear.bias.dtype == torch.float32
                and isinstance(self.act, nn.GELU) and self.act.approximate == 'none'
                and not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                         or self._forward_pre_hooks)
                and not any(m._backward_hooks or m._backward_pre_hooks or m._forward_hooks or m._forward_pre_hooks
                            for m in (self.linear, self.act))
                and not torch.is_autocast_enabled(x.device.type)
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.plain(x):
            return self.act(self.linear(x))
        weight = self.linear.weight
        if self.weight_copy is None or self.weight_copy.shape != weight.shape \
                or self.weight_copy.device != weight.device or not torch.is_grad_enabled():
            self.weight_copy = weight.detach().clone()
        if torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad or self.linear.bias.requires_grad):
            return LinearGelu.apply(self, x, weight, self.linear.bias)
        return bias_gelu(torch.matmul(x, weight.t()).contiguous(), self.linear.bias)
