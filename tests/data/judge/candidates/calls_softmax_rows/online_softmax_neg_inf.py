# expect: verdict=invalid stage=correctness check=finite reason~"masked values trial (-inf in the first quarter of each row)"
# WRONG: a blocked online softmax (running max m and sum s over blocks of 16) that rescales with exp(m_old - m_new); when a row's first block is all -inf (left-padded attention scores masked with float('-inf')) that is exp(-inf - -inf) = NaN and the whole row becomes NaN, where torch.softmax is finite. The judge never feeds -inf inputs (its inputs are randn, x50 and shifted).
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * stride
    m = -float('inf')
    s = 0.0
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(base + offs, mask=offs < N, other=-float('inf'))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(base + offs, mask=offs < N, other=-float('inf'))
        tl.store(out_ptr + row * N + offs, tl.exp(x - m) / s, mask=offs < N)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()

    def forward(self, x):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.dtype == torch.float32 and x.is_contiguous()
                and not (torch.is_grad_enabled() and x.requires_grad)):
            out = torch.empty_like(x)
            softmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=16)
            return out
        return torch.softmax(x, dim=-1)
