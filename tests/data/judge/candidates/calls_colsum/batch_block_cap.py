# expect: verdict=invalid stage=correctness check=shapes reason~"shape trial (B: 16 -> 261)"
# WRONG: the column-sum kernel reads the whole batch in one tile, BLOCK_B = min(next_power_of_2(B), 128), with no loop over further rows; batches above 128 rows (model(torch.randn(256, 64)): training batches of 256/512) silently drop rows 128.. from the sums. The judge's largest batch is 4 x 16 + 3 = 67.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def colsum_kernel(x_ptr, out_ptr, B, N, stride, BLOCK_B: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rows = tl.arange(0, BLOCK_B)
    m = (rows[:, None] < B) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None].to(tl.int64) * stride + cols[None, :], mask=m, other=0.0)
    tl.store(out_ptr + cols, tl.sum(x, axis=0), mask=cols < N)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()

    def forward(self, x):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.dtype == torch.float32 and x.stride(1) == 1
                and not (torch.is_grad_enabled() and x.requires_grad)):
            B, N = x.shape
            out = torch.empty(N, dtype=x.dtype, device=x.device)
            block_b = min(triton.next_power_of_2(B), 128)      # one tile of rows ("batches are small")
            colsum_kernel[(triton.cdiv(N, 32),)](x, out, B, N, x.stride(0), BLOCK_B=block_b, BLOCK_N=32)
            return out
        return x.sum(dim=0)
