# expect: verdict=valid stage=ok reason~"Validated"
# HONEST: the built-in proposer's candidate (2026-12-04): falls back when act is swapped (its repr differs).
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


def recomputed_grads(recompute, args, grads, needed):
    """The gradients of a kernel's inputs by torch's autograd through the kernel's ops in torch: the backward
    run with grad mode on (create_graph=True), itself differentiable, where the Triton backward is not. The
    ops read views of the inputs: the gradient of each is then its own (an input computed from another
    would otherwise count the other's path twice), and still a function of the input for the next order."""
    with torch.enable_grad():
        args = [a.view_as(a) if isinstance(a, torch.Tensor) else a for a in args]
        outs = recompute(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    pairs = [(o, g) for o, g in zip(outs, grads) if o.requires_grad]
    wanted = [i for i, need in enumerate(needed) if need]
    found = torch.autograd.grad([o for o, _ in pairs], [args[i] for i in wanted], [g for _, g in pairs],
                                create_graph=True, allow_unused=True)
    result = [None] * len(args)
    for i, g in zip(wanted, found):
        result[i] = g
    return tuple(result)


@triton.jit
def act_0_kernel(in0_ptr, out0_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # act = gelu(linear)
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    in0 = tl.load(in0_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v_act = (0.5 * (in0) * (1.0 + tl.math.erf((in0) * 0.7071067811865476)))
    tl.store(out0_ptr + offs, v_act.to(out0_ptr.dtype.element_ty), mask=mask)


def act_0(a0):
    shape = torch.broadcast_shapes(a0.shape)
    assert len(shape) == 2, 'rank differs from the traced model'
    order = memory_order(a0) or list(range(2))   # keep its layout
    assert a0.shape == shape, 'input a0 must have the full output shape'
    a0 = a0.permute(order).contiguous()   # no copy when already in that layout
    inner = inner_sizes(shape, order)
    out0 = torch.empty_strided(shape, inner, device=a0.device, dtype=torch.float32)
    grid = (triton.cdiv(out0.numel(), 1024),)
    act_0_kernel[grid](a0, out0, out0.numel(), BLOCK_SIZE=1024, num_warps=4)
    return out0


@triton.jit
def act_0_backward_kernel(in0_ptr, g0_ptr, d0_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # the gradients of act_0's inputs: its values recomputed, then its ops walked backwards
    # act = gelu(linear)
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    in0 = tl.load(in0_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v_act = (0.5 * (in0) * (1.0 + tl.math.erf((in0) * 0.7071067811865476)))
    g0 = tl.load(g0_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d_act = g0
    b0 = ((d_act) * (((((0.5) * (((1.0) + (tl.math.erf(((in0) * (0.7071067811865475)))))))) + (((in0) * (((tl.exp(((((-0.5) * (in0))) * (in0)))) * (0.3989422804014327))))))))
    d_linear = b0
    tl.store(d0_ptr + offs, d_linear.to(d0_ptr.dtype.element_ty), mask=mask)


def act_0_backward(a0, g0):
    shape = torch.broadcast_shapes(a0.shape)
    assert a0.shape == shape, 'input a0 must have the full output shape'
    a0 = a0.contiguous()
    inner = inner_sizes(shape, list(range(2)))
    g0 = g0.expand(shape).contiguous()   # any layout of the incoming gradient
    d0 = torch.empty(shape, device=a0.device, dtype=a0.dtype)
    grid = (triton.cdiv(max(g0.numel(), 1), 1024),)
    act_0_backward_kernel[grid](a0, g0, d0, g0.numel(), BLOCK_SIZE=1024, num_warps=4)
    return d0,


class act_0_function(torch.autograd.Function):
    """act_0's forward kernel, with its backward kernel for autograd; the inputs are saved, the group's
    values recomputed in the backward."""

    @staticmethod
    def forward(ctx, recompute, *args):
        ctx.recompute = recompute
        ctx.numbers = [None if isinstance(a, torch.Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, torch.Tensor)])
        return act_0(*args)

    @staticmethod
    def backward(ctx, g0):
        saved = iter(ctx.saved_tensors)
        args = [next(saved) if a is None else a for a in ctx.numbers]
        if torch.is_grad_enabled():          # create_graph=True: a backward that is itself differentiable
            return (None,) + recomputed_grads(ctx.recompute, args, (g0,), ctx.needs_input_grad[1:])
        return (None,) + act_0_backward(*args, g0)


def act_0_call(recompute, *args):
    if torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
        return act_0_function.apply(recompute, *args)
    return act_0(*args)


batch, in_features, out_features = (8, 32, 16)


class ModelNew(nn.Module):
    """Model with its forward rewritten to Triton kernels by the AdaExplore built-in proposer (same constructor, same state_dict). Triton path: cpu float32 inputs (B, 32), train and eval, autograd through Triton backward kernels; every other call runs the original forward."""
    ENVELOPE = {'device_types': ['cpu'],
     'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 32], 'contiguous': True}],
     'parameter_dtypes': ['torch.float32'],
     'eval_only': [],
     'train_only': [],
     'autograd': True,
     'numbers': {'linear.in_features': 32, 'linear.out_features': 16},
     'kinds': [[1, "GELU(approximate='none')"]]}   # the calls the Triton path is for (envelope.py)

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.act = nn.GELU()

    def _reference_forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.linear(x))

    def forward(self, x):
        if self._in_envelope([x]):
            return self._triton_forward(x)
        return self._reference_forward(x)

    def _triton_forward(self, x):
        linear = self.linear(x)
        act = act_0_call(self._act_0_torch, linear)
        return act

    def _act_0_torch(self, p0):
        linear = p0
        act = self.act(linear)
        return act

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
            if str(value.dtype) != spec['dtype'] or (grad and value.requires_grad and not envelope['autograd']):
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
            if m is None or m._forward_hooks or m._forward_pre_hooks or m._backward_hooks or m._backward_pre_hooks:
                return False
        for index, kind in envelope['kinds']:    # a submodule swapped for another kind (nn.GELU -> nn.SiLU)
            if repr(modules[index]) != kind:
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
            if grad and t.requires_grad and not envelope['autograd']:     # else the kernels' backward
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
        linear = self._modules.get('linear')
        if linear is None:
            return None
        return ((linear, self._modules.get('act')),
                (linear._parameters.get('weight'), linear._parameters.get('bias')),
                (),
                (),
                (linear.in_features, linear.out_features))
