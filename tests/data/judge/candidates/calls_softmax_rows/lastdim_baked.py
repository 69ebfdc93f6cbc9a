# expect: verdict=invalid stage=correctness check=shapes reason~"fixed-size trial (a dim of 64 -> 67)"
# WRONG: the row length N = 64 is a constexpr taken from the example and the dispatch checks rank, dtype and contiguity but not the last dim; softmax of rows of another length (model(torch.randn(16, 100)) or (16, 32)) normalises 64 elements per row read at a 64-element row pitch. The judge never varies the last dim of a rank-2 input.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + offs)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    tl.store(out_ptr + row * N + offs, e / tl.sum(e, axis=0))


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
            softmax_kernel[(x.shape[0],)](x, out, N=64)
            return out
        return torch.softmax(x, dim=-1)
