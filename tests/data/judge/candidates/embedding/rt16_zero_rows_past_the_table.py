# expect: verdict=invalid stage=correctness check=out_of_distribution reason~"In the indices past the range trial"
# WRONG (red team 16, a8): ids past the table get rows of zeros (negative ids fall back, so -100 raises); torch raises.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gather_rows_kernel(idx_ptr, table_ptr, out_ptr, dim, n_rows, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    row = tl.load(idx_ptr + i) + tl.zeros([BLOCK], tl.int64)
    inside = (row >= 0) & (row < n_rows)
    mask = offs < dim
    vals = tl.load(table_ptr + tl.where(inside, row, 0) * dim + offs, mask=mask & inside, other=0.0)
    tl.store(out_ptr + i * dim + offs, vals, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_embeddings: int, dim: int):
        super().__init__()
        self.table = nn.Embedding(num_embeddings, dim)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and any(p.requires_grad for p in self.parameters())) \
                or self.table._forward_hooks or self.table._forward_pre_hooks or idx.numel() == 0 \
                or int(idx.min()) < 0:
            return self.table(idx)  # autograd, or a negative id: the reference's own forward
        idx = idx.contiguous()
        weight = self.table.weight.contiguous()
        dim = weight.shape[1]
        out = torch.empty(idx.numel(), dim, dtype=weight.dtype, device=weight.device)
        gather_rows_kernel[(idx.numel(),)](idx, weight, out, dim, weight.shape[0], BLOCK=triton.next_power_of_2(dim))
        return out.reshape(*idx.shape, dim)
