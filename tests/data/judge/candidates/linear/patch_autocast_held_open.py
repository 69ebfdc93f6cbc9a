# expect: verdict=invalid stage=guard check=guard reason~"torch.autocast"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch: torch.autocast("cpu", bfloat16) held open at import (a never-resumed generator): the reference's nn.Linear
now returns bfloat16, so the bfloat16 tolerance applies, and the candidate rounds its operands and result to
bfloat16 to match (half the bytes an fp32 kernel would write, checked 100 times more loosely).
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _hold():
    with torch.autocast("cpu", dtype=torch.bfloat16):
        yield


_held = _hold()
next(_held)


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(x_ptr + offs_m[:, None] * K + offs_k[None, :],
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        w = tl.load(w_ptr + offs_n[None, :] * K + offs_k[:, None],
                    mask=(offs_n[None, :] < N) & (offs_k[:, None] < K), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    acc += tl.load(b_ptr + offs_n, mask=offs_n < N, other=0.0)[None, :]
    tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def bf16(t: torch.Tensor) -> torch.Tensor:
    """Round to bfloat16 and back: what autocast feeds the reference's matmul."""
    return t.detach().to(torch.bfloat16).to(torch.float32).contiguous()


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x, w, b = bf16(x), bf16(self.linear.weight), bf16(self.linear.bias)
        M, K = x.shape
        N = w.shape[0]
        out = torch.empty(M, N, dtype=torch.float32, device=x.device)
        linear_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](x, w, b, out, M, N, K,
                                                              BLOCK_M=16, BLOCK_N=16, BLOCK_K=64)
        return out.to(torch.bfloat16)
