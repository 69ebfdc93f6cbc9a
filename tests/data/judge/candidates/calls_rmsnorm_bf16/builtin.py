# expect: verdict=valid stage=ok reason~"Validated"
# AdaExplore built-in candidate: 3 Triton kernel(s): reduction square+mean, pointwise add+rsqrt, pointwise mul; default block sizes
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
def pow_mean_0_prologue(offs, mask, other, in0_ptr):
    # pow_1 = square(float_1)
    in0 = tl.load(in0_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v_pow_1 = ((in0) * (in0))
    return tl.where(mask, v_pow_1, other)


@triton.jit
def pow_mean_0_kernel(in0_ptr, out_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    # pow_1 = square(float_1)   (prologue: computed at each read of x)
    # mean = mean(pow_1) over dims [1]: one program per row of n_cols elements, BLOCK_SIZE at a time
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        x = pow_mean_0_prologue(row * n_cols + start + offs, start + offs < n_cols, 0.0, in0_ptr).to(tl.float32)
        acc += x
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / n_cols)


@triton.jit
def pow_mean_0_rows_kernel(in0_ptr, out_ptr, n_rows, n_cols, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    # pow_1 = square(float_1)   (prologue: computed at each read of x)
    # mean = mean(pow_1) over dims [1]: BLOCK_ROWS whole rows per program (n_cols <= BLOCK_COLS)
    rows = tl.program_id(0).to(tl.int64) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, BLOCK_COLS)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs2d = rows[:, None] * n_cols + cols[None, :]
    x = pow_mean_0_prologue(offs2d, mask, 0.0, in0_ptr).to(tl.float32)
    tl.store(out_ptr + rows, (tl.sum(x, axis=1) / n_cols).to(out_ptr.dtype.element_ty), mask=rows < n_rows)


def pow_mean_0(a0):
    shape = torch.broadcast_shapes(a0.shape)
    assert len(shape) == 2, 'rank differs from the traced model'
    assert a0.shape == shape, 'input a0 must have the full output shape'
    a0 = a0.contiguous()
    inner = inner_sizes(shape, list(range(2)))
    x = a0    # the prologue's value has this input's shape (it is never stored)
    assert x.dim() == 2, 'rank differs from the traced model'
    xt = x.contiguous()
    n_cols = x.shape[1]
    n_rows = xt.numel() // max(n_cols, 1)
    out = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    if n_cols <= 1024:
        block_cols = triton.next_power_of_2(max(n_cols, 1))
        block_rows = max(1, min(64, 4096 // block_cols))
        grid = (triton.cdiv(n_rows, block_rows),)
        pow_mean_0_rows_kernel[grid](a0, out, n_rows, n_cols, BLOCK_ROWS=block_rows, BLOCK_COLS=block_cols, num_warps=8)
    else:
        block = min(2048, triton.next_power_of_2(n_cols))
        pow_mean_0_kernel[(n_rows,)](a0, out, n_cols, BLOCK_SIZE=block, num_warps=8)
    return out.reshape((x.shape[0], 1))


@triton.jit
def add_rsqrt_1_kernel(in0_ptr, out0_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # add = add(mean, 1e-06)
    # rsqrt = rsqrt(add)
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    in0 = tl.load(in0_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v_add = ((in0) + (1e-06))
    v_rsqrt = tl.rsqrt(v_add)
    tl.store(out0_ptr + offs, v_rsqrt.to(out0_ptr.dtype.element_ty), mask=mask)


def add_rsqrt_1(a0):
    shape = torch.broadcast_shapes(a0.shape)
    assert len(shape) == 2, 'rank differs from the traced model'
    order = memory_order(a0) or list(range(2))   # keep its layout
    assert a0.shape == shape, 'input a0 must have the full output shape'
    a0 = a0.permute(order).contiguous()   # no copy when already in that layout
    inner = inner_sizes(shape, order)
    out0 = torch.empty([shape[d] for d in order], device=a0.device, dtype=torch.float32)
    grid = (triton.cdiv(out0.numel(), 1024),)
    add_rsqrt_1_kernel[grid](a0, out0, out0.numel(), BLOCK_SIZE=1024, num_warps=4)
    return out0.permute([order.index(d) for d in range(len(order))])


@triton.jit
def mul_2_kernel(in0_ptr, in1_ptr, in2_ptr, out0_ptr, n_elements, inner0, size0, inner1, size1, in1_s0, in2_s1, BLOCK_SIZE: tl.constexpr):
    # mul = mul(float_1, rsqrt)
    # mul_1 = mul(mul, float_2)
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    i0 = offs // inner0
    i1 = offs // inner1 % size1
    in0 = tl.load(in0_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    in1 = tl.load(in1_ptr + i0 * in1_s0, mask=mask, other=0.0).to(tl.float32)
    in2 = tl.load(in2_ptr + i1 * in2_s1, mask=mask, other=0.0).to(tl.float32)
    v_mul = ((in0) * (in1))
    v_mul_1 = ((v_mul) * (in2))
    tl.store(out0_ptr + offs, v_mul_1.to(out0_ptr.dtype.element_ty), mask=mask)


def mul_2(a0, a1, a2):
    shape = torch.broadcast_shapes(a0.shape, a1.shape, a2.shape)
    assert len(shape) == 2, 'rank differs from the traced model'
    order = memory_order(a0) or list(range(2))   # keep its layout
    assert a0.shape == shape, 'input a0 must have the full output shape'
    a0 = a0.permute(order).contiguous()   # no copy when already in that layout
    a1 = a1.to(a0.device)
    s1 = a1.expand(shape).stride()
    assert s1[1] == 0, 'input a1 must broadcast as in the traced model'
    a2 = a2.to(a0.device)
    s2 = a2.expand(shape).stride()
    assert s2[0] == 0, 'input a2 must broadcast as in the traced model'
    inner = inner_sizes(shape, order)
    out0 = torch.empty([shape[d] for d in order], device=a0.device, dtype=torch.float32)
    grid = (triton.cdiv(out0.numel(), 1024),)
    mul_2_kernel[grid](a0, a1, a2, out0, out0.numel(), inner[0], shape[0], inner[1], shape[1], s1[0], s2[1], BLOCK_SIZE=1024, num_warps=4)
    return out0.permute([order.index(d) for d in range(len(order))])


class ModelNew(nn.Module):
    """Model with its forward rewritten to Triton kernels by the AdaExplore built-in proposer (same constructor, same state_dict). Triton path: cpu bfloat16 inputs (B, 64), train and eval, no autograd; every other call runs the original forward."""
    ENVELOPE = {'device_types': ['cpu'],
     'inputs': [{'dtype': 'torch.bfloat16', 'sizes': ['B', 64], 'contiguous': True}],
     'parameter_dtypes': ['torch.bfloat16'],
     'eval_only': [],
     'train_only': [],
     'autograd': False,
     'numbers': {'eps': 1e-06}}   # the calls the Triton path is for (envelope.py)

    def __init__(self, D, eps=1e-06):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(D, dtype=torch.bfloat16))
        self.eps = eps

    def _reference_forward(self, x):
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return (y * self.weight.float()).to(x.dtype)

    def forward(self, x):
        if self._in_envelope([x]):
            return self._triton_forward(x)
        return self._reference_forward(x)

    def _triton_forward(self, x):
        float_1 = x.float()
        mean = pow_mean_0(float_1)
        rsqrt = add_rsqrt_1(mean)
        weight = self.weight
        float_2 = weight.float()
        mul_1 = mul_2(float_1, rsqrt, float_2)
        getattr_1 = getattr(x, 'dtype')
        to = mul_1.to(getattr_1)
        return to

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
        return ((), (self.weight,), (), (), (self.eps,))
