# expect: verdict=valid stage=ok reason~"Validated"
# AdaExplore built-in candidate (regenerated 2026-12-06: on the CPU it raises for a target outside [0, C), as torch does)
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def loss_0_kernel(x_ptr, target_ptr, loss_ptr, row_weight_ptr, n_cols, n_inner, x_stride_outer, x_stride_inner, target_inner, target_stride_outer, target_stride_inner, ignore_index, BLOCK_SIZE: tl.constexpr):
    # loss = cross_entropy(logits, target): one program per row of the (N, C) logits, read once;
    # loss = w[t] * (lse - x[t])  (w = 1 without weights),
    # 0 for a row whose target is ignore_index, NaN for a target outside [0, C).
    # Row r is (r // n_inner, r % n_inner) of the logits viewed as (outer, inner, C); the target likewise.
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + (row // n_inner) * x_stride_outer + (row % n_inner) * x_stride_inner
    t = tl.load(target_ptr + (row // target_inner) * target_stride_outer + (row % target_inner) * target_stride_inner)
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
    lse = row_max + tl.log(row_sum)
    in_range = (t >= 0) & (t < n_cols)
    t_safe = tl.where(in_range, t, 0)
    picked = tl.load(x_row + t_safe).to(tl.float32)
    loss = (lse - picked)
    ignored = t == ignore_index
    loss = tl.where(ignored, 0.0, tl.where(in_range, loss, float('nan')))
    tl.store(loss_ptr + row, loss.to(loss_ptr.dtype.element_ty))
    tl.store(row_weight_ptr + row, tl.where(ignored, 0.0, 1.0))


def loss_0(x, target):
    x = x.unsqueeze(0)   # rows as (outer, inner): (1, N)
    target = target.unsqueeze(0)   # rows as (outer, inner): (1, N)
    if x.stride(2) != 1:
        x = x.contiguous()
    n_outer, n_inner, n_cols = x.shape
    n_rows = n_outer * n_inner
    assert target.numel() == n_rows, 'cross_entropy takes one class index per row of logits'
    if x.device.type == 'cpu':   # torch raises here on a target outside [0, C); a GPU gets NaN
        bad = (target != -100) & ((target < 0) | (target >= n_cols))
        if bool(bad.any()):
            raise IndexError(f'Target {int(target[bad][0])} is out of bounds.')
    rows = torch.empty((2, n_rows), device=x.device, dtype=torch.float32)   # loss; target weight
    loss, row_weight = rows[0], rows[1]
    block = min(4096, triton.next_power_of_2(max(n_cols, 1)))
    if n_rows > 0:
        loss_0_kernel[(n_rows,)](x, target, loss, row_weight, n_cols, n_inner, x.stride(0), x.stride(1), target.shape[1], target.stride(0), target.stride(1), -100, BLOCK_SIZE=block, num_warps=8)
    totals = rows.sum(dim=1)
    return (totals[0] / totals[1]).to(torch.float32)   # the mean over the rows not ignored


class ModelNew(nn.Module):
    """Model with its forward rewritten to Triton kernels by the AdaExplore built-in proposer (same constructor, same state_dict). Triton path: cpu float32/int64 inputs (B, 10) (B), train and eval, no autograd; every other call runs the original forward."""
    ENVELOPE = {'device_types': ['cpu'],
     'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 10], 'contiguous': True},
                {'dtype': 'torch.int64', 'sizes': ['B'], 'contiguous': True}],
     'parameter_dtypes': [],
     'eval_only': [],
     'train_only': [],
     'autograd': False,
     'numbers': {'loss.ignore_index': -100, 'loss.label_smoothing': 0.0},
     'kinds': [[0, 'CrossEntropyLoss()']]}   # the calls the Triton path is for (envelope.py)

    def __init__(self):
        super().__init__()
        self.loss = nn.CrossEntropyLoss()

    def _reference_forward(self, logits, target):
        return self.loss(logits, target)

    def forward(self, logits, target):
        if self._in_envelope([logits, target]):
            return self._triton_forward(logits, target)
        return self._reference_forward(logits, target)

    def _triton_forward(self, logits, target):
        loss = loss_0(logits, target)
        return loss

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
        loss = self._modules.get('loss')
        if loss is None:
            return None
        return ((loss,),
                (),
                (),
                (loss._buffers.get('weight'),),
                (getattr(loss, 'ignore_index', None), getattr(loss, 'label_smoothing', None)))
