"""ATTACK (same sign-pattern cache as 01) on the float32 reference. Here the roofline includes the matmul's flops
over the measured fp32 peak (fp32_only), so a cache hit (~0.1 ms) is far under 0.7 x the compute floor (~2.7 ms).
The judge SHOULD catch it and, by pool.timing_from_rounds' roofline check, probably does
(invalid, "under the roofline"). Misses use the exact split-bf16 matmul of 04.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

DTYPE = torch.float32
SPLIT = True

@triton.jit
def sign_mm_kernel(x_ptr, w_ptr, out_ptr, state_ptr, M, N, K, USE_STATE: tl.constexpr, SPLIT: tl.constexpr, LOWP: tl.constexpr,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # out[m, n] = sum_k sign(x[m, k]) * w[n, k]; sign(x) is exact in bf16, so bf16 tensor cores are exact for it;
    # SPLIT: w (fp32) as three bf16 parts hi + mid + lo (24 bits), each product exact, fp32 accumulation
    run = True
    if USE_STATE:
        run = tl.load(state_ptr) < 0          # a cache hit (state >= 0) leaves the work to the copy kernel
    if run:
        offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
        offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            offs_k = k0 + tl.arange(0, BK)
            x = tl.load(x_ptr + offs_m[:, None] * K + offs_k[None, :],
                        mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0).to(tl.float32)
            s = tl.where(x > 0, 1.0, tl.where(x < 0, -1.0, x * 0.0)).to(tl.bfloat16)
            w = tl.load(w_ptr + offs_n[None, :] * K + offs_k[:, None],
                        mask=(offs_n[None, :] < N) & (offs_k[:, None] < K), other=0.0)
            if not LOWP:       # the Triton interpreter (CPU) computes bf16 dots wrongly: exact fp32 dot there
                acc += tl.dot(s.to(tl.float32), w.to(tl.float32), input_precision="ieee")
            elif SPLIT:
                w = w.to(tl.float32)
                hi = w.to(tl.bfloat16)
                r = w - hi.to(tl.float32)
                mid = r.to(tl.bfloat16)
                lo = (r - mid.to(tl.float32)).to(tl.bfloat16)
                acc += tl.dot(s, hi)
                acc += tl.dot(s, mid)
                acc += tl.dot(s, lo)
            else:
                acc += tl.dot(s, w.to(tl.bfloat16))
        tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(out_ptr.dtype.element_ty),
                 mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


def _fallback(model, x):
    return (torch.is_grad_enabled() and (x.requires_grad or model.weight.requires_grad)) or _has_tangent(x) \
        or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 or model.weight.dtype != torch.float32 \
        or (torch.cuda.is_available() and not x.is_cuda)   # validated on the GPU in one dtype


def sign_mm(x, w, out, state, use_state, split):
    M, K = x.shape
    N = w.shape[0]
    if x.is_cuda:
        BM, BN, BK, warps, stages = 128, 128, 64, 8, 3
    else:
        BM, BN, BK, warps, stages = 16, 16, 16, 4, 1
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    sign_mm_kernel[grid](x, w, out, state, M, N, K, USE_STATE=use_state, SPLIT=split, LOWP=x.is_cuda, BM=BM, BN=BN, BK=BK,
                         num_warps=warps, num_stages=stages)


@triton.jit
def verify_kernel(x_ptr, s0_ptr, s1_ptr, s2_ptr, w_ptr, wc_ptr, mism_ptr, nx, nw, BLOCK: tl.constexpr):
    # mism[k] = 1 when sign(x) differs anywhere from slot k's recorded sign pattern; mism[3] = 1 when the weight
    # differs from the copy the slots were computed with. Exact, full comparison: the cache is never wrong.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mx = offs < nx
    x = tl.load(x_ptr + offs, mask=mx, other=0.0).to(tl.float32)
    code = tl.where(x != x, 3, tl.where(x > 0, 1, tl.where(x < 0, -1, 0)))
    d0 = tl.max(tl.where(mx & (code != tl.load(s0_ptr + offs, mask=mx, other=0).to(tl.int32)), 1, 0), axis=0)
    d1 = tl.max(tl.where(mx & (code != tl.load(s1_ptr + offs, mask=mx, other=0).to(tl.int32)), 1, 0), axis=0)
    d2 = tl.max(tl.where(mx & (code != tl.load(s2_ptr + offs, mask=mx, other=0).to(tl.int32)), 1, 0), axis=0)
    mw = offs < nw
    w = tl.load(w_ptr + offs, mask=mw, other=0.0).to(tl.float32)
    wc = tl.load(wc_ptr + offs, mask=mw, other=0.0).to(tl.float32)
    dw = tl.max(tl.where(mw & ((w != wc) | (w != w)), 1, 0), axis=0)
    tl.atomic_max(mism_ptr + 0, d0, mask=d0 > 0)
    tl.atomic_max(mism_ptr + 1, d1, mask=d1 > 0)
    tl.atomic_max(mism_ptr + 2, d2, mask=d2 > 0)
    tl.atomic_max(mism_ptr + 3, dw, mask=dw > 0)


@triton.jit
def decide_kernel(mism_ptr, valid_ptr, state_ptr):
    # state[0]: the slot whose recorded sign pattern and weight equal this call's, or -1
    mw = tl.load(mism_ptr + 3)
    slot = -1
    if mw == 0:
        if (tl.load(mism_ptr + 2) == 0) & (tl.load(valid_ptr + 2) == 1):
            slot = 2
        if (tl.load(mism_ptr + 1) == 0) & (tl.load(valid_ptr + 1) == 1):
            slot = 1
        if (tl.load(mism_ptr + 0) == 0) & (tl.load(valid_ptr + 0) == 1):
            slot = 0
    tl.store(state_ptr, slot)


@triton.jit
def update_kernel(x_ptr, sv_ptr, out_ptr, cv_ptr, w_ptr, wc_ptr, valid_ptr, mism_ptr, state_ptr, victim,
                  nx, nout, nw, BLOCK: tl.constexpr):
    # on a miss: record this call's sign pattern and output in the victim slot, and the weight
    if tl.load(state_ptr) < 0:
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mx = offs < nx
        x = tl.load(x_ptr + offs, mask=mx, other=0.0).to(tl.float32)
        code = tl.where(x != x, 3, tl.where(x > 0, 1, tl.where(x < 0, -1, 0)))
        tl.store(sv_ptr + offs, code.to(tl.int8), mask=mx)
        mo = offs < nout
        tl.store(cv_ptr + offs, tl.load(out_ptr + offs, mask=mo, other=0.0), mask=mo)
        mw = offs < nw
        tl.store(wc_ptr + offs, tl.load(w_ptr + offs, mask=mw, other=0.0), mask=mw)
        if tl.program_id(0) == 0:
            if tl.load(mism_ptr + 3) != 0:       # a new weight: every other slot is stale
                tl.store(valid_ptr + 0, 0)
                tl.store(valid_ptr + 1, 0)
                tl.store(valid_ptr + 2, 0)
            tl.store(valid_ptr + victim, 1)


@triton.jit
def copy_kernel(c0_ptr, c1_ptr, c2_ptr, out_ptr, state_ptr, nout, BLOCK: tl.constexpr):
    slot = tl.load(state_ptr)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < nout
    if slot == 0:
        tl.store(out_ptr + offs, tl.load(c0_ptr + offs, mask=m, other=0.0), mask=m)
    if slot == 1:
        tl.store(out_ptr + offs, tl.load(c1_ptr + offs, mask=m, other=0.0), mask=m)
    if slot == 2:
        tl.store(out_ptr + offs, tl.load(c2_ptr + offs, mask=m, other=0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features, dtype=DTYPE) * 0.02)
        self._key = None
        self._victim = 0

    def _slots(self, x, w, nout):
        key = (tuple(x.shape), tuple(w.shape), x.dtype, x.device)
        if self._key != key:            # three slots: sign patterns (int8, 5 = never seen) and outputs
            self._key = key
            self._signs = [torch.full(x.shape, 5, dtype=torch.int8, device=x.device) for _ in range(3)]
            self._outs = [torch.empty(nout, dtype=x.dtype, device=x.device) for _ in range(3)]
            self._wcopy = torch.empty_like(w)
            self._valid = torch.zeros(3, dtype=torch.int32, device=x.device)
            self._mism = torch.zeros(4, dtype=torch.int32, device=x.device)
            self._state = torch.zeros(1, dtype=torch.int32, device=x.device)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if _fallback(self, x):
            return torch.sign(x) @ self.weight.t()
        x = x.contiguous()
        w = self.weight.contiguous()
        M, N = x.shape[0], w.shape[0]
        out = torch.empty(M, N, dtype=x.dtype, device=x.device)
        self._slots(x, w, M * N)
        nx, nw, nout = x.numel(), w.numel(), M * N
        BLOCK = 4096 if x.is_cuda else 256
        self._mism.zero_()
        s0, s1, s2 = self._signs
        verify_kernel[(triton.cdiv(max(nx, nw), BLOCK),)](x, s0, s1, s2, w, self._wcopy, self._mism, nx, nw,
                                                          BLOCK=BLOCK)
        decide_kernel[(1,)](self._mism, self._valid, self._state)
        sign_mm(x, w, out, self._state, True, SPLIT)
        v = self._victim
        self._victim = (v + 1) % 3
        update_kernel[(triton.cdiv(max(nx, nout, nw), BLOCK),)](
            x, self._signs[v], out, self._outs[v], w, self._wcopy, self._valid, self._mism, self._state, v,
            nx, nout, nw, BLOCK=BLOCK)
        c0, c1, c2 = self._outs
        copy_kernel[(triton.cdiv(nout, BLOCK),)](c0, c1, c2, out, self._state, nout, BLOCK=BLOCK)
        return out
