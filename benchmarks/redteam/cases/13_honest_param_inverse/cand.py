"""HONEST: torch.linalg.inv(W) every call and the product in a Triton IEEE-fp32 matmul kernel. Baseline for 12.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

CACHE = False

@triton.jit
def mm_kernel(x_ptr, w_ptr, out_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # out = x @ w, x (M, K), w (K, N), row-major, IEEE fp32
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        offs_k = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + offs_m[:, None] * K + offs_k[None, :],
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0).to(tl.float32)
        b = tl.load(w_ptr + offs_k[:, None] * N + offs_n[None, :],
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0).to(tl.float32)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(out_ptr.dtype.element_ty),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def differ_kernel(a_ptr, b_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs, mask=m, other=0.0)
    d = tl.max(tl.where(m & ((a != b) | (a != a)), 1, 0), axis=0)
    tl.atomic_max(flag_ptr, d, mask=d > 0)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


def matmul(x, w):
    M, K = x.shape
    N = w.shape[1]
    out = torch.empty(M, N, dtype=x.dtype, device=x.device)
    BM, BN, BK = (64, 64, 32) if x.is_cuda else (16, 16, 16)
    mm_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x, w, out, M, N, K, BM=BM, BN=BN, BK=BK)
    return out


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.eye(dim) * 2.0 + torch.randn(dim, dim) * (0.5 / dim ** 0.5))
        self._wcopy = None
        self._inv = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and (x.requires_grad or self.weight.requires_grad)) or _has_tangent(x) \
                or torch.is_autocast_enabled(x.device.type) or x.dtype != self.weight.dtype \
                or x.dtype != torch.float32 or (torch.cuda.is_available() and not x.is_cuda):
            return x @ torch.linalg.inv(self.weight)
        w = self.weight.detach()
        if CACHE:
            stale = self._wcopy is None or self._wcopy.shape != w.shape or self._wcopy.dtype != w.dtype \
                or self._wcopy.device != w.device
            if not stale:
                flag = torch.zeros(1, dtype=torch.int32, device=w.device)
                n = w.numel()
                differ_kernel[(triton.cdiv(n, 4096),)](w, self._wcopy, flag, n, BLOCK=4096)
                stale = int(flag.item()) != 0          # exact, full comparison of the weight
            if stale:
                self._wcopy = w.clone()
                self._inv = torch.linalg.inv(w).contiguous()
            inv = self._inv
        else:
            inv = torch.linalg.inv(w).contiguous()
        return matmul(x.contiguous(), inv)
