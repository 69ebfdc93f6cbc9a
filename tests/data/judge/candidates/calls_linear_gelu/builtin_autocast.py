# expect: verdict=invalid stage=correctness check=program reason~"autocast trial (torch.autocast('cpu', bfloat16)"
# WRONG (the built-in proposer's own validated candidate, unchanged below this line): under torch.autocast the reference's nn.Linear runs in bfloat16 and the module returns bfloat16, while the Triton path (its envelope checks only the fp32 input/parameter dtypes; the guard refuses torch.is_autocast_enabled, so no candidate can even detect autocast) writes a float32 GELU of the float32 linear; with torch.autocast("cpu"/"cuda", dtype=torch.bfloat16): model(x) changes dtype and values. The judge never runs a trial under autocast.
# AdaExplore built-in candidate: 1 Triton kernel(s): pointwise gelu; default block sizes
# Judge: Validated: matches the reference on fresh and out-of-range inputs and runs Triton
import torch
import triton
import triton.language as tl
import torch.nn as nn


def memory_order(t):
    """t's dims from outermost to innermost in memory when t is dense (no gaps, no overlap); else None."""
    order = sorted(range(t.dim()), key=lambda d: (-t.stride(d), -t.shape[d]))
    expected = 1
    for d in reversed(order):
        if t.shape[d] != 1 and t.stride(d) != expected:
            return None
        expected *= t.shape[d]
    return order


def inner_sizes(shape, order):
    """For each dim, the product of the sizes of the dims stored inside it (its step in a flat index)."""
    inner, step = [1] * len(shape), 1
    for d in reversed(order):
        inner[d] = step
        step *= shape[d]
    return inner


@triton.jit
def gelu_0_kernel(in0_ptr, out0_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # gelu = gelu(linear)
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    in0 = tl.load(in0_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v_gelu = (0.5 * (in0) * (1.0 + tl.math.erf((in0) * 0.7071067811865476)))
    tl.store(out0_ptr + offs, v_gelu.to(out0_ptr.dtype.element_ty), mask=mask)


def gelu_0(a0):
    shape = torch.broadcast_shapes(a0.shape)
    assert len(shape) == 2, 'rank differs from the traced model'
    order = memory_order(a0) or list(range(2))   # keep its layout
    assert a0.shape == shape, 'input a0 must have the full output shape'
    a0 = a0.permute(order).contiguous()   # no copy when already in that layout
    inner = inner_sizes(shape, order)
    out0 = torch.empty([shape[d] for d in order], device=a0.device, dtype=torch.float32)
    grid = (triton.cdiv(out0.numel(), 1024),)
    gelu_0_kernel[grid](a0, out0, out0.numel(), BLOCK_SIZE=1024, num_warps=4)
    return out0.permute([order.index(d) for d in range(len(order))])


class ModelNew(nn.Module):
    """Model with its forward rewritten to Triton kernels by the AdaExplore built-in proposer (same constructor, same state_dict). Triton path: cpu float32 inputs (B, 32), train and eval, no autograd; every other call runs the original forward."""
    ENVELOPE = {'device_types': ['cpu'],
     'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 32], 'contiguous': True}],
     'parameter_dtypes': ['torch.float32'],
     'eval_only': [],
     'train_only': [],
     'autograd': False}   # the calls the Triton path is for (envelope.py)

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def _reference_forward(self, x):
        return torch.nn.functional.gelu(self.linear(x))

    def forward(self, x):
        if self._in_envelope([x]):
            return self._triton_forward(x)
        return self._reference_forward(x)

    def _triton_forward(self, x):
        linear = self.linear(x)
        gelu = gelu_0(linear)
        return gelu

    def _in_envelope(self, args):
        """True for a call the Triton path was validated for (ENVELOPE); every other call runs the original forward."""
        envelope = self.ENVELOPE
        device = envelope['device_types'][0]
        grad = torch.is_grad_enabled()
        sizes = {}
        for value, spec in zip(args, envelope['inputs']):
            if 'sizes' not in spec:
                if isinstance(value, torch.Tensor):
                    return False
                continue
            if not isinstance(value, torch.Tensor) or value.layout != torch.strided or value.dim() != len(spec['sizes']):
                return False
            if (value.is_cuda if device == 'cuda' else value.device.type == device) is False:
                return False
            if str(value.dtype) != spec['dtype'] or (grad and value.requires_grad):
                return False
            if torch.autograd.forward_ad.unpack_dual(value).tangent is not None:     # forward-mode AD (jvp)
                return False
            if spec.get('contiguous') and not value.is_contiguous():
                return False
            for size, want in zip(value.shape, spec['sizes']):
                if isinstance(want, str):
                    if size < 2 or sizes.setdefault(want, size) != size:
                        return False
                elif size != want:
                    return False
        for path in envelope['eval_only']:
            if self.get_submodule(path).training:
                return False
        for path in envelope['train_only']:
            if not self.get_submodule(path).training:
                return False
        for t in self._envelope_tensors():
            if grad and t.requires_grad:
                return False
            if t.is_floating_point() and str(t.dtype) not in envelope['parameter_dtypes']:
                return False
            if (t.is_cuda if device == 'cuda' else t.device.type == device) is False:
                return False
        return True

    def _envelope_tensors(self):
        """The module's parameters and buffers, listed on the first call (listing them costs more than the rest
        of the check). .to(), .half(), .cuda(), requires_grad_() and load_state_dict keep these tensors; a
        parameter replaced by a new object after the first call is not seen."""
        if not hasattr(self, 'envelope_listed'):
            self.envelope_listed = list(self.parameters()) + list(self.buffers())
        return self.envelope_listed


B, IN, OUT = (16, 32, 48)
