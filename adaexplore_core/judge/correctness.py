"""Correctness: does the candidate compute the reference's function, with its own Triton kernels?

Pure helpers over tensors (tolerances, output comparison, input snapshots, aliasing), a record and replay of
a forward's random draws (so that its float64 re-run draws the reference's numbers), and a launch counter that
sees every Triton kernel launch in this process. The trial loop lives in ``worker.py``.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import torch
from torch.utils._python_dispatch import TorchDispatchMode    # imported here, before any candidate code runs

from .verdict import Check


@dataclass(frozen=True)
class Tolerance:
    """Elementwise ``|a - b| <= atol + rtol * |b|`` and, when the reference is not all zeros,
    a relative L2 error ``||a - b|| / ||b|| <= rel_l2`` (this catches all-zero outputs that slip
    under ``atol`` when the reference values are tiny, e.g. a softmax over many classes)."""

    atol: float
    rtol: float
    rel_l2: float


FP32_TOLERANCE = Tolerance(atol=1e-4, rtol=1e-4, rel_l2=1e-3)   # KernelBench's fp32 default, plus L2
LOW_PRECISION_TOLERANCE = Tolerance(atol=1e-2, rtol=1e-2, rel_l2=5e-2)
# float64 computed as float64 (a different summation order: ~1e-13 even over 1M terms); float32 arithmetic
# gives ~1e-7 and misses it: gradcheck fails on such a candidate (red team 16, a11)
FP64_TOLERANCE = Tolerance(atol=1e-10, rtol=1e-9, rel_l2=1e-9)
EXACT = Tolerance(atol=0.0, rtol=0.0, rel_l2=0.0)


def tolerance_for(dtype: torch.dtype, override: Tolerance | None = None) -> Tolerance:
    """The tolerance for outputs of ``dtype``: exact for integers and booleans."""
    if not (dtype.is_floating_point or dtype.is_complex):
        return EXACT
    if override is not None:
        return override
    if dtype in (torch.float16, torch.bfloat16) or dtype.itemsize == 1:
        return LOW_PRECISION_TOLERANCE
    if dtype in (torch.float64, torch.complex128):
        return FP64_TOLERANCE
    return FP32_TOLERANCE


BUFFER_ULPS = 4     # a buffer (running statistics) is rounded to its dtype at every update: this many units


def buffer_tolerance(dtype: torch.dtype, override: Tolerance | None = None) -> Tolerance:
    """The tolerance for a buffer of ``dtype`` after an update: the output tolerance, widened to BUFFER_ULPS
    units in the last place of the buffer's own dtype (two honest bf16 updates may differ by a rounding)."""
    base = tolerance_for(dtype, override)
    if not dtype.is_floating_point:
        return base
    ulps = BUFFER_ULPS * torch.finfo(dtype).eps
    return Tolerance(atol=base.atol, rtol=max(base.rtol, ulps), rel_l2=max(base.rel_l2, ulps))


NOISE_ONLY = 1.0    # the reference's relative L2 error against float64 at which its output is only noise
EXACT_SLACK = 2.0   # a candidate may be this many times as far from the float64 result as the reference is
# ... and, in relative L2 error, this many times: the L2 error of an ill-conditioned output (a gradient that
# nearly cancels, as a weight's before a second batch norm) is a few elements' rounding, and two honest float32
# orders of summation differ by more than 2x there (CI 2026-12-04: torch's own BatchNorm backward, fed a
# contiguous grad_output instead of a strided one, was 2.02x the reference's)
EXACT_L2_SLACK = 4.0


def compare_outputs(ref: list[torch.Tensor], cand: list[torch.Tensor], override: Tolerance | None = None,
                    exact: list[torch.Tensor] | None = None, atol_scale: float = 1.0,
                    layout: bool = True) -> Check | None:
    """The first failing check between reference and candidate outputs, or None when they agree.

    ``exact``: the reference evaluated in float64 (fair numerics). An output that misses the reference's
    tolerance still matches when it is as close to the float64 result as the reference itself is: every
    element within ``atol + rtol * |exact| + 2 * max|ref - exact|`` of it, and a relative L2 error against it
    of at most ``max(rel_l2, 4 * the reference's)``. Integer, boolean and NaN/Inf positions stay exact.
    ``atol_scale``: inputs scaled or shifted by this much (the out-of-range trials) scale the absolute
    tolerance alike, since rounding errors grow with the values a kernel adds up. ``layout``: an output must be
    contiguous where the reference's is (``out.view(...)`` in the user's program works only then)."""
    if len(ref) != len(cand):
        return Check("output_structure", False, f"expected {len(ref)} output(s), got {len(cand)}")
    for i, (r, c) in enumerate(zip(ref, cand)):
        label = f"output {i}" if len(ref) > 1 else "output"
        if type(c) is not torch.Tensor:
            return Check("plain_tensor", False, f"{label} is a {type(c).__module__}.{type(c).__name__}, not a "
                                                "plain torch.Tensor")
        if c.layout != torch.strided:
            return Check("plain_tensor", False, f"{label} has layout {c.layout}, not a plain (dense, strided) "
                                                "torch.Tensor")
        if tuple(r.shape) != tuple(c.shape):
            return Check("output_structure", False, f"{label}: shape {tuple(c.shape)}, expected {tuple(r.shape)}")
        if r.dtype != c.dtype:
            return Check("output_structure", False, f"{label}: dtype {c.dtype}, expected {r.dtype}")
        if r.device.type != c.device.type:
            return Check("output_structure", False, f"{label}: on {c.device}, expected {r.device}")
        if layout and r.is_contiguous() and not c.is_contiguous():
            return Check("output_structure", False, f"{label}: not contiguous (strides {tuple(c.stride())}) where "
                                                    "the reference's is; out.view(...) would fail on it")
        tol = tolerance_for(r.dtype, override)
        if atol_scale != 1.0:
            tol = Tolerance(atol=tol.atol * atol_scale, rtol=tol.rtol, rel_l2=tol.rel_l2)
        failure = _compare_values(r, c, tol, label)
        e = exact[i] if exact is not None and i < len(exact) else None
        if failure is not None and failure.name == "values" and e is not None and e.shape == r.shape \
                and r.is_floating_point():
            max_error, l2_error = _errors(r, e)
            slack = EXACT_SLACK * max_error
            # a reference as far from float64 as the float64 values are large is rounding noise around ~0
            # (the mean of a normalised tensor): no relative error means anything there; elements keep atol
            rel_l2 = 0.0 if l2_error >= NOISE_ONLY else max(tol.rel_l2, EXACT_L2_SLACK * l2_error)
            widened = Tolerance(atol=tol.atol + slack, rtol=tol.rtol, rel_l2=rel_l2)
            if _compare_values(e.to(torch.float64), c, widened, label) is None:
                failure = None
            else:
                failure.detail += (f"; also against a float64 evaluation (the reference's own error there: "
                                   f"max {slack / EXACT_SLACK:.3g})")
        if failure is not None:
            return failure
    return None


COMPARE_CHUNK = 1 << 24   # elements compared at once, on the outputs' device


def _errors(approx: torch.Tensor, exact: torch.Tensor) -> tuple[float, float]:
    """(max abs error, relative L2 error) of ``approx`` against ``exact`` over their finite positions (others
    count as 0), in float64 chunks of ``COMPARE_CHUNK`` elements (GB-sized outputs: no whole float64 copy)."""
    a, e = approx.detach().reshape(-1), exact.detach().reshape(-1)
    max_diff = sq_diff = sq_exact = 0.0
    for start in range(0, a.numel(), COMPARE_CHUNK):
        ac, ec = a[start:start + COMPARE_CHUNK].double(), e[start:start + COMPARE_CHUNK].double()
        ac, ec = torch.where(torch.isfinite(ac), ac, 0.0), torch.where(torch.isfinite(ec), ec, 0.0)
        diff = (ac - ec).abs()
        max_diff = max(max_diff, float(diff.max()))
        sq_diff += float((diff * diff).sum())
        sq_exact += float((ec * ec).sum())
    if sq_exact > 0:
        return max_diff, math.sqrt(sq_diff) / math.sqrt(sq_exact)
    return max_diff, 0.0 if sq_diff == 0 else float("inf")


def _compare_values(r: torch.Tensor, c: torch.Tensor, tol: Tolerance, label: str) -> Check | None:
    """Compare on the outputs' device in chunks: exact for integers, tolerances for floats. Floats of at most
    float32's precision are compared in float32 (exact for bfloat16 and float16; a difference of two float32
    values is within half an ulp of itself), float64 in float64; the sums of squares accumulate in float64.
    Each chunk reads its scalars back in one transfer (on a GPU shared by several judges every read waits)."""
    if r.numel() == 0:
        return None
    if r.is_complex():                       # compare real and imaginary parts as pairs of reals
        r, c = torch.view_as_real(r.detach().resolve_conj()), torch.view_as_real(c.detach().resolve_conj())
    r, c = r.detach().reshape(-1), c.detach().reshape(-1)
    if not (r.dtype.is_floating_point or r.dtype.is_complex):
        if torch.equal(r, c):
            return None
        bad = int((r != c).sum())
        return Check("values", False, f"{label}: {bad} of {r.numel()} integer elements differ")
    work = torch.float64 if torch.float64 in (r.dtype, c.dtype) else torch.float32
    extra = missing = nonfinite_differ = bad = 0
    max_diff = sq_diff = sq_ref = 0.0
    worst = (float("-inf"), 0.0, 0.0)         # (excess over tolerance, candidate value, reference value)
    for start in range(0, r.numel(), COMPARE_CHUNK):
        rc, cc = r[start:start + COMPARE_CHUNK].to(work), c[start:start + COMPARE_CHUNK].to(work)
        rf, cf = torch.isfinite(rc), torch.isfinite(cc)
        extra_here, missing_here, all_finite = torch.stack(
            [(rf & ~cf).sum(), (~rf & cf).sum(), rf.all().long()]).tolist()
        if extra_here or missing_here:
            extra, missing = extra + extra_here, missing + missing_here
            continue
        if not all_finite:
            nonfinite = ~rf
            if not torch.equal(rc[nonfinite].nan_to_num(), cc[nonfinite].nan_to_num()):
                nonfinite_differ += 1
            rc, cc = torch.where(rf, rc, 0.0), torch.where(rf, cc, 0.0)
        diff = (rc - cc).abs()
        excess = diff - (tol.atol + tol.rtol * rc.abs())
        stats = torch.stack([(excess > 0).sum(dtype=torch.float64), diff.max().double(),   # norms in float64:
                             torch.linalg.vector_norm(diff, dtype=torch.float64),      # float32 squares of
                             torch.linalg.vector_norm(rc, dtype=torch.float64)])       # 1e20 overflow
        bad_here, max_here, norm_diff, norm_ref = stats.tolist()
        sq_diff_here, sq_ref_here = norm_diff * norm_diff, norm_ref * norm_ref
        bad += int(bad_here)
        if bad_here:                          # the worst element, for the message (a failing comparison only)
            i = int(torch.argmax(excess))
            if float(excess[i]) > worst[0]:
                worst = (float(excess[i]), float(cc[i]), float(rc[i]))
        max_diff = max(max_diff, max_here)
        sq_diff += sq_diff_here
        sq_ref += sq_ref_here
    if extra:
        return Check("finite", False, f"{label}: {extra} NaN/Inf where the reference is finite")
    if missing:
        return Check("finite", False, f"{label}: {missing} finite values where the reference has NaN/Inf")
    if nonfinite_differ:
        return Check("finite", False, f"{label}: NaN/Inf values differ from the reference's")
    if bad:
        return Check("values", False,
                     f"{label}: {bad} of {r.numel()} elements outside atol={tol.atol:g} rtol={tol.rtol:g} "
                     f"(max abs error {max_diff:.3g}; at the worst element {worst[1]:.6g} vs {worst[2]:.6g})")
    if sq_ref > 0 and tol.rel_l2 > 0:
        rel = (sq_diff / sq_ref) ** 0.5
        if rel > tol.rel_l2:
            return Check("values", False, f"{label}: relative L2 error {rel:.3g} exceeds {tol.rel_l2:.3g} although "
                                          "every element is within atol (outputs near zero are not enough)")
    return None


RANDOM_OP = torch.Tag.nondeterministic_seeded    # the aten ops that draw from a random generator
NATIVE_DROPOUT = torch.ops.aten.native_dropout.default


class RandomDrawMismatch(RuntimeError):
    """A replayed forward's random draws are not the recorded ones (another op, count or shape)."""


class _RandomDraws(TorchDispatchMode):
    """Sees every aten op a forward runs: records what each random op wrote (its outputs and the tensors it
    fills in place), or, given such a record, writes the recorded values instead, converted to the tensors'
    dtype. A float64 re-run of the reference then uses the very numbers its float32 run drew (float64 draws
    from the same generator state differ: ``randn`` reads 53 bits where float32 reads 24)."""

    def __init__(self, replay: list[tuple[Any, list[torch.Tensor]]] | None = None) -> None:
        super().__init__()
        self.replaying = replay is not None
        self.draws: list[tuple[Any, list[torch.Tensor]]] = replay if replay is not None else []
        self.used = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if RANDOM_OP not in func.tags:
            return out
        written = _written_tensors(func, args, kwargs, out)
        if not self.replaying:
            self.draws.append((func, [t.detach().clone() for t in written]))
            return out
        if self.used >= len(self.draws) or self.draws[self.used][0] is not func:
            raise RandomDrawMismatch(f"random op {func} is not the recorded run's next one")
        recorded = self.draws[self.used][1]
        self.used += 1
        if [tuple(t.shape) for t in written] != [tuple(r.shape) for r in recorded]:
            raise RandomDrawMismatch(f"random op {func} writes other shapes than in the recorded run")
        if func is NATIVE_DROPOUT and args[2] is not False:     # (output, mask): the output from the new input
            p = float(args[1])
            written[1].copy_(recorded[1])
            written[0].copy_(args[0] * recorded[1] * (0.0 if p >= 1 else 1.0 / (1.0 - p)))
        else:
            for tensor, values in zip(written, recorded):
                tensor.copy_(values)
        return out

    def finish(self) -> None:
        if self.replaying and self.used != len(self.draws):
            raise RandomDrawMismatch(f"{len(self.draws) - self.used} recorded random op(s) not drawn again")


def _written_tensors(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> list[torch.Tensor]:
    """The tensors a random op writes: the arguments it fills in place, then its tensor outputs."""
    written = []
    for i, argument in enumerate(func._schema.arguments):
        value = args[i] if i < len(args) else kwargs.get(argument.name)
        if argument.alias_info is not None and argument.alias_info.is_write and isinstance(value, torch.Tensor):
            written.append(value)
    outputs = out if isinstance(out, (tuple, list)) else (out,)
    return written + [o for o in outputs if isinstance(o, torch.Tensor)]


@contextlib.contextmanager
def recording_random_draws() -> Iterator[list[tuple[Any, list[torch.Tensor]]]]:
    """Yields the list of the block's random draws (op, values written), filled as the block runs."""
    mode = _RandomDraws()
    with mode:
        yield mode.draws


@contextlib.contextmanager
def replaying_random_draws(draws: list[tuple[Any, list[torch.Tensor]]]) -> Iterator[None]:
    """Inside the block, random ops write the recorded values of ``draws`` in order; a different op, shape or
    count raises ``RandomDrawMismatch`` (the block does not draw as the recorded run did)."""
    mode = _RandomDraws(draws)
    with mode:
        yield
    mode.finish()


def snapshot(inputs: list[Any]) -> list[Any]:
    """Deep copies of the tensor inputs, to detect mutation later (and give the candidate its own inputs): each
    in the same strides (``same_layout_copy``)."""
    return [same_layout_copy(x) if isinstance(x, torch.Tensor) else None for x in inputs]


def same_layout_copy(x: torch.Tensor) -> torch.Tensor:
    """A copy with ``x``'s sizes and strides: ``clone`` makes a slice of a wider tensor (not dense) contiguous,
    and a layout trial must hand the candidate the layout the reference got."""
    x = x.detach()
    copy = x.clone()
    if copy.stride() == x.stride() or 0 in x.stride():        # an expanded tensor: no memory of its own to copy
        return copy
    return torch.empty_strided(x.size(), x.stride(), dtype=x.dtype, device=x.device).copy_(x)


def mutated(inputs: list[Any], before: list[Any]) -> list[int]:
    """Indices of tensor inputs whose values changed since ``before``."""
    changed = []
    for i, (x, b) in enumerate(zip(inputs, before)):
        if b is None or torch.equal(x.detach(), b):
            continue
        same_nans = not x.is_floating_point() or torch.equal(torch.isnan(x.detach()), torch.isnan(b))
        if not (same_nans and torch.equal(x.detach().nan_to_num(), b.nan_to_num())):
            changed.append(i)
    return changed


def aliased_outputs(outputs: list[torch.Tensor], inputs: list[Any]) -> set[int]:
    """Indices of outputs that share storage with any tensor input (strided tensors only: a sparse output has
    no storage, and fails the plain-tensor check instead)."""
    def strided(x: Any) -> bool:
        return isinstance(x, torch.Tensor) and x.layout == torch.strided and x.numel() > 0

    input_storages = {x.untyped_storage().data_ptr() for x in inputs if strided(x)}
    return {i for i, o in enumerate(outputs) if strided(o) and o.untyped_storage().data_ptr() in input_storages}


def _programs(grid: Any) -> int:
    """How many programs a launch grid asks for (a number or a tuple of up to three)."""
    dims = grid if isinstance(grid, (tuple, list)) else (grid,)
    total = 1
    for d in dims:
        total *= int(d)
    return total


class LaunchCounter:
    """Counts Triton kernel launches in this process by wrapping the launch entry points: only launches
    that returned and whose grid has at least one program count.

    ``JITFunction.run`` (compiled) and ``InterpretedFunction.run`` (TRITON_INTERPRET=1) are where every
    ``kernel[grid](...)`` lands, autotuned and heuristic kernels included. Installed once per worker,
    before candidate code is imported; the guard forbids candidates from patching triton back.
    """

    def __init__(self) -> None:
        self.count = 0
        self.skip = False              # the ablation trial: launches return without running
        self.around: Callable[[str], None] | None = None    # called with "before" and "after" each launch
        self._installed = False

    def install(self) -> None:
        if self._installed:
            return
        from triton.runtime import jit

        classes = [jit.JITFunction]
        try:
            from triton.runtime.interpreter import InterpretedFunction
            classes.append(InterpretedFunction)
        except ImportError:  # pragma: no cover - every supported Triton has the interpreter
            pass
        for cls in classes:
            self._wrap(cls)
        self._installed = True

    def _wrap(self, cls: type) -> None:
        original = cls.run
        counter = self

        def run(fn_self: Any, *args: Any, **kwargs: Any) -> Any:
            if counter.skip and not kwargs.get("warmup", False):
                return None
            grid = kwargs.get("grid")
            sizes: list[Any] = []
            if callable(grid):
                def recording_grid(meta: Any) -> Any:
                    sizes.append(grid(meta))
                    return sizes[-1]
                kwargs["grid"] = recording_grid
            elif grid is not None:
                sizes.append(grid)
            around = None if kwargs.get("warmup", False) else counter.around
            if around is not None:
                around("before")
            result = original(fn_self, *args, **kwargs)      # a launch that raises is not counted
            if around is not None:
                around("after")
            if not kwargs.get("warmup", False) and sizes and _programs(sizes[-1]) > 0:
                counter.count += 1
            return result

        run.__wrapped__ = original  # type: ignore[attr-defined]
        cls.run = run

    @contextlib.contextmanager
    def skipping(self) -> Iterator[None]:
        """Within the block, Triton launches do nothing (to see whether the outputs depend on them)."""
        self.skip = True
        try:
            yield
        finally:
            self.skip = False

    @contextlib.contextmanager
    def surrounding(self, action: Callable[[str], None]) -> Iterator[None]:
        """Within the block, ``action("before")`` and ``action("after")`` run just before and just after each
        Triton launch (the two streams trial stalls one stream there)."""
        self.around = action
        try:
            yield
        finally:
            self.around = None

    @contextlib.contextmanager
    def counting(self) -> Iterator[list[int]]:
        """Yields a one-element list that holds the launches made inside the block when it exits."""
        start = self.count
        box = [0]
        try:
            yield box
        finally:
            box[0] = self.count - start
