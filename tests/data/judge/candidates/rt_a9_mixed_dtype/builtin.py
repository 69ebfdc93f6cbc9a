# expect: verdict=valid stage=ok reason~"Validated"
# AdaExplore built-in candidate: 1 Triton kernel(s): pointwise add+gelu; default block sizes
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
def add_gelu_0_kernel(in0_ptr, in1_ptr, out0_ptr, n_elements, inner2, size2, in1_s2, BLOCK_SIZE: tl.constexpr):
    # add = add(x, bias)
    # gelu = gelu(add)
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    i2 = offs // inner2 % size2
    in0 = tl.load(in0_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    in1 = tl.load(in1_ptr + i2 * in1_s2, mask=mask, other=0.0).to(tl.float32)
    v_add = ((in0) + (in1))
    v_gelu = (0.5 * (v_add) * (1.0 + tl.math.erf((v_add) * 0.7071067811865476)))
    tl.store(out0_ptr + offs, v_gelu.to(out0_ptr.dtype.element_ty), mask=mask)


def add_gelu_0(a0, a1):
    shape = torch.broadcast_shapes(a0.shape, a1.shape)
    assert len(shape) == 3, 'rank differs from the traced model'
    order = memory_order(a0) or list(range(3))   # keep its layout
    assert a0.shape == shape, 'input a0 must have the full output shape'
    a0 = a0.permute(order).contiguous()   # no copy when already in that layout
    a1 = a1.to(a0.device)
    s1 = a1.expand(shape).stride()
    assert s1[0] == 0 and s1[1] == 0, 'input a1 must broadcast as in the traced model'
    inner = inner_sizes(shape, order)
    out0 = torch.empty([shape[d] for d in order], device=a0.device, dtype=torch.float32)
    grid = (triton.cdiv(out0.numel(), 1024),)
    add_gelu_0_kernel[grid](a0, a1, out0, out0.numel(), inner[2], shape[2], s1[2], BLOCK_SIZE=1024, num_warps=4)
    return out0.permute([order.index(d) for d in range(len(order))])


class ModelNew(nn.Module):
    """Model with its forward rewritten to Triton kernels by the AdaExplore built-in proposer (same constructor, same state_dict). Triton path: cpu float32 inputs (B, S, 32), train and eval, no autograd; every other call runs the original forward."""
    ENVELOPE = {'device_types': ['cpu'],
     'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 'S', 32], 'contiguous': True}],
     'parameter_dtypes': ['torch.float32'],
     'eval_only': [],
     'train_only': [],
     'autograd': False,
     'numbers': {}}   # the calls the Triton path is for (envelope.py)

    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.1)

    def _reference_forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x + self.bias)

    def forward(self, x):
        if self._in_envelope([x]):
            return self._triton_forward(x)
        return self._reference_forward(x)

    def _triton_forward(self, x):
        bias = self.bias
        gelu = add_gelu_0(x, bias)
        return gelu

    def _in_envelope(self, args):
        """True for a call the Triton path was validated for (ENVELOPE); every other call runs the original forward."""
        envelope = self.ENVELOPE
        device = envelope['device_types'][0]
        grad = torch.is_grad_enabled()
        if torch.is_autocast_enabled(device):
            return False
        sizes = {}
        for value, spec in zip(args, envelope['inputs']):
            if 'sizes' not in spec:
                if isinstance(value, torch.Tensor) or (value is not None and 'none' in spec):
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
        state = self._envelope_state()
        if state is None:               # a submodule set to None since the capture
            return False
        modules, parameters, buffers, unset, numbers = state
        for m in modules:               # hooks of submodules that the kernels replace would not run
            if m is None or m._forward_hooks or m._forward_pre_hooks:
                return False
        for path in envelope['eval_only']:
            if self.get_submodule(path).training:
                return False
        for path in envelope['train_only']:
            if not self.get_submodule(path).training:
                return False
        for value, want in zip(numbers, envelope['numbers'].values()):   # inlined in the Triton path
            if not isinstance(value, (int, float)) or value != want:
                return False
            if isinstance(value, float) is not isinstance(want, float):     # 2 is not 2.0 (on int tensors)
                return False
            if isinstance(value, bool) is not isinstance(want, bool):       # True is not 1
                return False
        if unset.count(None) != len(unset):
            return False
        for t in parameters:            # else pruned or reparametrised: a forward pre-hook computes the tensor
            if not isinstance(t, torch.nn.Parameter):
                return False
        for t in buffers:
            if not isinstance(t, torch.Tensor):
                return False
        dtypes, devices = set(), set()
        for t in parameters + buffers:
            if grad and t.requires_grad:
                return False
            dtypes.add(t.dtype)
            devices.add(t.device)
        for dtype in dtypes:
            if dtype.is_floating_point and str(dtype) not in envelope['parameter_dtypes']:
                return False
        for d in devices:
            if d.type != device:
                return False
        return True

    def _envelope_state(self):
        """(submodules, parameters, buffers, unset parameter/buffer slots, numbers) of the module tree, read
        on every call: a replaced module or tensor, a hook or a changed number is seen (the numbers in the
        order of ENVELOPE['numbers']); None when a submodule on the way was set to None."""
        return ((), (self._parameters.get('bias'),), (), (), ())


batch, seq, features = (2, 8, 32)
