"""Integer input: an embedding lookup (a gather of rows by int64 indices)."""
import torch
import torch.nn as nn

num_embeddings, dim, n = 500, 32, 128


class Model(nn.Module):
    def __init__(self, num_embeddings: int, dim: int):
        super().__init__()
        self.table = nn.Embedding(num_embeddings, dim)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.table(idx)


def get_inputs():
    return [torch.randint(0, num_embeddings, (n,), dtype=torch.int64)]


def get_init_inputs():
    return [num_embeddings, dim]
