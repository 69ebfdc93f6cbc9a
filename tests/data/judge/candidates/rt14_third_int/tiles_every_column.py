# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: fc1 by torch; GELU fused into the fc2 GEMM's prologue (IEEE fp32 tl.dot), a 2-D grid of 16 x 32 tiles
that covers any out_features; hooks or replaced layers fall back to the original computation."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def gelu_linear_kernel(h_ptr, w_ptr, b_ptr, out_ptr, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(h_ptr + offs_m[:, None] * K + offs_k[None, :],
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        a = 0.5 * a * (1.0 + tl.erf(a * 0.7071067811865476))
        w = tl.load(w_ptr + offs_n[None, :] * K + offs_k[:, None],
                    mask=(offs_n[None, :] < N) & (offs_k[:, None] < K), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    acc += tl.load(b_ptr + offs_n, mask=offs_n < N, other=0.0)[None, :]
    tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, hidden: int, out_features: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fc1, fc2 = self.fc1, self.fc2
        if not isinstance(fc1, nn.Linear) or not isinstance(fc2, nn.Linear) or fc2.bias is None \
                or (torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters()))) \
                or _has_tangent(x) or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 \
                or fc2.weight.dtype != torch.float32 or fc1._forward_hooks or fc1._forward_pre_hooks \
                or fc2._forward_hooks or fc2._forward_pre_hooks or x.dim() != 2 or x.shape[0] == 0 \
                or x.shape[1] != fc1.in_features:
            return fc2(F.gelu(fc1(x)))
        h = fc1(x).contiguous()
        w = fc2.weight.contiguous()
        M, K = h.shape
        N = w.shape[0]
        out = torch.empty(M, N, dtype=h.dtype, device=h.device)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
        gelu_linear_kernel[grid](h, w, fc2.bias.contiguous(), out, M, N, K, BLOCK_M=16, BLOCK_N=32, BLOCK_K=16)
        return out
