"""Verdict: the judge's answer about one candidate, as plain data with a JSON round trip.

Stages name where judging stopped; the search's reward reads them ("guard" and "compile" failures
earn nothing, a candidate that runs but is wrong earns a little).
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

VALID, INVALID, ERROR = "valid", "invalid", "error"

# Where judging stopped. "ok" for valid candidates; "reference" and "internal" come with verdict "error"
# (the judge could not judge), every other stage with "invalid" (the candidate is at fault).
STAGES = (
    "ok",
    "guard",        # static checks on the source, before any candidate code runs
    "load",         # importing the candidate file or building ModelNew failed
    "compile",      # a Triton kernel failed to compile
    "runtime",      # the forward raised
    "correctness",  # it ran but computed something else (or broke a rule: aliasing, mutation, no Triton)
    "timeout",      # the wall-clock limit ran out; the worker was killed
    "crash",        # the worker process died (segfault, os._exit, CUDA fatal error)
    "memory",       # the memory limit was exceeded; the worker was killed
    "reference",    # the task itself is broken: verdict "error"
    "internal",     # the judge failed: verdict "error"
)


# The check a verdict carries when the candidate's own raise or assert ended it: its message is the candidate's
# text, from which memory/distill.py learns no rule.
OWN_EXCEPTION = "own_exception"

@dataclass
class Check:
    """One named check and its outcome; ``detail`` says what was seen."""

    name: str
    passed: bool
    detail: str = ""


@dataclass
class Timing:
    """Median milliseconds per forward, with the interquartile range as spread, and speedups with intervals."""

    candidate_ms: float
    candidate_iqr_ms: float
    eager_ms: float
    eager_iqr_ms: float
    compile_ms: float | None
    compile_iqr_ms: float | None
    speedup_vs_eager: float
    speedup_vs_compile: float | None
    iterations: int
    input_sets: int
    compile_note: str = ""
    roofline_fraction: float | None = None   # lower-bound roofline time / candidate time (see roofline.py)
    roofline_bound: str = ""                 # "memory" or "compute"
    min_bytes: int | None = None
    flops: int | None = None
    peak_gbps: float | None = None
    peak_tflops: float | None = None
    speedup_vs_eager_low: float | None = None    # 95 % interval of the speedups (stats.speedup)
    speedup_vs_eager_high: float | None = None
    speedup_vs_compile_low: float | None = None
    speedup_vs_compile_high: float | None = None
    rounds: int = 0                              # timing rounds interleaved with the baselines
    group: int = 1                               # candidates timed in the same rounds (sharing the baselines')
    group_seconds: float | None = None           # the group's time holding the GPU alone
    # the host's median ms to launch one call (the device's times above hide it: timing.py)
    candidate_host_ms: float | None = None
    eager_host_ms: float | None = None
    compile_host_ms: float | None = None
    uncovered_calls: int = 0                     # timed calls whose launch outlasted the spin queued before them

    def host_bound(self) -> bool:
        """Whether launching one call takes the host longer than the device takes to run it."""
        return self.candidate_host_ms is not None and self.candidate_host_ms > self.candidate_ms

    def faster_than_eager(self) -> bool:
        """Faster only when the whole interval says so, and in a loop of calls too (schema.report)."""
        from ..schema.report import host_bound_in_a_loop
        low = self.speedup_vs_eager_low
        return (low if low is not None else self.speedup_vs_eager) > 1.0 and not host_bound_in_a_loop(dataclasses.asdict(self))


@dataclass
class Verdict:
    """The judge's answer. ``verdict`` is valid, invalid or error; ``reason`` is one human sentence."""

    verdict: str
    reason: str
    stage: str
    checks: list[Check] = field(default_factory=list)
    checkpoint_compatible: bool | None = None
    timing: Timing | None = None
    timing_note: str = ""
    env: dict[str, Any] = field(default_factory=dict)
    trials: int = 0
    seconds: float = 0.0
    log_tail: str = ""
    # The calls the candidate was validated for besides get_inputs': "declared" (its ENVELOPE literal or None),
    # "shapes_validated" ([{"label", "shapes", "triton"}]), "shapes_skipped" ([{"label", "why"}]),
    # "shapes_timed" (get_inputs' tensor shapes), "gradients" ("matched" / "not differentiable"), "backward"
    # ("triton" where the candidate's backward launched Triton kernels, else "fallback"), "dtypes",
    # "modes" and "devices" (those tried, by name). Only "declared" when judging stopped before these trials;
    # empty when no worker answered (the guard, a timeout, a crash).
    envelope: dict[str, Any] = field(default_factory=dict)
    # Wall seconds of each phase of the worker ("task", "candidate", "trials", ..., "shapes", ..., "timing") and
    # of the witness ("witness"), in the order they ran; waiting for the GPU is included, and given apart as
    # "<phase>.gpu_wait" where there was any. Empty when no worker answered.
    phase_seconds: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in (VALID, INVALID, ERROR):
            raise ValueError(f"unknown verdict {self.verdict!r}")
        if self.stage not in STAGES:
            raise ValueError(f"unknown stage {self.stage!r}")

    @property
    def ok(self) -> bool:
        return self.verdict == VALID

    def failed_check(self) -> Check | None:
        """The first check that did not pass, if any."""
        return next((c for c in self.checks if not c.passed), None)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Verdict":
        data = dict(data)
        data["checks"] = [Check(**c) for c in data.get("checks", [])]
        if data.get("timing") is not None:
            data["timing"] = Timing(**data["timing"])
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> "Verdict":
        return cls.from_dict(json.loads(text))


def invalid(stage: str, reason: str, checks: list[Check] | None = None, **extra: Any) -> Verdict:
    """A verdict for a candidate at fault."""
    return Verdict(verdict=INVALID, reason=reason, stage=stage, checks=checks or [], **extra)


def error(stage: str, reason: str, **extra: Any) -> Verdict:
    """A verdict for when the judge could not judge (broken reference, internal failure)."""
    return Verdict(verdict=ERROR, reason=reason, stage=stage, **extra)
