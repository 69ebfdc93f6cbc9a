# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: a tiled fp32 matmul with tl.dot and the bias fused in (tl.dot needs tiles of at least 16)."""
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


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters())) or _has_tangent(x)) \
                or torch.is_autocast_enabled(x.device.type) or self.linear._forward_hooks \
                or self.linear._forward_pre_hooks or x.dim() != 2 or x.shape[1] != self.linear.in_features \
                or torch.float64 in (x.dtype, self.linear.weight.dtype):
            return self.linear(x)  # autograd: the reference's own forward
        x = x.contiguous()
        w, b = self.linear.weight.contiguous(), self.linear.bias
        M, K = x.shape
        N = w.shape[0]
        out = torch.empty(M, N, dtype=x.dtype, device=x.device)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
        linear_kernel[grid](x, w, b, out, M, N, K, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
        return out
