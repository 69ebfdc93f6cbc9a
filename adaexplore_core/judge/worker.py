"""The judge worker: a subprocess that loads, checks and times candidates, one request at a time.

Run as ``python -m adaexplore_core.judge.worker`` by the pool. It keeps tasks and their eager and
torch.compile baselines warm between requests; it exits after a CUDA error (the context is lost).
Stages, each returning a failing Verdict or passing on: load -> build and weights -> trials ->
timing -> a trial after timing. Candidate code runs only here.
"""
from __future__ import annotations

import contextlib
import copy
import os
import random
import resource
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import torch

from ..task import TaskError, TaskSpec, flatten_outputs, import_file, load_task
from .correctness import (LaunchCounter, Tolerance, aliased_outputs, compare_outputs, is_relative_l2_failure, mutated,
                          relative_l2, snapshot)
from . import roofline
from .protocol import JudgeRequest, decode, encode
from .timing import input_set_count, measure
from .verdict import VALID, Check, Timing, Verdict, error, invalid

LOG_LIMIT_BYTES = 64 << 20   # stderr floods stop here (writes then fail inside the candidate)
SPEEDUP_RECHECK = 10.0       # speedups above this are re-verified with extra trials
EXTRA_TRIALS = 5


class Channel:
    """The worker's end of the protocol, on private duplicates of fds 0 and 1."""

    def __init__(self) -> None:
        self._in = os.fdopen(os.dup(0), "rb", buffering=0)
        self._out = os.fdopen(os.dup(1), "wb", buffering=0)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)          # candidate code cannot read requests
        os.dup2(devnull, 1)          # ...nor write into the protocol: prints vanish
        os.close(devnull)
        self._pending = b""

    def send(self, **message: Any) -> None:
        self._out.write(encode(message))

    def receive(self) -> dict[str, Any] | None:
        while b"\n" not in self._pending:
            chunk = self._in.read(65536)
            if not chunk:
                return None
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return decode(line)


@dataclass
class Baseline:
    """A task's eager and torch.compile measurements in this worker (timed once, reused)."""

    eager: Any = None
    compiled: Any = None
    compiled_model: Any = None
    compile_note: str = ""
    min_bytes: int | None = None               # the roofline's least traffic and work (see roofline.py)
    flops: int | None = None


@dataclass
class WorkerState:
    channel: Channel
    workdir: Path
    tasks: dict[str, Any] = field(default_factory=dict)
    baselines: dict[tuple[str, str], Baseline] = field(default_factory=dict)
    peaks: dict[str, Any] = field(default_factory=dict)    # device -> roofline.Peaks, measured once
    counter: Any = None
    env: dict[str, Any] = field(default_factory=dict)
    fatal: bool = False


class Failed(Exception):
    """Carries the Verdict that ends judging of this candidate."""

    def __init__(self, verdict: Any) -> None:
        super().__init__(verdict.reason)
        self.verdict = verdict


def set_precision(allow_tf32: bool) -> None:
    """fp32 means fp32 for the reference, the baselines and the candidate alike: TF32 is off for cuBLAS and
    cuDNN (torch's own default leaves it on for cuDNN convolutions) unless the user opts in."""
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    torch.backends.cudnn.allow_tf32 = allow_tf32
    torch.set_float32_matmul_precision("high" if allow_tf32 else "highest")


def environment(device: str) -> dict[str, Any]:
    """The environment fingerprint reported with every verdict."""
    import platform

    import triton

    env: dict[str, Any] = {"device": device, "torch": torch.__version__, "triton": triton.__version__,
                           "python": platform.python_version(), "cuda": torch.version.cuda,
                           "tf32": torch.backends.cudnn.allow_tf32}
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(torch.device(device))
        env["gpu"] = props.name
        env["capability"] = f"{props.major}.{props.minor}"
    else:
        env["gpu"] = None
        env["triton_interpreter"] = os.environ.get("TRITON_INTERPRET") == "1"
    return env


def _describe(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    first = text[0] if text else ""
    for line in text:                     # Triton puts the useful line last
        if "Error" in line or "error" in line:
            first = line.strip()
    return f"{type(e).__name__}: {first}"[:500]


def _is_compile_error(e: BaseException) -> bool:
    names = {c.__module__ + "." + c.__name__ for c in type(e).__mro__}
    return any(n.startswith("triton.compiler") or "CompilationError" in n for n in names)


def _is_cuda_fatal(e: BaseException) -> bool:
    text = str(e)
    return "CUDA error" in text or "cudaError" in text or "illegal memory access" in text or \
        "device-side assert" in text


def installed_global_hooks() -> list[str]:
    """Names of torch's global module hook tables that are not empty (none should be, ever)."""
    from torch.nn.modules import module

    return [name for name, table in vars(module).items()
            if name.startswith("_global_") and isinstance(table, dict) and table]


def clear_global_hooks() -> None:
    from torch.nn.modules import module

    for name in installed_global_hooks():
        getattr(module, name).clear()


def _run_candidate(state: WorkerState, fn: Callable[[], Any], what: str) -> Any:
    """Run candidate code; turn any exception into a Failed verdict of the right stage."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - every failure of candidate code is a verdict
        if _is_cuda_fatal(e):
            state.fatal = True
        stage = "compile" if _is_compile_error(e) else "runtime"
        detail = _describe(e)
        check = Check("compiles" if stage == "compile" else "runs", False, detail)
        verb = "failed to compile a Triton kernel" if stage == "compile" else "raised"
        raise Failed(invalid(stage, f"The candidate {what} {verb}: {detail}", [check])) from e


class BufferStates:
    """A module pair's buffers around one trial. The candidate's buffers that share a name and shape with the
    reference's start from the reference's values (timing runs may have moved them apart); ``changed()``
    then reads the buffers again by name (a forward may rebind a buffer rather than update it in place) and
    says which each forward changed."""

    def __init__(self, reference: torch.nn.Module, candidate: torch.nn.Module) -> None:
        self._modules = (reference, candidate)
        ref, cand = dict(reference.named_buffers()), dict(candidate.named_buffers())
        self.shared = []
        with torch.no_grad():
            for name, buf in ref.items():
                if name in cand and cand[name].shape == buf.shape:
                    try:
                        cand[name].copy_(buf)
                    except RuntimeError:       # a buffer that cannot be written (an expanded view): compared only
                        pass
                    self.shared.append(name)
        self._ref_names = list(ref)
        self._ref_before = snapshot(list(ref.values()))
        self._cand_before = snapshot([cand[n] for n in self.shared])
        self.reference, self.candidate = ref, cand

    def changed(self) -> tuple[list[str], list[str]]:
        """(reference buffers changed, shared candidate buffers changed), by name, as the buffers are now."""
        reference, candidate = self._modules
        self.reference, self.candidate = dict(reference.named_buffers()), dict(candidate.named_buffers())
        missing = torch.tensor([])
        ref_now = [self.reference.get(n, missing) for n in self._ref_names]
        cand_now = [self.candidate.get(n, missing) for n in self.shared]
        ref = [self._ref_names[i] for i in mutated(ref_now, self._ref_before)]      # a new shape counts too
        cand = [self.shared[i] for i in mutated(cand_now, self._cand_before)]
        return ref, cand

    def restore_reference(self, model: torch.nn.Module) -> None:
        """Put the reference's pre-trial buffer values into ``model`` (a copy of the reference)."""
        buffers = dict(model.named_buffers())
        with torch.no_grad():
            for name, before in zip(self._ref_names, self._ref_before):
                if name in buffers and before is not None and buffers[name].shape == before.shape:
                    buffers[name].copy_(before)


class Judging:
    """Judges one request; methods are the stages, in order."""

    def __init__(self, state: WorkerState, request: JudgeRequest) -> None:
        self.state = state
        self.request = request
        self.spec = TaskSpec(**request.task)
        self.device = torch.device(request.device)
        self.tolerance = Tolerance(**request.tolerance) if request.tolerance else None
        self.checks: list[Check] = []
        self.trials_done = 0
        self.last_launches = 0            # Triton launches in the last trial's forward
        self.last_inputs: list[Any] = []  # the last trial's inputs, untouched (reused as a timing set)
        self.updated_buffers: set[str] = set()   # reference buffers its forward changes (running statistics)
        rng = random.Random(request.seed)
        self.seeds = [rng.getrandbits(62) for _ in range(request.trials + EXTRA_TRIALS + 8)]

    def pass_check(self, name: str, detail: str = "") -> None:
        self.checks.append(Check(name, True, detail))

    def fail(self, stage: str, name: str, detail: str, reason: str) -> Failed:
        return Failed(invalid(stage, reason, self.checks + [Check(name, False, detail)]))

    @contextlib.contextmanager
    def gpu(self, exclusive: bool) -> Iterator[None]:
        """Hold the device: shared for correctness trials, exclusive for timing. No-op on the CPU.

        The candidate's clock stops while waiting; the pool grants access in order, timing first."""
        if self.device.type != "cuda":
            yield
            return
        channel = self.state.channel
        channel.send(type="clock", running=False)
        channel.send(type="acquire", exclusive=exclusive)
        go = channel.receive()
        if go is None or go.get("type") != "go":
            raise SystemExit(0)                   # the pool went away
        channel.send(type="clock", running=True)
        try:
            yield
        finally:
            channel.send(type="release")

    def sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    # stage: the task
    def load_task(self) -> Any:
        key = self.spec.key()
        task = self.state.tasks.get(key)
        if task is None:
            try:
                task = load_task(self.spec)
                task.init_args()
            except TaskError as e:
                raise Failed(error("reference", str(e))) from e
            self.state.tasks[key] = task
        return task

    # stage: import the candidate and build ModelNew with the reference's weights
    def load_candidate(self, task: Any) -> tuple[Any, Any, bool]:
        path = self.state.workdir / f"candidate_{self.request.id}.py"
        path.write_text(self.request.candidate_source, encoding="utf-8")
        module = _run_candidate(self.state, lambda: import_file(str(path), prefix="adaexplore_candidate"),
                                "module")
        model_new = getattr(module, "ModelNew", None)
        if not (isinstance(model_new, type) and issubclass(model_new, torch.nn.Module)):
            raise self.fail("load", "load", "ModelNew is not an nn.Module class",
                            "The candidate's ModelNew is not a torch.nn.Module class")
        if installed_global_hooks():
            clear_global_hooks()
            raise self.fail("load", "load", "global module hooks installed at import",
                            "The candidate installed global module hooks (they would alter the reference too)")
        self.pass_check("load", "module imported")
        seed = self.seeds[-1]
        try:
            reference = task.build(task.model_class, seed, self.device)
        except TaskError as e:
            raise Failed(error("reference", str(e))) from e
        except Exception as e:  # noqa: BLE001
            raise Failed(error("reference", f"constructing the reference raised {_describe(e)}")) from e
        try:
            candidate = _run_candidate(self.state, lambda: task.build(model_new, seed, self.device),
                                       "constructor")
        except Failed as f:
            f.verdict.stage = "load"
            raise
        ref_state, cand_state = reference.state_dict(), candidate.state_dict()
        same = ref_state.keys() == cand_state.keys() and all(
            ref_state[k].shape == cand_state[k].shape for k in ref_state)
        if same:
            candidate.load_state_dict(ref_state)
            self.pass_check("weights", f"reference state_dict loaded ({len(ref_state)} tensors); "
                                       "checkpoint-compatible")
        else:
            only_ref = sorted(set(ref_state) - set(cand_state))[:3]
            self.pass_check("weights", "state_dict keys or shapes differ from the reference (e.g. "
                                       f"{', '.join(only_ref) or 'shapes'}); both built under one seed; "
                                       "checkpoints will not load")
        return reference, candidate, same

    # stage: one trial on fresh inputs
    def trial(self, task: Any, reference: Any, candidate: Any, index: int) -> None:
        ref_in = task.make_inputs(self.seeds[index], self.device)   # fresh: the reference may use them as is
        originals = snapshot(ref_in)
        buffers = BufferStates(reference, candidate)
        cand_in = [c if c is not None else x for c, x in zip(snapshot(ref_in), ref_in)]

        def run_reference() -> list[Any]:
            try:
                out = flatten_outputs(reference(*ref_in), "the reference's")
            except TaskError as e:
                raise Failed(error("reference", str(e))) from e
            self.sync()
            return out

        def run_candidate() -> tuple[list[Any], int]:
            self._poison_allocator(ref_in)
            with self.state.counter.counting() as launches:
                raw = _run_candidate(self.state, lambda: candidate(*cand_in), "forward")
                _run_candidate(self.state, self.sync, "forward")
            try:
                return flatten_outputs(raw, "the candidate's"), launches[0]
            except TaskError as e:
                raise self.fail("correctness", "output_structure", str(e), f"Trial {index + 1}: {e}") from e

        with torch.no_grad():
            if index % 2 == 0:              # alternate which model runs first
                ref_out = run_reference()
                cand_out, launches = run_candidate()
            else:
                cand_out, launches = run_candidate()
                ref_out = run_reference()
        label = f"trial {index + 1}"
        if installed_global_hooks():
            clear_global_hooks()
            raise self.fail("correctness", "no_global_hooks", f"{label}: global module hooks installed",
                            "The candidate installed global module hooks (they would alter the reference too)")
        if launches == 0:
            raise self.fail("correctness", "triton_launched", f"{label}: no Triton kernel launched",
                            "The candidate's forward launched no Triton kernel: it must compute with its own "
                            "Triton kernels, not only with PyTorch")
        mismatch = compare_outputs(ref_out, cand_out, self.tolerance)
        if mismatch is not None and is_relative_l2_failure(mismatch):
            noise = self._reference_noise(reference, originals, ref_in, ref_out, buffers)
            if noise is not None:
                mismatch = compare_outputs(ref_out, cand_out, self.tolerance, noise)
        if mismatch is not None:
            mismatch.detail = f"{label}: {mismatch.detail}"
            raise Failed(invalid(
                "correctness", f"Output differs from the reference on fresh inputs ({mismatch.detail})",
                self.checks + [mismatch]))
        ref_changed, cand_changed = mutated(ref_in, originals), mutated(cand_in, originals)
        if cand_changed and not ref_changed:
            raise self.fail("correctness", "inputs_unchanged", f"{label}: input(s) {cand_changed} modified",
                            f"The candidate modified its input(s) {cand_changed}; the reference does not")
        if ref_changed:
            ref_inputs = [x for x in ref_in if isinstance(x, torch.Tensor)]
            cand_inputs = [x for x in cand_in if isinstance(x, torch.Tensor)]
            if compare_outputs(ref_inputs, cand_inputs, self.tolerance) is not None:
                raise self.fail("correctness", "inputs_unchanged", f"{label}: inputs mutated differently",
                                "The reference modifies its inputs in place and the candidate does not do "
                                "the same")
        self.check_state(buffers, label)
        allowed = aliased_outputs(ref_out, ref_in)
        cand_alias = aliased_outputs(cand_out, cand_in) - allowed
        if cand_alias:
            raise self.fail("correctness", "no_aliasing", f"{label}: output(s) {sorted(cand_alias)} share memory "
                                                          "with an input",
                            "The candidate returns a view of its input where the reference returns new memory")
        self.trials_done += 1
        self.last_launches = launches
        self.last_inputs = [o if o is not None else x for o, x in zip(originals, ref_in)]   # pristine copies

    def check_state(self, buffers: BufferStates, label: str) -> None:
        """The buffers the reference's forward changed (running statistics, counters) must change the same
        way in the candidate, and the candidate must not change reference-named buffers the reference
        leaves alone."""
        changed, cand_changed = buffers.changed()
        self.updated_buffers.update(changed)
        missing = [n for n in changed if n not in buffers.shared or n not in buffers.candidate]
        if missing:
            raise self.fail("correctness", "state", f"{label}: the candidate has no buffer {missing[0]!r} of that "
                                                    "shape",
                            f"The reference's forward updates its buffer(s) {', '.join(missing[:3])} (running "
                            "statistics, counters); the candidate must keep them under the same names and update "
                            "them the same way")
        for name in changed:
            mismatch = compare_outputs([buffers.reference[name]], [buffers.candidate[name]], self.tolerance)
            if mismatch is not None:
                detail = mismatch.detail.replace("output", f"buffer {name}", 1)
                raise self.fail("correctness", "state", f"{label}: {detail}",
                                f"The candidate updates the module's buffer {name!r} differently from the "
                                f"reference ({detail})")
        extra = [n for n in cand_changed if n not in changed]
        if extra:
            raise self.fail("correctness", "state", f"{label}: buffer(s) {extra[:3]} changed",
                            f"The candidate's forward changes the module's buffer(s) {', '.join(extra[:3])}; the "
                            "reference's does not")

    def _reference_noise(self, reference: Any, originals: list[Any], ref_in: list[Any],
                         ref_out: list[Any], buffers: BufferStates) -> list[float] | None:
        """Per output, how far the reference itself is from a float64 run of it (None if that cannot run),
        from the buffer values the trial started with."""
        try:
            exact_model = copy.deepcopy(reference)
            buffers.restore_reference(exact_model)
            exact_model = exact_model.double()
            inputs = [o.double() if o is not None and o.is_floating_point() else (o if o is not None else x)
                      for o, x in zip(originals, ref_in)]
            with torch.no_grad():
                exact = flatten_outputs(exact_model(*inputs), "the float64 reference's")
        except Exception:  # noqa: BLE001 - no second opinion; the first verdict stands
            return None
        return [relative_l2(r, e) if r.is_floating_point() and r.shape == e.shape else 0.0
                for r, e in zip(ref_out, exact)]

    def _poison_allocator(self, inputs: list[Any]) -> None:
        """Fill freed CUDA cache blocks with NaN so an unwritten output cannot inherit old results."""
        if self.device.type != "cuda":
            return
        nbytes = sum(x.numel() * x.element_size() for x in inputs if isinstance(x, torch.Tensor))
        poison = torch.full((max(nbytes, 1 << 20) // 4 * 2,), float("nan"), device=self.device)
        del poison

    # stage: timing (CUDA only)
    def time(self, task: Any, reference: Any, candidate: Any) -> Timing:
        sample = self.last_inputs                 # the last trial's inputs, untouched: no need to make them again
        extra_seeds = self.seeds[self.request.trials + EXTRA_TRIALS:-1]
        sets = [sample] + [task.make_inputs(s, self.device) for s in extra_seeds[:input_set_count(sample) - 1]]
        channel = self.state.channel
        key = (self.spec.key(), str(self.device))
        baseline = self.state.baselines.get(key)
        if baseline is None:
            channel.send(type="clock", running=False)      # baselines are the task's time, not the candidate's
            with self.gpu(exclusive=False):                # torch.compile compiles here, beside other trials
                baseline = self._prepare_baseline(reference, sets)
            with self.gpu(exclusive=True):
                baseline.eager = measure(reference, sets, self.device)
                if baseline.compiled_model is not None:
                    baseline.compiled = measure(baseline.compiled_model, sets, self.device)
                self._roofline_inputs(baseline, reference, sample)
            self.state.baselines[key] = baseline
            channel.send(type="clock", running=True)
        with self.gpu(exclusive=True):
            cand = measure(_run_guarded(self.state, candidate), sets, self.device)
        eager, compiled = baseline.eager, baseline.compiled
        timing = Timing(
            candidate_ms=cand.median_ms, candidate_iqr_ms=cand.iqr_ms,
            eager_ms=eager.median_ms, eager_iqr_ms=eager.iqr_ms,
            compile_ms=compiled.median_ms if compiled else None,
            compile_iqr_ms=compiled.iqr_ms if compiled else None,
            speedup_vs_eager=eager.median_ms / cand.median_ms,
            speedup_vs_compile=(compiled.median_ms / cand.median_ms) if compiled else None,
            iterations=cand.iterations, input_sets=len(sets), compile_note=baseline.compile_note,
        )
        peaks = self.state.peaks.get(str(self.device))
        if peaks is not None and baseline.min_bytes is not None and baseline.flops is not None:
            timing.roofline_fraction, timing.roofline_bound = roofline.fraction(
                baseline.min_bytes, baseline.flops, peaks, cand.median_ms)
            timing.min_bytes, timing.flops = baseline.min_bytes, baseline.flops
            timing.peak_gbps, timing.peak_tflops = peaks.bandwidth_gbps, peaks.fp32_tflops
        return timing

    def _roofline_inputs(self, baseline: Baseline, reference: Any, sample: list[Any]) -> None:
        """The task's least bytes and flops, and the device's peaks (once per worker). Best effort: a
        failure here leaves the roofline out of the verdict, never the timing."""
        try:
            inputs = [x.clone() if isinstance(x, torch.Tensor) else x for x in sample]
            with torch.no_grad():
                outputs = reference(*inputs)
            baseline.min_bytes = roofline.min_bytes(inputs, outputs, reference)
            baseline.flops = roofline.count_flops(reference, inputs)
            if str(self.device) not in self.state.peaks:
                self.state.peaks[str(self.device)] = roofline.measure_peaks(self.device)
        except Exception:  # noqa: BLE001 - e.g. out of memory for the probes, an op FlopCounterMode rejects
            baseline.min_bytes = baseline.flops = None

    def _prepare_baseline(self, reference: Any, sets: list[list[Any]]) -> Baseline:
        """torch.compile the reference and run it once per input set (compilation), without timing."""
        baseline = Baseline()
        try:
            compiled = torch.compile(reference)
            with torch.no_grad():
                for inputs in sets:
                    compiled(*inputs)
            self.sync()
            baseline.compiled_model = compiled
            baseline.compile_note = "torch.compile default mode"
        except Exception as e:  # noqa: BLE001 - a baseline that cannot compile is reported, not fatal
            baseline.compile_note = f"torch.compile failed: {_describe(e)}"
        return baseline


def _run_guarded(state: WorkerState, model: Any) -> Callable[..., Any]:
    def call(*inputs: Any) -> Any:
        return _run_candidate(state, lambda: model(*inputs), "forward (while timed)")
    return call


def judge(state: WorkerState, request: JudgeRequest) -> Verdict:
    """Judge one candidate; always returns a Verdict."""
    started = time.monotonic()
    channel = state.channel
    job = Judging(state, request)
    timing, note = None, ""
    compatible = None
    try:
        channel.send(type="clock", running=False)
        task = job.load_task()
        channel.send(type="clock", running=True)
        reference, candidate, compatible = job.load_candidate(task)
        with job.gpu(exclusive=False):
            for i in range(request.trials):
                job.trial(task, reference, candidate, i)
        job.pass_check("correctness", f"{request.trials} trials on fresh random inputs matched the reference")
        if job.updated_buffers:
            job.pass_check("state", f"buffers the forward updates ({', '.join(sorted(job.updated_buffers)[:4])}) "
                                    "matched the reference after every trial")
        job.pass_check("triton_launched", f"{job.last_launches} Triton launch(es) per forward")
        if request.timing and job.device.type == "cuda":
            timing = job.time(task, reference, candidate)
            extra = 1 + (EXTRA_TRIALS if timing.speedup_vs_eager > SPEEDUP_RECHECK else 0)
            with job.gpu(exclusive=False):
                for i in range(extra):
                    job.trial(task, reference, candidate, request.trials + i)
            job.pass_check("after_timing", f"{extra} more trial(s) after timing matched")
        elif job.device.type != "cuda":
            note = "not measured (no GPU): correctness checked in the Triton interpreter"
        else:
            note = "not measured (timing off)"
        reason = "Validated: matches the reference on fresh inputs and runs Triton"
        if timing:
            reason += f"; {timing.speedup_vs_eager:.2f}x vs eager"
            if timing.speedup_vs_compile:
                reason += f", {timing.speedup_vs_compile:.2f}x vs torch.compile"
        verdict = Verdict(verdict=VALID, reason=reason, stage="ok", checks=job.checks,
                          checkpoint_compatible=compatible, timing=timing, timing_note=note)
    except Failed as f:
        verdict = f.verdict
        verdict.checkpoint_compatible = compatible
    except Exception as e:  # noqa: BLE001 - a bug in the judge must still answer
        verdict = error("internal", f"The judge failed: {_describe(e)}", log_tail=traceback.format_exc()[-2000:])
    verdict.env = state.env
    verdict.trials = job.trials_done
    verdict.seconds = round(time.monotonic() - started, 3)
    return verdict


def _limit_log_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # oversized writes fail instead of killing us
    resource.setrlimit(resource.RLIMIT_FSIZE, (LOG_LIMIT_BYTES, LOG_LIMIT_BYTES))


def main() -> int:
    channel = Channel()
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    if device == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        print("a CPU judge worker needs TRITON_INTERPRET=1 set before it starts", file=sys.stderr)
        return 2
    _limit_log_size()
    workdir = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="adaexplore-judge-"))
    workdir.mkdir(parents=True, exist_ok=True)
    os.chdir(workdir)
    counter = LaunchCounter()
    counter.install()
    set_precision(allow_tf32=os.environ.get("ADAEXPLORE_ALLOW_TF32") == "1")
    if device.startswith("cuda"):
        torch.cuda.set_device(torch.device(device))
        fraction = float(os.environ.get("ADAEXPLORE_GPU_MEMORY_FRACTION", "0.45"))
        torch.cuda.set_per_process_memory_fraction(fraction, torch.device(device))
    state = WorkerState(channel=channel, workdir=workdir, counter=counter, env=environment(device))
    channel.send(type="ready", env=state.env)
    while not state.fatal:
        message = channel.receive()
        if message is None:
            break
        if message.get("type") != "judge":
            continue
        request = JudgeRequest.from_message(message)
        verdict = judge(state, request)
        channel.send(type="verdict", id=request.id, nonce=request.nonce, verdict=verdict.to_dict(),
                     fatal=state.fatal)
        for name in [n for n in sys.modules if n.startswith("adaexplore_candidate")]:
            del sys.modules[name]
    return 0


if __name__ == "__main__":
    sys.exit(main())
