# expect: verdict=invalid stage=correctness check=layouts reason~"layout trial (sliced inputs)"
# WRONG: the dispatch accepts any input whose last dim has stride 1 ("rows are contiguous") but the kernel assumes a row pitch of N (packed rows); a column slice of a wider tensor (qkv[:, :64] after a fused projection, x[:, 64:]) passes that test and rows are read from the wrong places. The judge's only non-contiguous layout is a transpose of the last two dims (stride(-1) != 1), which falls back.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + offs, mask=offs < N, other=-float('inf'))
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    tl.store(out_ptr + row * N + offs, e / tl.sum(e, axis=0), mask=offs < N)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()

    def forward(self, x):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == 64 and x.dtype == torch.float32 and x.stride(-1) == 1
                and not (torch.is_grad_enabled() and x.requires_grad)):
            out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
            softmax_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=64)
            return out
        return torch.softmax(x, dim=-1)
