# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: a gather of embedding rows by int64 index, one program per index."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gather_rows_kernel(idx_ptr, table_ptr, out_ptr, dim, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    row = tl.load(idx_ptr + i)
    offs = tl.arange(0, BLOCK)
    mask = offs < dim
    vals = tl.load(table_ptr + row * dim + offs, mask=mask)
    tl.store(out_ptr + i * dim + offs, vals, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_embeddings: int, dim: int):
        super().__init__()
        self.table = nn.Embedding(num_embeddings, dim)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and any(p.requires_grad for p in self.parameters())) \
                or self.table._forward_hooks or self.table._forward_pre_hooks:
            return self.table(idx)  # autograd: the reference's own forward
        if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= self.table.num_embeddings):
            return self.table(idx)  # an index out of range: torch raises IndexError, as the reference does
        idx = idx.contiguous()
        weight = self.table.weight.contiguous()
        dim = weight.shape[1]
        out = torch.empty(idx.numel(), dim, dtype=weight.dtype, device=weight.device)
        gather_rows_kernel[(idx.numel(),)](idx, weight, out, dim, BLOCK=triton.next_power_of_2(dim))
        return out.reshape(*idx.shape, dim)
