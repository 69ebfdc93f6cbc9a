"""Binarized linear layer (XNOR-net style), bfloat16: sign(x) @ W.T (activations binarized, weights kept).
Shapes: 4096 x 4096 x 4096 on a GPU, tiny on the CPU (the Triton interpreter)."""
import torch
import torch.nn as nn

GPU = torch.cuda.is_available()
batch = 4096 if GPU else 48
in_features = 4096 if GPU else 64
out_features = 4096 if GPU else 40


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features, dtype=torch.bfloat16) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sign(x) @ self.weight.t()


def get_inputs():
    return [torch.randn(batch, in_features, dtype=torch.bfloat16)]


def get_init_inputs():
    return [in_features, out_features]
