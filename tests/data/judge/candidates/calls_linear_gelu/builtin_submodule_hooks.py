# expect: verdict=invalid stage=correctness check=program reason~"hooks trial (a forward pre-hook and hook on linear)"
# WRONG (the built-in proposer's own validated GEMM candidate, unchanged below this line): the Triton path reads self.linear.weight directly and never calls self.linear(...), so the submodule's forward pre-hooks and hooks never run: under torch.nn.utils.prune (weight = weight_orig * weight_mask, recomputed by a pre-hook on each call of the Linear) it uses the weight attribute left from prune time, so after load_state_dict(pruned checkpoint) the outputs are wrong; a register_forward_hook on model.linear (feature extraction, Grad-CAM, activation statistics) never fires. The judge never installs hooks.
# AdaExplore built-in candidate: 1 Triton kernel(s): gemm linear+gelu; default block sizes
# Judge: Validated: matches the reference on fresh and out-of-range inputs and runs Triton
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def linear_gelu_0_kernel(a_ptr, w_ptr, bias_ptr, out0_ptr, M, N, K, stride_ab, stride_am, stride_ak, stride_wb, stride_wk, stride_wn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # linear = matmul(a, w.T) + bias, tiled; then, per output tile:
    # gelu = gelu(linear)
    pid = tl.program_id(0)
    pid_b = tl.program_id(1).to(tl.int64)
    num_pid_m, num_pid_n = tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * num_pid_n)                  # GROUP_M row blocks share w tiles in L2
    first_m = group * GROUP_M
    group_size = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * num_pid_n)) % group_size
    pid_n = (pid % (GROUP_M * num_pid_n)) // group_size
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptr += pid_b * stride_ab
    w_ptr += pid_b * stride_wb
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & ((k + offs_k)[None, :] < K), other=0.0).to(tl.float32)
        w = tl.load(w_ptr + (k + offs_k)[:, None] * stride_wk + offs_n[None, :] * stride_wn,
                    mask=((k + offs_k)[:, None] < K) & (offs_n[None, :] < N), other=0.0).to(tl.float32)
        acc += tl.dot(a, w, input_precision='ieee')
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    v_gemm = acc + tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    v_gelu = (0.5 * (v_gemm) * (1.0 + tl.math.erf((v_gemm) * 0.7071067811865476)))
    tl.store(out0_ptr + pid_b * M * N + offs_m[:, None] * N + offs_n[None, :], v_gelu.to(out0_ptr.dtype.element_ty), mask=mask)


def linear_gelu_0(a, w, bias):
    assert a.dim() == 2 and w.dim() == 2, 'a 2-D matrix product, as traced'
    B, (M, K) = 1, a.shape
    N = w.shape[0]
    assert w.shape[1] == K, 'inner dimensions differ'
    a_strides, w_strides = (0,) + a.stride(), (0, w.stride(1), w.stride(0))
    out0 = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64), B)
    linear_gelu_0_kernel[grid](a, w, bias, out0, M, N, K, *a_strides, *w_strides, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8, num_warps=4, num_stages=3)
    return out0


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
        if self._in_envelope([x]) and not torch.is_autocast_enabled(x.device.type):
            return self._triton_forward(x)
        return self._reference_forward(x)

    def _triton_forward(self, x):
        gelu = linear_gelu_0(x, self.linear.weight, self.linear.bias)
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
