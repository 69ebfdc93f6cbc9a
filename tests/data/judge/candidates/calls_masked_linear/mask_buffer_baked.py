# expect: verdict=invalid stage=correctness check=weights reason~"mask"
# xfail: judge gap: persistent 0/1 buffers are structure to the judge (an honest kernel may compute a causal mask itself), so a changed mask is not tried
# WRONG: the kernel recomputes the connectivity mask as tril (col <= row) from indices instead of reading the persistent 'mask' buffer; a checkpoint carrying another mask (iterative pruning, a MADE ordering resampled), or an in-place mask update (model.mask[:, :4] = 0) is ignored. The judge randomises parameters and buffers but skips 0/1 buffers as "structure", so the mask always stays the initial tril.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def masked_linear_kernel(x_ptr, w_ptr, b_ptr, out_ptr, K, N, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    k = tl.arange(0, BLOCK_K)
    n = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * K + k, mask=k < K, other=0.0)
    valid = (k[:, None] < K) & (n[None, :] < N)
    w = tl.load(w_ptr + n[None, :] * K + k[:, None], mask=valid & (k[:, None] <= n[None, :]), other=0.0)
    acc = tl.sum(x[:, None] * w, axis=0) + tl.load(b_ptr + n, mask=n < N, other=0.0)
    tl.store(out_ptr + row * N + n, acc, mask=n < N)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 16], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self, IN, OUT):
        super().__init__()
        self.linear = nn.Linear(IN, OUT)
        self.register_buffer("mask", torch.tril(torch.ones(OUT, IN)))

    def forward(self, x):
        w, b = self.linear.weight, self.linear.bias
        grad = torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or b.requires_grad) or _has_tangent(x)
        if (not grad and not torch.is_autocast_enabled(x.device.type) and x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == w.shape[1] and x.dtype == torch.float32
                and w.dtype == torch.float32 and x.is_contiguous() and w.is_contiguous() and x.device.type == 'cpu'):
            K, N = w.shape[1], w.shape[0]
            out = torch.empty((x.shape[0], N), dtype=x.dtype, device=x.device)
            masked_linear_kernel[(x.shape[0],)](x, w, b, out, K, N, BLOCK_K=triton.next_power_of_2(K),
                                                BLOCK_N=triton.next_power_of_2(N))
            return out
        return torch.nn.functional.linear(x, self.linear.weight * self.mask, self.linear.bias)
