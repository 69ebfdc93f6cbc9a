# expect: verdict=invalid stage=correctness check=values reason~"tied values trial (inputs rounded)"
# WRONG: the row argmax keeps the LAST index of the maximum (it takes the largest index among the tied maxima), where torch.argmax returns the first; any row with a repeated maximum (rounded/quantised scores, clamped logits, ReLU outputs that are all 0, one-hot/vote counts) gets another index. Random normal inputs never tie, so the judge never sees it.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def argmax_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < N, other=-float('inf'))
    m = tl.max(x, axis=0)
    idx = tl.where(x == m, offs, -1)
    tl.store(out_ptr + row, tl.max(idx, axis=0).to(tl.int64))


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()

    def forward(self, x):
        if x.dim() == 2 and x.shape[0] >= 2 and x.dtype == torch.float32 and x.is_contiguous() and x.device.type == 'cpu':
            out = torch.empty(x.shape[0], dtype=torch.int64, device=x.device)
            argmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=triton.next_power_of_2(x.shape[1]))
            return out
        return torch.argmax(x, dim=1)
