# expect: verdict=invalid stage=correctness check=program reason~"hooks trial (a forward pre-hook and hook on head)"
"""WRONG (red team, 2026-12-03): fc1 and fc2 through their modules, the last GELU fused into the head's GEMM in
Triton; it falls back for hooks on the activation but not on the head, so a forward hook on the head (a feature
probe, a LoRA wrapper) never runs. (The hooks trial used to hook only the first three submodules.)"""
import torch
import torch.nn as nn
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
    def __init__(self, in_features: int, hidden: int, classes: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, classes)


    def forward(self, x: torch.Tensor) -> torch.Tensor:
        head = self.head
        if (torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters()))) \
                or _has_tangent(x) or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 \
                or head.weight.dtype != torch.float32 or self.act._forward_hooks or self.act._forward_pre_hooks \
                or x.dim() != 2 or x.shape[0] == 0 or x.shape[1] != self.fc1.in_features:
            return self.head(self.act(self.fc2(self.act(self.fc1(x)))))
        # fc1 and fc2 by their own modules (cuBLAS); the last GELU and the head in one Triton kernel
        h = self.fc2(self.act(self.fc1(x))).contiguous()
        w = head.weight.contiguous()
        M, K = h.shape
        N = w.shape[0]
        out = torch.empty(M, N, dtype=h.dtype, device=h.device)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
        gelu_linear_kernel[grid](h, w, head.bias, out, M, N, K, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
        return out
