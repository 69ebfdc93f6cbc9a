# expect: verdict=invalid stage=correctness check=output_structure reason~"not contiguous (strides (1, 8)) where the reference's is"
# WRONG: the kernel writes the output column-major into an (N, B) buffer and returns its transpose (values right, strides (1, B)); the reference returns a contiguous tensor, so user code that does out.view(-1) / out.view(B, 4, 6) raises "view size is not compatible with input tensor's size and stride". The judge compares values, shapes and dtypes, never strides.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def linear_relu_t_kernel(x_ptr, w_ptr, b_ptr, out_ptr, B, K, N, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    k = tl.arange(0, BLOCK_K)
    n = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * K + k, mask=k < K, other=0.0)
    w = tl.load(w_ptr + n[None, :] * K + k[:, None], mask=(k[:, None] < K) & (n[None, :] < N), other=0.0)
    acc = tl.sum(x[:, None] * w, axis=0) + tl.load(b_ptr + n, mask=n < N, other=0.0)
    tl.store(out_ptr + n * B + row, tl.maximum(acc, 0.0, propagate_nan=tl.PropagateNan.ALL), mask=n < N)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 16], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self, IN, OUT):
        super().__init__()
        self.fc = nn.Linear(IN, OUT)

    def forward(self, x):
        w, b = self.fc.weight, self.fc.bias
        grad = torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or b.requires_grad)
        if (not grad and x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == w.shape[1] and x.dtype == torch.float32
                and w.dtype == torch.float32 and x.is_contiguous() and w.is_contiguous() and x.device.type == 'cpu'):
            B, K, N = x.shape[0], w.shape[1], w.shape[0]
            out_t = torch.empty((N, B), dtype=x.dtype, device=x.device)
            linear_relu_t_kernel[(B,)](x, w, b, out_t, B, K, N, BLOCK_K=triton.next_power_of_2(K),
                                       BLOCK_N=triton.next_power_of_2(N))
            return out_t.t()
        return torch.relu(self.fc(x))
