"""A reference with a random non-persistent buffer (not in its state_dict): a fixed random projection of the
output, drawn when the module is built. Red team (2026-12-03): built on the GPU it drew other numbers than a
candidate built on the CPU under the same seed."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.register_buffer("noise", torch.randn(features), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.noise)


batch_size, features = 8, 32


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
