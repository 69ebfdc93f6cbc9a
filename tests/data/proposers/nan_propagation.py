"""NaN in, NaN out, as in torch: relu, relu6, hardswish, clamp, maximum/minimum and softplus return NaN
for a NaN input (tl.maximum alone would return the other operand), and amax/amin of a row, of short rows
and over a middle dim are NaN when the row holds one."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, rows, cols, long_cols = 2, 5, 40, 1300


class Model(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        pointwise = torch.relu(x) + F.relu6(x) + F.hardswish(x) + torch.clamp(x, -0.5, 0.5) + F.softplus(x)
        pair = torch.maximum(x, x.flip(-1)) - torch.minimum(x, 0.25 * x.flip(-1))
        return (pointwise, pair, torch.amax(x, dim=-1), torch.amin(x, dim=1), torch.amax(y * 2.0, dim=-1))


def get_inputs():
    x = torch.randn(batch, rows, cols)
    x[0, 1, 7] = float("nan")
    y = torch.randn(batch, long_cols)
    y[1, 900] = float("nan")
    return [x, y]


def get_init_inputs():
    return []
