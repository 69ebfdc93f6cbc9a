"""The baseline process: eager PyTorch and torch.compile timed where no candidate has ever run.

Run as ``python -m adaexplore_core.judge.baseline DEVICE WORKDIR`` by the pool, one per GPU. It runs only the
user's reference (trusted as the user's own program) and torch.compile, so it is not sandboxed. ``prepare``
builds a task's reference, compiles it and finds the roofline's inputs (least bytes and flops, the device's
peaks); ``measure`` times one of the two on fresh inputs with the same loop as the candidate's
(``timing.measure``). Base input sets are made for each measurement and freed after it, so this process holds
only weights and compiled code between rounds.
"""
from __future__ import annotations

import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from ..task import TaskError, TaskSpec, load_task
from . import roofline
from .timing import FreshInputs, Measurement, input_set_count, measure
from .worker import Channel, _describe, gpu_environment, prepare_process, use_gpu

# 8-bit dtypes (those this torch has): their products run faster than the tensor-core peak the floor uses
EIGHT_BIT = (torch.int8, torch.uint8) + tuple(d for d in (getattr(torch, n, None) for n in (
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")) if d is not None)


@dataclass
class Prepared:
    task: Any
    reference: Any
    compiled: Any = None
    note: str = ""
    facts: dict[str, Any] = field(default_factory=dict)


class Baselines:
    """The tasks prepared in this process, by task key."""

    def __init__(self, device: str) -> None:
        self.device = torch.device(device)
        self.prepared: dict[str, Prepared] = {}
        self.peaks: roofline.Peaks | None = None

    def prepare(self, spec: TaskSpec, seed: int) -> dict[str, Any]:
        key = spec.key()
        if key not in self.prepared:
            task = load_task(spec)
            reference = task.build(task.model_class, seed, self.device)
            prepared = Prepared(task, reference)
            sets = self._sets(task, random.Random(seed))
            try:
                compiled = torch.compile(reference)
                with torch.no_grad():
                    for inputs in sets:
                        compiled(*inputs)
                torch.cuda.synchronize(self.device)
                prepared.compiled, prepared.note = compiled, "torch.compile default mode"
            except Exception as e:  # noqa: BLE001 - a baseline that cannot compile is reported, not fatal
                prepared.note = f"torch.compile failed: {_describe(e)}"
            prepared.facts = self._roofline(reference, sets[0])
            self.prepared[key] = prepared
            del sets
            torch.cuda.empty_cache()
        p = self.prepared[key]
        return {"compiled": p.compiled is not None, "note": p.note, **p.facts}

    def _sets(self, task: Any, rng: random.Random) -> list[list[Any]]:
        first = task.make_inputs(rng.getrandbits(62), self.device)
        return [first] + [task.make_inputs(rng.getrandbits(62), self.device)
                          for _ in range(input_set_count(first) - 1)]

    def _roofline(self, reference: Any, sample: list[Any]) -> dict[str, Any]:
        """The task's least bytes and flops, and the device's peaks (once). Best effort: a failure leaves the
        roofline out of the verdict, never the timing."""
        try:
            inputs = [x.clone() if isinstance(x, torch.Tensor) else x for x in sample]
            with torch.no_grad():
                outputs = reference(*inputs)
            facts = {"min_bytes": roofline.min_bytes(inputs, outputs, reference),
                     "flops": roofline.count_flops(reference, inputs)}
            if self.peaks is None:
                self.peaks = roofline.measure_peaks(self.device)
            facts.update(peak_gbps=self.peaks.bandwidth_gbps, peak_tflops=self.peaks.fp32_tflops,
                         peak_tensor_tflops=self.peaks.tensor_tflops)
            tensors = [x for x in inputs if isinstance(x, torch.Tensor)]     # 8-bit products run faster: no floor
            facts["floating"] = any(x.is_floating_point() for x in tensors) and not any(
                x.dtype in EIGHT_BIT for x in tensors)
            # the fp32 compute floor holds only with TF32 off for everyone: with TF32 allowed (the user's
            # opt-in, KernelBench's protocol), a tl.dot in TF32 passes the tolerance and runs far above it
            facts["fp32_only"] = os.environ.get("ADAEXPLORE_ALLOW_TF32", "0") == "0" and all(
                x.dtype == torch.float32 for x in inputs if isinstance(x, torch.Tensor) and x.is_floating_point())
            return facts
        except Exception:  # noqa: BLE001 - e.g. out of memory for the probes, an op FlopCounterMode rejects
            return {}

    def measure(self, key: str, which: str, seed: int) -> Measurement:
        prepared = self.prepared[key]
        model = prepared.compiled if which == "compiled" else prepared.reference
        rng = random.Random(seed)
        fresh = FreshInputs(self._sets(prepared.task, rng), rng.getrandbits(62))
        m = measure(model, fresh, self.device)
        del fresh
        torch.cuda.empty_cache()
        return m


def main() -> int:
    channel = Channel()
    device = sys.argv[1]
    workdir = Path(sys.argv[2])
    workdir.mkdir(parents=True, exist_ok=True)
    os.chdir(workdir)
    prepare_process()
    use_gpu(device, float(os.environ.get("ADAEXPLORE_BASELINE_MEMORY_FRACTION", "0.9")))
    baselines = Baselines(device)
    channel.send(type="ready", env=gpu_environment(device))
    while True:
        message = channel.receive()
        if message is None:
            return 0
        kind = message.get("type")
        try:
            if kind == "prepare":
                facts = baselines.prepare(TaskSpec(**message["task"]), int(message["seed"]))
                channel.send(type="prepared", **facts)
            elif kind == "measure":
                m = baselines.measure(message["key"], message["which"], int(message["seed"]))
                channel.send(type="samples", samples=m.samples, host_ms=m.host_ms, uncovered=m.uncovered)
        except (TaskError, Exception) as e:  # noqa: BLE001 - the pool reports it as the judge's error
            channel.send(type="failed", reason=_describe(e))


if __name__ == "__main__":
    sys.exit(main())
