# expect: verdict=valid stage=ok reason~"Validated"
# AdaExplore built-in candidate: 1 Triton kernel(s): reduction sum; default block sizes
# Judge: Validated: matches the reference on fresh and out-of-range inputs and runs Triton
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def sum_0_kernel(x_ptr, out_ptr, n_red, n_inner, n_col_blocks, BLOCK_INNER: tl.constexpr):
    # sum_1 = sum(x) over dims [0]: x as (outer, n_red, n_inner); each program
    # takes BLOCK_INNER contiguous inner positions of one outer index and walks the n_red rows
    pid = tl.program_id(0).to(tl.int64)
    outer = pid // n_col_blocks
    cols = (pid % n_col_blocks) * BLOCK_INNER + tl.arange(0, BLOCK_INNER)
    cmask = cols < n_inner
    x_base = x_ptr + outer * n_red * n_inner + cols
    acc = tl.full([BLOCK_INNER], 0.0, tl.float32)
    for r in range(0, n_red):
        x = tl.load(x_base + r * n_inner, mask=cmask, other=0.0).to(tl.float32)
        acc = acc + x
    tl.store(out_ptr + outer * n_inner + cols, (acc).to(out_ptr.dtype.element_ty), mask=cmask)


def sum_0(x):
    assert x.dim() == 2, 'rank differs from the traced model'
    x = x.contiguous()
    n_outer, n_red, n_inner = 1, x.shape[0], x.shape[1]
    out = torch.empty((x.shape[1],), device=x.device, dtype=torch.float32)
    block = min(2048, triton.next_power_of_2(max(n_inner, 1)))
    while block > 128 and n_outer * triton.cdiv(n_inner, block) < 512:
        block //= 2                     # narrower columns, more programs: enough to fill the GPU
    n_col_blocks = triton.cdiv(n_inner, block)
    sum_0_kernel[(n_outer * n_col_blocks,)](x, out, n_red, n_inner, n_col_blocks, BLOCK_INNER=block, num_warps=8)
    return out


class ModelNew(nn.Module):
    """Model with its forward rewritten to Triton kernels by the AdaExplore built-in proposer (same constructor, same state_dict). Triton path: cpu float32 inputs (B, 64), train and eval, no autograd; every other call runs the original forward."""
    ENVELOPE = {'device_types': ['cpu'],
     'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
     'parameter_dtypes': [],
     'eval_only': [],
     'train_only': [],
     'autograd': False,
     'numbers': {}}   # the calls the Triton path is for (envelope.py)

    def __init__(self):
        super().__init__()

    def _reference_forward(self, x):
        return x.sum(dim=0)

    def forward(self, x):
        if self._in_envelope([x]):
            return self._triton_forward(x)
        return self._reference_forward(x)

    def _triton_forward(self, x):
        sum_1 = sum_0(x)
        return sum_1

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
        for path in envelope['eval_only']:
            if self.get_submodule(path).training:
                return False
        for path in envelope['train_only']:
            if not self.get_submodule(path).training:
                return False
        modules, parameters, buffers, unset, numbers = self._envelope_state()
        for m in modules:               # hooks of submodules that the kernels replace would not run
            if m._forward_hooks or m._forward_pre_hooks:
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
        order of ENVELOPE['numbers'])."""
        return ((), (), (), (), ())
