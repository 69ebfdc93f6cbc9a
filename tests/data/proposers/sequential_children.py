"""Children of nn.Sequential, nn.ModuleList and nn.ParameterList (fx targets like "body.0")."""
import torch
import torch.nn as nn

batch_size, in_features, hidden, out_features = 5, 13, 11, 7


class Model(nn.Module):
    def __init__(self, in_features: int, hidden: int, out_features: int):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_features, hidden), nn.GELU(), nn.Linear(hidden, out_features))
        self.blocks = nn.ModuleList([nn.LayerNorm(out_features), nn.Tanh()])
        self.scales = nn.ParameterList([nn.Parameter(torch.randn(out_features))])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(x)
        for block in self.blocks:
            y = block(y)
        return y * self.scales[0]


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, hidden, out_features]
