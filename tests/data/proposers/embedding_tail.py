"""Integer input: an embedding lookup in torch, then a pointwise tail."""
import torch
import torch.nn as nn

num_embeddings, dim, batch_size, length = 50, 37, 3, 7


class Model(nn.Module):
    def __init__(self, num_embeddings: int, dim: int):
        super().__init__()
        self.table = nn.Embedding(num_embeddings, dim)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        e = self.table(idx)
        return torch.relu(e) * 2.0 + 0.25


def get_inputs():
    return [torch.randint(0, num_embeddings, (batch_size, length), dtype=torch.int64)]


def get_init_inputs():
    return [num_embeddings, dim]
