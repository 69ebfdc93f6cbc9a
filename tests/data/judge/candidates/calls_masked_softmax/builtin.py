# expect: verdict=valid stage=ok reason~"Validated"
# AdaExplore built-in candidate: 1 Triton kernel(s): reduction softmax; default block sizes
# Judge: Validated: matches the reference on fresh and out-of-range inputs and runs Triton
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def softmax_0_kernel(x_ptr, out_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    # softmax = softmax(x) over dims [1]: one program per row of n_cols elements, BLOCK_SIZE at a time
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    out_row = out_ptr + row * n_cols
    offs = tl.arange(0, BLOCK_SIZE)
    m = tl.full([BLOCK_SIZE], float('-inf'), tl.float32)   # running max per lane
    s = tl.zeros([BLOCK_SIZE], tl.float32)                  # running sum of exp(x - m) per lane
    for start in range(0, n_cols, BLOCK_SIZE):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=float('-inf')).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(tl.where(m == m_new, 0.0, m - m_new)) + tl.where(x == float('-inf'), 0.0, tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(s * tl.exp(tl.where(m == float('-inf'), float('-inf'), m - row_max)), axis=0)
    inv = 1.0 / row_sum
    for start in range(0, n_cols, BLOCK_SIZE):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_row + start + offs, (tl.exp(x - row_max) * inv).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_0_rows_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    # softmax = softmax(x) over dims [1]: BLOCK_ROWS whole rows per program (n_cols <= BLOCK_COLS)
    rows = tl.program_id(0).to(tl.int64) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, BLOCK_COLS)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs2d = rows[:, None] * n_cols + cols[None, :]
    ptrs = x_ptr + offs2d
    x = tl.load(ptrs, mask=mask, other=float('-inf')).to(tl.float32)
    m = tl.max(x, axis=1)
    m = tl.where(m == float('-inf'), 0.0, m)   # rows of -inf (and padding rows) stay finite
    e = tl.exp(x - m[:, None])
    s = tl.sum(e, axis=1)
    y = e / s[:, None]
    tl.store(out_ptr + offs2d, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax_0(x):
    assert x.dim() == 2, 'rank differs from the traced model'
    xt = x.contiguous()
    n_cols = x.shape[1]
    n_rows = xt.numel() // max(n_cols, 1)
    out = torch.empty(xt.shape, device=x.device, dtype=torch.float32)
    if n_cols <= 1024:
        block_cols = triton.next_power_of_2(max(n_cols, 1))
        block_rows = max(1, min(64, 4096 // block_cols))
        grid = (triton.cdiv(n_rows, block_rows),)
        softmax_0_rows_kernel[grid](xt, out, n_rows, n_cols, BLOCK_ROWS=block_rows, BLOCK_COLS=block_cols, num_warps=8)
    else:
        block = min(2048, triton.next_power_of_2(n_cols))
        softmax_0_kernel[(n_rows,)](xt, out, n_cols, BLOCK_SIZE=block, num_warps=8)
    return out


class ModelNew(nn.Module):
    """Model with its forward rewritten to Triton kernels by the AdaExplore built-in proposer (same constructor, same state_dict). Triton path: cpu float32 inputs (B, 32), train and eval, no autograd; every other call runs the original forward."""
    ENVELOPE = {'device_types': ['cpu'],
     'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 32], 'contiguous': True}, {'none': True}],
     'parameter_dtypes': [],
     'eval_only': [],
     'train_only': [],
     'autograd': False,
     'numbers': {}}   # the calls the Triton path is for (envelope.py)

    def __init__(self):
        super().__init__()

    def _reference_forward(self, x, mask=None):
        if mask is not None:
            x = x.masked_fill(mask, float('-inf'))
        return torch.softmax(x, dim=-1)

    def forward(self, x, mask=None):
        if self._in_envelope([x, mask]):
            return self._triton_forward(x, mask)
        return self._reference_forward(x, mask)

    def _triton_forward(self, x, mask=None):
        softmax = softmax_0(x)
        return softmax

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
