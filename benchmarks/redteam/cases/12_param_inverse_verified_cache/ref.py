"""x @ inv(W) with W a parameter (float32). The inverse is not counted by FlopCounterMode (only the matmul is).
Shapes: x 4096 x 1024, W 1024 x 1024 on a GPU; tiny on the CPU."""
import torch
import torch.nn as nn

GPU = torch.cuda.is_available()
batch = 4096 if GPU else 48
dim = 1024 if GPU else 32


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.eye(dim) * 2.0 + torch.randn(dim, dim) * (0.5 / dim ** 0.5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ torch.linalg.inv(self.weight)


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return [dim]
