"""nn.LayerNorm with affine over the last dim, and without affine over the last two dims."""
import torch
import torch.nn as nn

shape = (3, 5, 9, 37)


class Model(nn.Module):
    def __init__(self, normalized: int):
        super().__init__()
        self.norm = nn.LayerNorm(normalized)
        self.plain = nn.LayerNorm((9, normalized), elementwise_affine=False, eps=1e-3)
        with torch.no_grad():                       # not the identity, so a dropped weight is noticed
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.norm(x)) + self.plain(x)


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return [shape[-1]]
