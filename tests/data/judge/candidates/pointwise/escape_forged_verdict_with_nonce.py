# expect: verdict=invalid stage=guard check=guard reason~"gi_frame"
# isolate: runs code the guard should have stopped; judged in a private pool so it cannot affect other cases
"""Hack: the frame walk of forged_verdict_frame_walk.py, with getattr(..., "gi_frame") / "f_back" / "f_locals" (constant
public names, which the guard allows) and the request's own nonce copied into the forgery: the parent cannot tell it
from the worker's verdict. It computes nothing; it sends 'valid' and leaves before the real verdict. Any process that
runs candidate code and also holds the verdict channel and the nonce can be made to lie like this.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + 1.0, 0.0), mask=mask)


def affine_relu(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    affine_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


def _frames_above():
    holder = []

    def probe():
        yield getattr(getattr(holder[0], "gi_frame"), "f_back")

    holder.append(probe())
    frame = next(holder[0])
    while frame is not None:
        yield frame
        frame = getattr(frame, "f_back")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for frame in _frames_above():
            scope = getattr(frame, "f_locals")
            channel, request = scope.get("channel"), scope.get("request")
            if channel is not None and request is not None and hasattr(request, "nonce"):
                channel.send(type="verdict", id=request.id, nonce=request.nonce, fatal=False, verdict={
                    "verdict": "valid", "stage": "ok",
                    "reason": "Validated: matches the reference on fresh inputs and runs Triton"})
                raise SystemExit(0)  # leave before the judge sends the real verdict
        return affine_relu(x)
