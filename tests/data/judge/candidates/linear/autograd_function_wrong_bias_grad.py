# expect: verdict=invalid stage=correctness check=gradients reason~"(linear.bias: 48 of 48 elements outside"
"""A torch.autograd.Function around the Triton matmul with a hand-written backward: the input's and the weight's
gradients are right, the bias's is the mean over the batch instead of the sum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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


def triton_linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    x, w = x.contiguous(), w.contiguous()
    M, K = x.shape
    N = w.shape[0]
    out = torch.empty(M, N, dtype=x.dtype, device=x.device)
    linear_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](x, w, b, out, M, N, K, BLOCK_M=16, BLOCK_N=16,
                                                            BLOCK_K=16)
    return out


class TritonLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return triton_linear(x, w, b)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return grad @ w, grad.t() @ x, grad.mean(0)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2 or x.shape[1] != self.linear.in_features:
            return self.linear(x)                     # a size the layer does not take: raises as the original
        return TritonLinear.apply(x, self.linear.weight, self.linear.bias)
