# expect: verdict=invalid stage=guard check=guard reason~"never through the class"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch: nn.Linear.forward replaced by one without the bias, and the candidate's matmul has no bias either: it matches
the sabotaged reference on every trial, randomised weights included. The assignment is `self.forward = value` in a
method of ModelNew, called unbound with torch.nn.Linear as self (no setattr, no module used as a value), and the
replaced function is a class attribute of torch.nn.Linear, not a function of a torch namespace.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(x_ptr, w_ptr, out_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # out[m, n] = sum_k x[m, k] * w[n, k]: no bias
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
    tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        w = self.linear.weight.contiguous()
        M, K = x.shape
        N = w.shape[0]
        out = torch.empty(M, N, dtype=x.dtype, device=x.device)
        matmul_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](x, w, out, M, N, K, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
        return out

    def install(self, value):
        """A method, so `self.forward = value` is an assignment to self; called unbound with nn.Linear as self."""
        self.forward = value


ModelNew.install(torch.nn.Linear, lambda self, x: torch.nn.functional.linear(x, self.weight))
