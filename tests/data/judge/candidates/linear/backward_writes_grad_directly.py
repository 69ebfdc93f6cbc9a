# expect: verdict=invalid stage=correctness check=gradients reason~"not write them into .grad"
"""WRONG (red team b12): where .grad already holds values, the backward adds the weight's and bias's gradients
into .grad itself and returns None for them: loss.backward() accumulates right, but torch.autograd.grad (a
gradient penalty, MAML), parameter hooks and gradient scalers never see those gradients."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # out[m, n] = sum_k x[m, k] * w[n, k] + b[n]; x is (M, K), w is (N, K), both row-major.
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(x_ptr + offs_m[:, None] * K + offs_k[None, :],
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs_n[None, :] * K + offs_k[:, None],
                    mask=(offs_n[None, :] < N) & (offs_k[:, None] < K), other=0.0).to(tl.float32)
        acc += tl.dot(a, w, input_precision="ieee")
    acc += tl.load(b_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(out_ptr.dtype.element_ty),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


def _linear(x, w, b):
    M, K = x.shape
    N = w.shape[0]
    out = torch.empty(M, N, dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
    linear_kernel[grid](x, w, b, out, M, N, K, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    return out


class LinearGradInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        ctx.parameters = (w, b)
        return _linear(x, w, b)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        weight, bias = ctx.parameters
        gw, gb = grad.t() @ x, grad.sum(0)
        if weight.grad is not None and bias.grad is not None:     # accumulating: add in place, return none
            with torch.no_grad():
                weight.grad.add_(gw)
                bias.grad.add_(gb)
            gw = gb = None
        return (grad @ w if ctx.needs_input_grad[0] else None), gw, gb


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if _has_tangent(x) or torch.is_autocast_enabled(x.device.type) or self.linear._forward_hooks \
                or self.linear._forward_pre_hooks or x.dim() != 2 or x.shape[1] != self.linear.in_features \
                or x.dtype != torch.float32 or self.linear.weight.dtype != torch.float32:
            return self.linear(x)
        x = x.contiguous()
        w, b = self.linear.weight, self.linear.bias
        if torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or b.requires_grad):
            return LinearGradInPlace.apply(x, w.contiguous(), b)
        return _linear(x, w.contiguous(), b)
