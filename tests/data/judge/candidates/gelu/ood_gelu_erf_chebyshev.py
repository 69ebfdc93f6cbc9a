# expect: verdict=invalid stage=correctness check=finite reason~"inputs x50"
"""Right only over a range: erf in the GELU as a degree-101 Chebyshev series on [-14, 14] (inputs up to 19 in
magnitude); beyond that the series explodes and the output is inf or NaN.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    x_in = x
    x = x_in * 0.7071067811865476
    t = x * 0.07142857142857142
    t2 = 2.0 * t
    b1 = tl.zeros_like(x)
    b2 = tl.zeros_like(x)
    b1, b2 = t2 * b1 - b2 + 3.576178761422666e-08, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -5.963099487081543e-08, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 9.856948076282183e-08, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -1.615182020194289e-07, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 2.6236185687086256e-07, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -4.224471890134488e-07, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 6.742634976641606e-07, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -1.0667585446936963e-06, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 1.6729249647064552e-06, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -2.6004957321477053e-06, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 4.006836919089849e-06, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -6.119424600725126e-06, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 9.263639504491474e-06, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -1.3900002024995186e-05, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 2.067338889844283e-05, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -3.047720005713179e-05, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 4.453584918373757e-05, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -6.450929349093957e-05, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 9.262354732989032e-05, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.00013183118477308413, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.00018600567222143438, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.0002601729367133237, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.000360782843720716, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.0004960222442883064, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.0006761700298928082, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.0009139933655996502, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.0012251832358475135, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.0016288270634551747, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.0021479170803972198, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.002809896227479809, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.003647249880406585, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.0046981633893084344, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.006007284800097221, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.007626662988137046, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.009616979744774282, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.012049269985318285, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.015007444295740626, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.018592123437293342, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.02292662346085241, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.028166507195914136, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.034515178214413626, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.04225004551858937, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.051767999478785014, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.06366819560851326, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.07891220821118596, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.09915978927839311, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.12755300076929357, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.17084485082329193, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 0.24663609318298066, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + -0.4195566741272073, b1
    b1, b2 = t2 * b1 - b2 + 0.0, b1
    b1, b2 = t2 * b1 - b2 + 1.2716123874621739, b1
    y = t * b1 - b2 + 0.0
    y = 0.5 * x_in * (1.0 + y)
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
