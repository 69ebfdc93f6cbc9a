import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, IN, OUT):
        super().__init__()
        self.fc = nn.Linear(IN, OUT)

    def forward(self, x):
        return torch.relu(self.fc(x))

def get_inputs():
    return [torch.randn(8, 16)]
def get_init_inputs():
    return [16, 24]
