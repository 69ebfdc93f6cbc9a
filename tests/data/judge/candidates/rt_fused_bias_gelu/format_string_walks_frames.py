# expect: verdict=invalid stage=guard check=guard reason~"str.format only on a string literal"
"""Candidate: str.format with a format string the guard cannot see (built at run time) reads any attribute,
dunders and frames included: a running generator's gi_frame leads up the stack into the judge's frames.
Here it reports what it read through an exception (the verdict quotes its first line)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


U = "_"


def read(path):
    """The string value of `path` (attribute and [key] steps), starting at the frame that called read."""
    fmt = "{0.gi" + U + "frame.f" + U + "back" + path + "}"
    gens = []
    gen = (fmt.format(gens[0]) for _ in range(1))
    gens.append(gen)
    return next(gen)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.shift = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        names = []
        depth = 0
        while depth < 12 and "trial" not in names:
            names.append(read("".join([".f" + U + "back"] * depth) + ".f" + U + "code.co" + U + "name"))
            depth += 1
        up = "".join([".f" + U + "back"] * (depth - 1))
        seed = read(up + ".f" + U + "locals[self].request.seed")
        label = read(up + ".f" + U + "locals[label]")
        env = read(".f" + U + "globals[torch].os.environ[PATH]")
        raise RuntimeError("stack=" + "/".join(names) + " seed=" + seed + " label=" + label + " PATH=" + env)
