"""Candidates of one task timed together (judge.desk.TimingDesk, judge.pool._time_together), without a GPU."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from adaexplore_core.judge.desk import TimingDesk
from adaexplore_core.judge.pool import JudgeConfig, Timing, Verdict, _Stop, _time_together, _Timed
from adaexplore_core.judge.verdict import invalid


class Gpu:
    """Counts who holds the device alone; two holders at once fail the test."""

    def __init__(self) -> None:
        self.holders = 0
        self.times = 0

    def acquire(self) -> None:
        assert self.holders == 0
        self.holders += 1
        self.times += 1

    def release(self) -> None:
        self.holders -= 1


def desk_for(gpu: Gpu, **kwargs) -> TimingDesk:
    return TimingDesk(gpu.acquire, gpu.release, **kwargs)


def echo(groups: list[list[str]]):
    def run(payloads: list[str]) -> list[str]:
        groups.append(list(payloads))
        time.sleep(0.05)
        return [f"timed {p} with {len(payloads)}" for p in payloads]
    return run


def in_threads(*calls) -> list:
    results: list = [None] * len(calls)

    def call(i, f):
        results[i] = f()
    threads = [threading.Thread(target=call, args=(i, f)) for i, f in enumerate(calls)]
    for t in threads:
        t.start()
        time.sleep(0.01)
    for t in threads:
        t.join(10)
    return results


def test_one_request_is_timed_alone():
    gpu, groups = Gpu(), []
    desk = desk_for(gpu)
    assert desk.time("a", "task", "a", echo(groups)) == "timed a with 1"
    assert groups == [["a"]] and gpu.times == 1 and gpu.holders == 0


def test_announced_requests_of_the_same_task_join_the_leader():
    gpu, groups = Gpu(), []
    desk = desk_for(gpu, grace_s=5)
    desk.announce("b", "task")             # b finished its trials and will ask soon

    def late_b():
        time.sleep(0.3)
        return desk.time("b", "task", "b", echo(groups))
    results = in_threads(lambda: desk.time("a", "task", "a", echo(groups)), late_b)
    assert groups == [["a", "b"]]
    assert results == ["timed a with 2", "timed b with 2"] and gpu.times == 1


def test_other_tasks_wait_for_their_own_group():
    gpu, groups = Gpu(), []
    desk = desk_for(gpu, grace_s=0.2)
    desk.announce("b", "other")
    results = in_threads(lambda: desk.time("a", "task", "a", echo(groups)),
                         lambda: desk.time("b", "other", "b", echo(groups)))
    assert sorted(map(tuple, groups)) == [("a",), ("b",)]
    assert results == ["timed a with 1", "timed b with 1"] and gpu.times == 2


def test_an_announced_request_that_never_comes_delays_the_leader_only_briefly():
    gpu, groups = Gpu(), []
    desk = desk_for(gpu, grace_s=0.2)
    desk.announce("gone", "task")
    began = time.monotonic()
    assert desk.time("a", "task", "a", echo(groups)) == "timed a with 1"
    assert time.monotonic() - began < 2


def test_a_withdrawn_announcement_is_not_waited_for():
    gpu, groups = Gpu(), []
    desk = desk_for(gpu, grace_s=30)
    desk.announce("b", "task")
    desk.withdraw("b")                     # b failed its trials instead
    began = time.monotonic()
    desk.time("a", "task", "a", echo(groups))
    assert time.monotonic() - began < 2


def test_a_group_has_a_size_limit():
    gpu, groups = Gpu(), []
    desk = desk_for(gpu, grace_s=0.1, limit=2)
    hold = threading.Event()
    threading.Timer(0.3, hold.set).start()

    def slow(payloads):                    # keeps the desk busy while a, b and c arrive
        hold.wait(5)
        return echo(groups)(payloads)
    results = in_threads(lambda: desk.time("x", "other", "x", slow),
                         lambda: desk.time("a", "task", "a", echo(groups)),
                         lambda: desk.time("b", "task", "b", echo(groups)),
                         lambda: desk.time("c", "task", "c", echo(groups)))
    assert all(results) and groups[0] == ["x"]
    assert sorted(len(g) for g in groups[1:]) == [1, 2] and sorted(p for g in groups for p in g) == ["a", "b", "c", "x"]


def test_a_failing_group_fails_every_member_and_frees_the_desk():
    gpu, groups = Gpu(), []
    desk = desk_for(gpu, grace_s=5)
    desk.announce("b", "task")

    def broken(payloads):
        time.sleep(0.1)
        raise RuntimeError("baseline died")
    errors = []

    def call(name):
        try:
            desk.time(name, "task", name, broken)
        except RuntimeError as e:
            errors.append((name, str(e)))
    in_threads(lambda: call("a"), lambda: call("b"))
    assert sorted(errors) == [("a", "baseline died"), ("b", "baseline died")]
    assert gpu.holders == 0 and desk.time("c", "task", "c", echo(groups)) == "timed c with 1"


# --- the group's rounds (pool._time_together) with a scripted baseline and candidates ---------------------

class Baseline:
    def __init__(self, log: list[str], compiled: bool = True, fail: bool = False) -> None:
        self.lock = threading.Lock()
        self.log, self.compiled, self.fail = log, compiled, fail

    def prepare(self, task):
        return {"compiled": self.compiled}

    def measure(self, task, which):
        if self.fail:
            raise RuntimeError("the baseline process died")
        self.log.append(which)
        from adaexplore_core.judge.pool import _Measured
        return _Measured([2.0] * 5 if which == "eager" else [1.5] * 5, [0.01] * 5, 0)


class Slot:
    """A slot whose candidate answers ``ms`` per call, or stops at measurement ``stop_at``."""

    def __init__(self, name: str, log: list[str], ms: float, stop_at: int | None = None) -> None:
        self.name, self.log, self.ms, self.stop_at, self.measured = name, log, ms, stop_at, 0
        self.pool = SimpleNamespace(config=JudgeConfig())

    def _candidate_samples(self, request, watch, ask, expect):
        if ask["type"] == "completion":
            return {"event_ms": self.ms, "wall_ms": self.ms}
        self.measured += 1
        if self.measured == self.stop_at:
            raise _Stop(invalid("runtime", f"{self.name} stopped while timed"))
        self.log.append(self.name)
        return {"samples": [self.ms] * 5}


def group_of(log, *slots, baseline=None):
    pool = SimpleNamespace(config=JudgeConfig(), _baseline_for=lambda device: baseline or Baseline(log))
    members = [_Timed(s, SimpleNamespace(task={}, options={"rounds": 4}), None) for s in slots]
    return _time_together(pool, "cuda:0", members, 4)


def test_candidates_of_a_group_share_every_round_of_the_baselines():
    log: list[str] = []
    a, b = Slot("a", log, 1.0), Slot("b", log, 0.5)
    ta, tb = group_of(log, a, b)
    assert log == ["eager", "a", "b", "compiled", "compiled", "b", "a", "eager"] * 2
    assert isinstance(ta, Timing) and isinstance(tb, Timing)
    assert ta.speedup_vs_eager == pytest.approx(2.0) and tb.speedup_vs_eager == pytest.approx(4.0)
    assert ta.speedup_vs_compile == pytest.approx(1.5) and ta.rounds == tb.rounds == 4
    assert ta.group == tb.group == 2


def test_a_candidate_that_stops_while_timed_leaves_the_others_timed():
    log: list[str] = []
    a, b = Slot("a", log, 1.0, stop_at=2), Slot("b", log, 0.5)
    ta, tb = group_of(log, a, b)
    assert isinstance(ta, _Stop) and "a stopped" in ta.verdict.reason
    assert isinstance(tb, Timing) and tb.rounds == 4 and tb.speedup_vs_eager == pytest.approx(4.0)
    assert log.count("a") == 1 and log.count("eager") == 4


def test_a_baseline_failure_is_the_judge_error_of_each_member():
    log: list[str] = []
    outcomes = group_of(log, Slot("a", log, 1.0), Slot("b", log, 1.0), baseline=Baseline(log, fail=True))
    assert all(isinstance(o, Verdict) and o.verdict == "error" and "baseline" in o.reason for o in outcomes)


def test_without_torch_compile_only_eager_is_measured():
    log: list[str] = []
    (t,) = group_of(log, Slot("a", log, 1.0), baseline=Baseline(log, compiled=False))
    assert log == ["eager", "a", "a", "eager"] * 2 and t.speedup_vs_compile is None
