# expect: verdict=invalid stage=correctness check=values reason~"ignored indices trial (-100 in integer inputs)"
# WRONG: the cross-entropy kernel ignores ignore_index (-100 by default): a padded target row contributes logsumexp(row) - row[0] and is counted in the mean, where nn.CrossEntropyLoss skips it; any batch with padding labels (-100, as in token-level NLP losses) gets another loss and other gradients. The judge draws targets uniformly over the example's [min, max] = [0, 9], so -100 never appears.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def ce_kernel(x_ptr, t_ptr, loss_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < N, other=-float('inf'))
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    t = tl.load(t_ptr + row)
    t = tl.where((t >= 0) & (t < N), t, 0)
    picked = tl.load(x_ptr + row * stride + t)
    tl.store(loss_ptr + row, lse - picked)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 10], 'contiguous': True},
                           {'dtype': 'torch.int64', 'sizes': ['B'], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()
        self.loss = nn.CrossEntropyLoss()

    def forward(self, logits, target):
        grad = torch.is_grad_enabled() and logits.requires_grad
        if (not grad and logits.dim() == 2 and target.dim() == 1 and logits.shape[0] == target.shape[0]
                and logits.shape[0] >= 2 and logits.dtype == torch.float32 and target.dtype == torch.int64
                and logits.stride(1) == 1 and target.is_contiguous()):
            rows = torch.empty(logits.shape[0], dtype=torch.float32, device=logits.device)
            ce_kernel[(logits.shape[0],)](logits, target, rows, logits.shape[1], logits.stride(0),
                                          BLOCK=triton.next_power_of_2(logits.shape[1]))
            return rows.mean()
        return self.loss(logits, target)
