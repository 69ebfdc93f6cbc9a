# expect: verdict=valid stage=ok reason~"Validated"
# AdaExplore built-in candidate: 1 Triton kernel(s): loss cross_entropy; default block sizes
# Judge: Validated: matches the reference on fresh and out-of-range inputs and runs Triton
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def loss_0_kernel(x_ptr, target_ptr, loss_ptr, n_cols, stride_row, ignore_index, BLOCK_SIZE: tl.constexpr):
    # loss = cross_entropy(logits, target): one program per row; loss = logsumexp(row) - row[target],
    # 0 for a row whose target is ignore_index, NaN for a target outside [0, n_cols)
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_row
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
    t = tl.load(target_ptr + row)
    in_range = (t >= 0) & (t < n_cols)
    picked = tl.load(x_row + tl.where(in_range, t, 0)).to(tl.float32)
    loss = tl.where(in_range, row_max + tl.log(row_sum) - picked, float('nan'))
    tl.store(loss_ptr + row, tl.where(t == ignore_index, 0.0, loss))


def loss_0(x, target):
    assert x.dim() == 2 and target.dim() == 1 and target.shape[0] == x.shape[0], 'cross_entropy takes (N, C) logits and N class indices here, as traced'
    if x.stride(1) != 1:
        x = x.contiguous()
    target = target.contiguous()
    n_rows, n_cols = x.shape
    loss = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    block = min(4096, triton.next_power_of_2(max(n_cols, 1)))
    loss_0_kernel[(n_rows,)](x, target, loss, n_cols, x.stride(0), -100, BLOCK_SIZE=block, num_warps=8)
    return (loss.sum() / (target != -100).sum()).to(x.dtype)   # the mean over the rows not ignored


class ModelNew(nn.Module):
    """Model with its forward rewritten to Triton kernels by the AdaExplore built-in proposer (same constructor, same state_dict). Triton path: cpu float32/int64 inputs (B, 10) (B), train and eval, no autograd; every other call runs the original forward."""
    ENVELOPE = {'device_types': ['cpu'],
     'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 10], 'contiguous': True},
                {'dtype': 'torch.int64', 'sizes': ['B'], 'contiguous': True}],
     'parameter_dtypes': [],
     'eval_only': [],
     'train_only': [],
     'autograd': False,
     'numbers': {'loss.ignore_index': -100, 'loss.label_smoothing': 0.0}}   # the calls the Triton path is for (envelope.py)

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
        loss = self.loss
        return ((loss,), (), (), (loss.weight,), (loss.ignore_index, loss.label_smoothing))
