"""The judge pool: the parent side. Queues candidates, runs each in a fresh sandboxed process, enforces limits.

Each device gets ``workers_per_device`` slots; a slot's zygote (``zygote.py``) forks one process per candidate,
so no candidate can affect another's verdict. Imports, Triton compilation and correctness trials of several
slots run concurrently; timing takes the device alone (``GpuLock``). Timing runs in rounds: in each, the
candidate's process and the device's baseline process (``baseline.py``, eager and torch.compile, never touched
by a candidate) are measured back to back, and the pool computes the speedups and their intervals
(``stats.py``), rejecting times under the roofline and work the timer did not see. A candidate's clock runs only
while its own code can be running. A candidate that hangs, crashes or grows past the memory limit is killed; it
gets the verdict. Every process the pool starts dies with it, however the pool's process ends (``lifetime.py``).
This module never imports torch.
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import itertools
import os
import queue
import secrets
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..task import TaskSpec
from . import guard, stats
from .desk import TimingDesk
from .lifetime import Reaper, die_with_parent, kill_sessions
from .protocol import JudgeRequest, decode, encode, scrubbed_environment
from .verdict import Check, Timing, Verdict, error, invalid

SANDBOX_OPT_OUT = "ADAEXPLORE_SANDBOX"

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
STACK_DUMP_SECONDS = 0.5   # for a timed-out candidate to write its stacks
POLL_SECONDS = 0.05
CLOSE_JOIN_SECONDS = 10.0  # for a slot's thread to see its killed processes and end


def default_memory_limit_mb(workers: int = 1) -> int:
    """Half of this machine's memory shared among ``workers``, at least 2 GB each."""
    try:
        total_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)
    except (ValueError, OSError):
        total_mb = 16384
    return max(2048, total_mb // 2 // max(1, workers))


@dataclass(frozen=True)
class JudgeConfig:
    """Limits and trial counts for judging; one instance per pool."""

    devices: tuple[str, ...] = ("cpu",)
    workers_per_device: int = 1
    timeout_s: float = 180.0          # candidate time (import, compile, trials, timing)
    memory_limit_mb: int | None = None  # resident memory of one worker; None: default_memory_limit_mb()
    trials: int = 5
    timing: bool = True
    startup_timeout_s: float = 120.0
    task_timeout_s: float = 1800.0    # the task's own work in a worker: loading, baselines
    python: str = sys.executable
    gpu_memory_fraction: float | None = None
    allow_tf32: bool = False          # fp32 stays fp32 (cuBLAS and cuDNN) unless the user opts in
    tf32: str = ""                    # "torch": torch's own default (cuDNN on, cuBLAS off), KernelBench's
    static_guard: bool = True         # tests turn it off to prove the sandbox holds on its own
    rounds: int = 4                   # timing rounds, each the candidate beside eager and torch.compile


class GpuLock:
    """Per-device access: many correctness runs at once, or one timing run alone; waiting timers go first."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    def acquire(self, exclusive: bool) -> None:
        with self._cond:
            if exclusive:
                self._writers_waiting += 1
                self._cond.wait_for(lambda: not self._writer and self._readers == 0)
                self._writers_waiting -= 1
                self._writer = True
            else:
                self._cond.wait_for(lambda: not self._writer and self._writers_waiting == 0)
                self._readers += 1

    def release(self, exclusive: bool) -> None:
        with self._cond:
            if exclusive:
                self._writer = False
            else:
                self._readers -= 1
            self._cond.notify_all()


def only_device(device: str, visible: str | None) -> tuple[str, str]:
    """(CUDA_VISIBLE_DEVICES, the device's name there) for a judge process of ``device`` ("cuda:N"): it sees
    that one GPU alone, as cuda:0, so no candidate can run work on another GPU the timer does not watch.
    ``visible``: the pool's own CUDA_VISIBLE_DEVICES, if any (cuda:N is its N-th entry)."""
    index = int(device.partition(":")[2] or 0)
    entries = [e.strip() for e in visible.split(",")] if visible is not None else None
    if entries is not None and not 0 <= index < len(entries):
        raise ValueError(f"{device} is not among the GPUs CUDA_VISIBLE_DEVICES={visible!r} shows")
    return (entries[index] if entries is not None else str(index)), "cuda:0"


def threads_per_process(config: JudgeConfig) -> int:
    """Host threads for torch in each judge process: the cores shared by all the pool's workers. On a GPU too:
    the CPU trial, the float64 evaluations and the copies are host work, and six workers with a thread per core
    each spin-wait against one another."""
    workers = max(1, config.workers_per_device) * max(1, len(config.devices))
    return max(1, (os.cpu_count() or 1) // workers)


class _Process:
    """One judge process (a zygote or a baseline process) and its protocol pipes. It leads a session of its own,
    which ``reaper`` watches; it dies with the thread that starts it (a slot's, which lives as long as the pool)."""

    def __init__(self, module: str, device: str, config: JudgeConfig, log_path: Path, workdir: Path,
                 reaper: Reaper) -> None:
        env = scrubbed_environment()
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [PACKAGE_ROOT, env.get("PYTHONPATH")]))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["ADAEXPLORE_ALLOW_TF32"] = config.tf32 or ("1" if config.allow_tf32 else "0")
        env.setdefault("OMP_NUM_THREADS", str(threads_per_process(config)))
        if device == "cpu":
            env["TRITON_INTERPRET"] = "1"
        else:
            env.pop("TRITON_INTERPRET", None)
            fraction = config.gpu_memory_fraction or min(0.9, 0.9 / config.workers_per_device)
            env["ADAEXPLORE_GPU_MEMORY_FRACTION"] = str(fraction)
            env["CUDA_VISIBLE_DEVICES"], device = only_device(device, env.get("CUDA_VISIBLE_DEVICES"))
        self.log_path = log_path
        self.log = open(log_path, "wb")
        workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [config.python, "-m", module, device, str(workdir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env,
            cwd=workdir, start_new_session=True, preexec_fn=die_with_parent(),
        )
        self.reaper = reaper
        reaper.watch(self.proc.pid)
        self._buffer = b""
        self.env: dict[str, Any] = {}
        self.ready: dict[str, Any] = {}

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(encode(message))
        self.proc.stdin.flush()

    def read(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None when none arrived within ``timeout``. Raises EOFError at exit."""
        while b"\n" not in self._buffer:
            assert self.proc.stdout is not None
            with selectors.DefaultSelector() as sel:
                sel.register(self.proc.stdout, selectors.EVENT_READ)
                if not sel.select(timeout):
                    return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise EOFError
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return decode(line)

    def wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                message = self.read(POLL_SECONDS * 4)
                if message and message.get("type") == "ready":
                    self.ready = message
                    self.env = message.get("env", {})
                    return True
        except (EOFError, ValueError):
            pass
        return False

    def log_tail(self, limit: int = 2000) -> str:
        try:
            data = self.log_path.read_bytes()
        except OSError:
            return ""
        return data[-limit:].decode(errors="replace")

    def exit_description(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "still running"
        if code < 0:
            try:
                return f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"

    def kill(self) -> None:
        """Kill the process and everything in its session (its candidates and what they started)."""
        kill_sessions({self.proc.pid})
        self.proc.wait()
        self.reaper.forget(self.proc.pid)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        self.log.close()


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _kill_group(pid: int | None) -> None:
    """SIGKILL a candidate's process and everything it started (they share its process group)."""
    if pid:
        for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
            try:
                target()
            except (ProcessLookupError, PermissionError):
                pass


class _Baseline:
    """The parent's handle on one device's baseline process (eager and torch.compile, no candidate code)."""

    def __init__(self, pool: "JudgePool", device: str) -> None:
        self.pool, self.device = pool, device
        self.lock = threading.Lock()
        self.proc: _Process | None = None
        self.facts: dict[str, dict[str, Any]] = {}

    def _ask(self, message: dict[str, Any], expect: str) -> dict[str, Any]:
        config = self.pool.config
        if self.proc is None or self.proc.proc.poll() is not None:
            name = f"baseline-{self.device.replace(':', '')}"
            self.proc = _Process("adaexplore_core.judge.baseline", self.device, config,
                                 self.pool._dir / f"{name}.log", self.pool._dir / name, self.pool._reaper)
            if not self.proc.wait_ready(config.startup_timeout_s):
                tail = self.proc.log_tail()
                self.proc.kill()
                self.proc = None
                raise RuntimeError(f"the baseline process for {self.device} did not start: {tail[-300:]}")
        self.proc.send(message)
        deadline = time.monotonic() + config.task_timeout_s
        while time.monotonic() < deadline:
            try:
                reply = self.proc.read(POLL_SECONDS * 4)
            except (EOFError, ValueError):
                tail = self.proc.log_tail()
                self.proc.kill()
                self.proc = None
                raise RuntimeError(f"the baseline process for {self.device} died: {tail[-300:]}")
            if reply is None:
                continue
            if reply.get("type") == "failed":
                raise RuntimeError(f"the baseline failed: {reply.get('reason')}")
            if reply.get("type") == expect:
                return reply
        self.proc.kill()
        self.proc = None
        raise RuntimeError(f"the baseline process for {self.device} did not answer in {config.task_timeout_s:g} s")

    def prepare(self, task: dict[str, Any]) -> dict[str, Any]:
        key = TaskSpec(**task).key()
        if key not in self.facts:
            self.facts[key] = self._ask({"type": "prepare", "task": task, "seed": secrets.randbits(62)}, "prepared")
        return self.facts[key]

    def measure(self, task: dict[str, Any], which: str) -> "_Measured":
        key = TaskSpec(**task).key()
        reply = self._ask({"type": "measure", "key": key, "which": which, "seed": secrets.randbits(62)}, "samples")
        return _Measured.of(reply)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc = None


@dataclass
class _Job:
    request: JudgeRequest
    future: concurrent.futures.Future


class _Stop(Exception):
    """Ends judging of one candidate with ``verdict``."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.reason)
        self.verdict = verdict


class _Watch:
    """One candidate's clock (time its own code may be running) and deadlines."""

    def __init__(self, config: JudgeConfig) -> None:
        self.used, self.running = 0.0, True
        self.last = time.monotonic()
        self.task_deadline = self.last + config.task_timeout_s

    def tick(self) -> float:
        now = time.monotonic()
        if self.running:
            self.used += now - self.last
        self.last = now
        return now

    def pause(self, running: bool) -> None:
        self.tick()
        self.running = running


class _Slot(threading.Thread):
    """A thread that owns one zygote on one device and feeds it jobs, one candidate process at a time."""

    def __init__(self, pool: "JudgePool", device: str, index: int) -> None:
        super().__init__(name=f"judge-{device}-{index}", daemon=True)
        self.pool, self.device, self.index = pool, device, index
        self.zygote: _Process | None = None
        self.child: int | None = None         # the pid of the candidate's process while one runs
        self.holding: bool | None = None      # None: no GPU access held; else whether it is exclusive

    def run(self) -> None:
        while True:
            job = self.pool._queue.get()
            if job is None:
                break
            if self.pool._closed:
                job.future.cancel()
            elif job.future.set_running_or_notify_cancel():
                try:
                    verdict = self._judge_with_memory(job.request)
                except Exception as e:  # noqa: BLE001 - the pool must answer every job
                    verdict = error("internal", f"The judge pool failed: {type(e).__name__}: {e}")
                if self.pool._closed:                  # its processes were killed by the close, not by itself
                    verdict = error("internal", "The judge pool was closed while the candidate was judged")
                job.future.set_result(verdict)
        _kill_group(self.child)
        if self.zygote:
            self.zygote.kill()

    def _judge_with_memory(self, request: JudgeRequest) -> Verdict:
        """Judge; a task that ran out of GPU memory within its share is judged again with the whole GPU."""
        key = TaskSpec(**request.task).key()
        whole = key in self.pool._whole_gpu
        verdict = self._judge(request, whole)
        if not whole and self.device != "cpu" and "out of memory" in verdict.reason.lower():
            self.pool._whole_gpu.add(key)
            verdict = self._judge(request, True)
        return verdict

    def _start_zygote(self) -> _Process | Verdict:
        name = f"zygote-{self.device.replace(':', '')}-{self.index}"
        if self.pool._closed:
            return error("internal", "The judge pool is closed")
        zygote = _Process("adaexplore_core.judge.zygote", self.device, self.pool.config,
                          self.pool._dir / f"{name}.log", self.pool._dir / name, self.pool._reaper)
        if zygote.wait_ready(self.pool.config.startup_timeout_s):
            problems = zygote.ready.get("sandbox_problems") or []
            if problems:
                zygote.kill()
                return error("internal", "The judge cannot sandbox candidates on this machine: "
                             + "; ".join(problems) + f" (set {SANDBOX_OPT_OUT}=off to judge without the sandbox, "
                             "not recommended: candidate code could then read and write your files)")
            return zygote
        tail = zygote.log_tail()
        zygote.kill()
        return error("internal", f"The judge worker for {self.device} did not start ({zygote.exit_description()})",
                     log_tail=tail)

    def _release_gpu(self) -> None:
        if self.holding is not None:
            self.pool._gpu_locks[self.device].release(self.holding)
            self.holding = None

    def _acquire_gpu(self, exclusive: bool) -> None:
        if self.holding is None:
            self.pool._gpu_locks[self.device].acquire(exclusive)
            self.holding = exclusive

    def _discard_zygote(self) -> tuple[str, str]:
        assert self.zygote is not None
        _kill_group(self.child)
        self.child = None
        self.zygote.kill()
        description, tail = self.zygote.exit_description(), self.zygote.log_tail()
        self.zygote = None
        self._release_gpu()
        return description, tail

    def _send_to_zygote(self, request: JudgeRequest) -> Verdict | None:
        """Send ``request`` to a live zygote, starting one (twice at most: one may die between jobs)."""
        for _ in range(2):
            if self.zygote is None or self.zygote.proc.poll() is not None:
                if self.zygote is not None:
                    self._discard_zygote()
                started = self._start_zygote()
                if isinstance(started, Verdict):
                    return started
                self.zygote = started
            try:
                self.zygote.send(request.to_message())
                return None
            except OSError:
                self._discard_zygote()
        return error("internal", f"The judge worker for {self.device} would not take a request")

    def _judge(self, request: JudgeRequest, whole_gpu: bool) -> Verdict:
        options = dict(request.options, whole_gpu=whole_gpu)
        request = dataclasses.replace(request, device=self.device, nonce=secrets.token_hex(16), options=options)
        failed_start = self._send_to_zygote(request)
        if failed_start is not None:
            return failed_start
        watch = _Watch(self.pool.config)
        try:
            verdict = self._converse(request, watch)
        except _Stop as stop:
            verdict = stop.verdict
        finally:
            self.pool._desks[self.device].withdraw(self)
        self._release_gpu()
        return verdict

    def _kill_child_and_wait(self, watch: _Watch) -> None:
        """Kill the candidate's process and read the zygote's report of its end (or lose the zygote)."""
        _kill_group(self.child)
        deadline = time.monotonic() + 10
        assert self.zygote is not None
        while time.monotonic() < deadline:
            try:
                message = self.zygote.read(POLL_SECONDS)
            except (EOFError, ValueError):
                break
            if message and message.get("type") == "exited":
                self.child = None
                return
        self._discard_zygote()

    def _stacks_then_kill(self, watch: _Watch) -> str:
        """Ask the candidate's process where it is (its Python stacks, written to the log by faulthandler on
        SIGUSR1), then kill it; returns the log's tail, so a timeout or a memory stop says what was running."""
        assert self.zygote is not None
        if self.child:
            try:
                os.kill(self.child, signal.SIGUSR1)
                time.sleep(STACK_DUMP_SECONDS)
            except (ProcessLookupError, PermissionError):
                pass
        tail = self.zygote.log_tail()
        self._kill_child_and_wait(watch)
        return tail

    def _next(self, request: JudgeRequest, watch: _Watch) -> dict[str, Any]:
        """The next message of this candidate's conversation; raises _Stop on a limit, a crash or a forgery."""
        config = self.pool.config
        zygote = self.zygote
        assert zygote is not None
        while True:
            try:
                message = zygote.read(POLL_SECONDS)
            except EOFError:
                try:
                    zygote.proc.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    pass
                description, tail = self._discard_zygote()
                raise _Stop(invalid("crash", f"The judge worker died while running the candidate ({description})",
                                    [Check("crash", False, description)], log_tail=tail, env=zygote.env))
            except ValueError:                        # not JSON: something else wrote into the protocol
                self._discard_zygote()
                raise _Stop(invalid("runtime", "The candidate wrote into the judge's protocol channel",
                                    [Check("protocol", False, "a line that is not a worker message")], env=zygote.env))
            now = watch.tick()
            if message is not None:
                return message
            if watch.used > config.timeout_s:
                tail = self._stacks_then_kill(watch)
                raise _Stop(invalid("timeout", f"The candidate ran past the {config.timeout_s:g} s limit and was "
                                               "stopped", [Check("timeout", False, f"{watch.used:.1f} s")],
                                    log_tail=tail, env=zygote.env))
            if now > watch.task_deadline:
                tail = self._stacks_then_kill(watch)
                raise _Stop(error("internal", f"Judging took over {config.task_timeout_s:g} s in all (loading the "
                                              "task, its baselines and the candidate's trials)", log_tail=tail,
                                  env=zygote.env))
            rss = _rss_mb(self.child) if self.child else 0.0
            if rss > config.memory_limit_mb:
                tail = self._stacks_then_kill(watch)
                raise _Stop(invalid("memory", f"The candidate used over {config.memory_limit_mb} MB of memory and "
                                              "was stopped", [Check("memory", False, f"{rss:.0f} MB resident")],
                                    log_tail=tail, env=zygote.env))

    def _converse(self, request: JudgeRequest, watch: _Watch) -> Verdict:
        zygote = self.zygote
        assert zygote is not None
        verdict: Verdict | None = None
        timing: Timing | Verdict | None = None
        desk = self.pool._desks[self.device]
        while True:
            message = self._next(request, watch)
            kind = message.get("type")
            if kind != "release":
                desk.withdraw(self)
            if kind == "started":
                self.child = int(message["pid"])
            elif kind == "clock":
                watch.pause(bool(message.get("running")))
            elif kind == "acquire":
                self._acquire_gpu(bool(message.get("exclusive")))
                zygote.send({"type": "go"})
                watch.tick()
            elif kind == "release":
                if not request.options.get("whole_gpu"):
                    if message.get("timing_next"):      # before the GPU is free: a leader must see it
                        desk.announce(self, self._timing_kind(request))
                    self._release_gpu()
            elif kind == "time":
                timing = self._time(request, watch)
                speedup = timing.speedup_vs_eager if isinstance(timing, Timing) else 0.0
                zygote.send({"type": "timing_done", "speedup": speedup})
            elif kind == "verdict":
                if message.get("nonce") != request.nonce or message.get("id") != request.id:
                    self._kill_child_and_wait(watch)
                    return invalid("runtime", "The candidate forged a verdict in the judge's protocol channel",
                                   [Check("protocol", False, "a verdict without the request's nonce")], env=zygote.env)
                verdict = Verdict.from_dict(message["verdict"])
            elif kind == "exited":
                self.child = None
                if verdict is None:
                    description = str(message.get("status"))
                    return invalid("crash", f"The judge worker died while running the candidate ({description})",
                                   [Check("crash", False, description)], log_tail=zygote.log_tail(), env=zygote.env)
                return _with_timing(verdict, timing)

    def _candidate_samples(self, request: JudgeRequest, watch: _Watch, ask: dict[str, Any],
                           expect: str) -> dict[str, Any]:
        assert self.zygote is not None
        self.zygote.send(ask)
        watch.pause(True)
        while True:
            message = self._next(request, watch)
            if message.get("type") == expect:
                watch.pause(False)
                return message
            if message.get("type") in ("verdict", "exited"):
                raise _Stop(self._ended_while_timed(request, watch, message))

    def _ended_while_timed(self, request: JudgeRequest, watch: _Watch, message: dict[str, Any]) -> Verdict:
        """The candidate's own verdict when it stopped during timing (a timed call's output was wrong, it ran
        out of memory), read to the end of its process so no message is left for the next candidate."""
        assert self.zygote is not None
        verdict = invalid("runtime", "The candidate stopped answering while it was timed",
                          [Check("timed_outputs", False, "no samples: the candidate's process ended")],
                          env=self.zygote.env)
        if message.get("type") == "verdict" and message.get("nonce") == request.nonce \
                and message.get("id") == request.id:
            own = Verdict.from_dict(message["verdict"])
            verdict = verdict if own.ok else own            # a pass before timing ended is no pass
        if message.get("type") == "exited":
            self.child = None
        else:
            self._kill_child_and_wait(watch)
        return verdict

    def _timing_kind(self, request: JudgeRequest) -> tuple[str, int]:
        """Candidates time together when this is the same: the task and the number of rounds."""
        return TaskSpec(**request.task).key(), self._rounds(request)

    def _rounds(self, request: JudgeRequest) -> int:
        return int(request.options.get("rounds") or self.pool.config.rounds)

    def _time(self, request: JudgeRequest, watch: _Watch) -> Timing | Verdict:
        """Timing rounds beside eager and torch.compile, with the GPU held alone; shared with candidates of the
        same task waiting at the same time (``desk.py``). Raises _Stop when the candidate stops while timed."""
        watch.pause(False)
        member = _Timed(self, request, watch)
        if request.options.get("whole_gpu"):          # it holds the GPU alone already, and for itself only
            outcome = _time_together(self.pool, self.device, [member], self._rounds(request))[0]
        else:
            self._release_gpu()                       # a forged "time" inside the trials must not deadlock
            outcome = self.pool._desks[self.device].time(
                self, self._timing_kind(request), member, lambda group: _time_together(self.pool, self.device, group, self._rounds(request)))
        if isinstance(outcome, _Stop):
            raise outcome
        return outcome


@dataclass
class _Measured:
    """One measurement's reply: device ms per timed call, the host's ms to launch each, and how many launches
    outlasted the spin before them (``timing.measure``)."""

    samples: list[float]
    host_ms: list[float]
    uncovered: int

    @classmethod
    def of(cls, reply: dict[str, Any]) -> "_Measured":
        return cls([float(x) for x in reply["samples"]], [float(x) for x in reply.get("host_ms") or []],
                   int(reply.get("uncovered") or 0))


@dataclass
class _Series:
    """The measurements of one timed thing (the candidate, eager or torch.compile) over the rounds."""

    rounds: list[list[float]] = dataclasses.field(default_factory=list)
    host_ms: list[float] = dataclasses.field(default_factory=list)
    uncovered: int = 0

    def add(self, m: _Measured) -> None:
        self.rounds.append(m.samples)
        self.host_ms += m.host_ms
        self.uncovered += m.uncovered


@dataclass(eq=False)
class _Timed:
    """A candidate waiting in its timing phase: its slot (which owns its process), request and clock."""

    slot: _Slot
    request: JudgeRequest
    watch: _Watch

    def ask(self, message: dict[str, Any], expect: str) -> dict[str, Any]:
        return self.slot._candidate_samples(self.request, self.watch, message, expect)


def _time_together(pool: "JudgePool", device: str, group: list[_Timed], rounds: int
                   ) -> list[Timing | Verdict | _Stop]:
    """Time the candidates of ``group`` (one task) in the same rounds: each round measures one baseline, every
    candidate, then the other baseline, in the reverse order the next round. The GPU is held alone by the caller.
    Returns, per candidate, its Timing, the verdict of a timing that cannot be true, or the _Stop of a candidate
    that stopped while timed (the others go on)."""
    first = group[0].request
    outcomes: dict[_Timed, Timing | Verdict | _Stop] = {}
    samples: dict[_Timed, _Series] = {m: _Series() for m in group}
    baselines: dict[str, _Series] = {"eager": _Series(), "compiled": _Series()}
    baseline = pool._baseline_for(device)
    started = time.monotonic()
    try:
        with baseline.lock:
            facts = baseline.prepare(first.task)
            for r in range(rounds):
                active = [m for m in group if m not in outcomes]
                if not active:
                    break
                before, after = ("eager", "compiled") if r % 2 == 0 else ("compiled", "eager")
                for what in (before, *(active if r % 2 == 0 else active[::-1]), after):
                    if isinstance(what, _Timed):
                        try:
                            samples[what].add(_Measured.of(what.ask({"type": "measure"}, "samples")))
                        except _Stop as stop:
                            outcomes[what] = stop
                    elif what == "eager" or facts.get("compiled"):
                        baselines[what].add(baseline.measure(first.task, what))
            done: dict[_Timed, dict[str, Any]] = {}
            for m in group:
                if m not in outcomes:
                    try:
                        done[m] = m.ask({"type": "completion"}, "completion")
                    except _Stop as stop:
                        outcomes[m] = stop
    except RuntimeError as e:
        failed = error("internal", f"The judge could not time the baselines: {e}")
        return [outcomes.get(m, failed) for m in group]
    seconds = time.monotonic() - started
    for m in group:
        if m not in outcomes:
            series = {"candidate": samples[m], **baselines}
            timing = timing_from_rounds({who: s.rounds for who, s in series.items()}, facts,
                                        float(done[m]["event_ms"]), float(done[m]["wall_ms"]))
            if isinstance(timing, Timing):
                _add_host(timing, series)
            if isinstance(timing, Timing):
                timing.group, timing.group_seconds = len(group), round(seconds, 3)
            outcomes[m] = timing
    return [outcomes[m] for m in group]


def timing_from_rounds(rounds: dict[str, list[list[float]]], facts: dict[str, Any], event_ms: float,
                       wall_ms: float) -> Timing | Verdict:
    """The Timing of interleaved rounds, or the failing verdict of a timing that cannot be true."""
    cand, eager, compiled = rounds["candidate"], rounds["eager"], rounds["compiled"]
    cand_ms = stats.pooled_median(cand)
    if stats.hidden_work(event_ms, wall_ms):
        return invalid("correctness", "The candidate's work was not finished when the timer stopped "
                                      f"({event_ms:.3f} ms timed, {wall_ms:.3f} ms until the device was idle): it "
                                      "runs work the timed stream does not wait for",
                       [Check("timed_completion", False, f"event {event_ms:.3f} ms, device-wide {wall_ms:.3f} ms")])
    floor = stats.roofline_ms(facts, bool(facts.get("fp32_only")))
    least = stats.impossible_floor_ms(facts)
    if stats.impossible(cand_ms, least):
        return invalid("correctness", f"The candidate's time {cand_ms:.4f} ms is under the least any implementation "
                                      f"needs, {least:.4f} ms (the bytes it must move over the measured bandwidth, "
                                      "its flops over the measured tensor-core peak): impossible, so the timing is "
                                      "not real",
                       [Check("roofline", False, f"{cand_ms:.4f} ms < {stats.ROOFLINE_MARGIN:g} x {least:.4f} ms")])
    vs_eager = stats.speedup(eager, cand)
    vs_compile = stats.speedup(compiled, cand) if compiled else None
    timing = Timing(
        candidate_ms=cand_ms, candidate_iqr_ms=stats.spread(cand),
        eager_ms=stats.pooled_median(eager), eager_iqr_ms=stats.spread(eager),
        compile_ms=stats.pooled_median(compiled) if compiled else None,
        compile_iqr_ms=stats.spread(compiled) if compiled else None,
        speedup_vs_eager=vs_eager.estimate, speedup_vs_compile=vs_compile.estimate if vs_compile else None,
        speedup_vs_eager_low=vs_eager.low, speedup_vs_eager_high=vs_eager.high,
        speedup_vs_compile_low=vs_compile.low if vs_compile else None,
        speedup_vs_compile_high=vs_compile.high if vs_compile else None,
        iterations=sum(len(r) for r in cand), input_sets=0, rounds=len(cand),
        compile_note=str(facts.get("note", "")),
    )
    if floor is not None:
        timing.roofline_fraction = floor / cand_ms
        timing.roofline_bound = "compute" if facts.get("fp32_only") and facts.get("flops") and \
            facts["flops"] / (facts["peak_tflops"] * 1e12) > facts["min_bytes"] / (facts["peak_gbps"] * 1e9) \
            else "memory"
        timing.min_bytes, timing.flops = facts.get("min_bytes"), facts.get("flops")
        timing.peak_gbps, timing.peak_tflops = facts.get("peak_gbps"), facts.get("peak_tflops")
    return timing


def _add_host(timing: Timing, series: dict[str, _Series]) -> None:
    """The host's median ms to launch one call of each, and the launches that outlasted the spin before them."""
    def median(s: _Series) -> float | None:
        return round(stats.median(s.host_ms), 5) if s.host_ms else None

    timing.candidate_host_ms = median(series["candidate"])
    timing.eager_host_ms = median(series["eager"])
    timing.compile_host_ms = median(series["compiled"]) if series["compiled"].rounds else None
    timing.uncovered_calls = sum(s.uncovered for s in series.values())


def _with_timing(verdict: Verdict, timing: Timing | Verdict | None) -> Verdict:
    """The child's verdict with the pool's timing; a timing that failed makes a valid verdict fail."""
    if not verdict.ok or timing is None:
        return verdict
    if isinstance(timing, Verdict):
        timing.checks = verdict.checks + timing.checks
        timing.env, timing.trials, timing.seconds = verdict.env, verdict.trials, verdict.seconds
        timing.envelope, timing.phase_seconds = verdict.envelope, verdict.phase_seconds
        timing.checkpoint_compatible = verdict.checkpoint_compatible
        return timing
    verdict.timing = timing
    verdict.reason += f"; {_interval(timing.speedup_vs_eager, timing.speedup_vs_eager_low, timing.speedup_vs_eager_high)}" \
                      " vs eager"
    if timing.speedup_vs_compile is not None:
        verdict.reason += (f", {_interval(timing.speedup_vs_compile, timing.speedup_vs_compile_low, timing.speedup_vs_compile_high)}"
                           " vs torch.compile")
    if timing.host_bound():
        verdict.reason += f"; host-bound: {_launch_comparison(timing)}"
    return verdict


def _launch_comparison(timing: Timing) -> str:
    """The candidate's launch time beside its device time and the baselines' launch times, all measured in the
    same rounds (on a host loaded by other judge workers every launch is slower, the baselines' too)."""
    baselines = [f"eager's {timing.eager_host_ms:.4f}"] if timing.eager_host_ms is not None else []
    if timing.compile_host_ms is not None:
        baselines.append(f"torch.compile's {timing.compile_host_ms:.4f}")
    beside = f" (in the same rounds: {', '.join(baselines)})" if baselines else ""
    return (f"{timing.candidate_host_ms:.4f} ms per call to launch on the host{beside}, above its "
            f"{timing.candidate_ms:.4f} ms on the device (a loop of calls runs at the host's pace)")


def _interval(estimate: float, low: float | None, high: float | None) -> str:
    return f"{estimate:.2f}x ({low:.2f}-{high:.2f})" if low is not None and high is not None else f"{estimate:.2f}x"


class JudgePool:
    """Judge many candidates in isolated worker processes; ``submit`` returns a Future of a Verdict."""

    def __init__(self, config: JudgeConfig = JudgeConfig()) -> None:
        if not config.devices:
            raise ValueError("a judge pool needs at least one device")
        if config.memory_limit_mb is None:
            workers = len(config.devices) * config.workers_per_device
            config = dataclasses.replace(config, memory_limit_mb=default_memory_limit_mb(workers))
        self.config = config
        if os.environ.get(SANDBOX_OPT_OUT, "").lower() == "off":
            print(f"adaexplore: {SANDBOX_OPT_OUT}=off: candidates run WITHOUT the OS sandbox and can read and "
                  "write your files", file=sys.stderr)
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._gpu_locks = {d: GpuLock() for d in config.devices}
        self._desks = {d: TimingDesk(functools.partial(lock.acquire, True), functools.partial(lock.release, True))
                       for d, lock in self._gpu_locks.items()}
        self._baselines: dict[str, _Baseline] = {}
        self._baselines_lock = threading.Lock()
        self._whole_gpu: set[str] = set()       # task keys that need the whole GPU (ran out of memory in a share)
        self._ids = itertools.count(1)
        self._tmp = tempfile.TemporaryDirectory(prefix="adaexplore-pool-")
        self._dir = Path(self._tmp.name)
        self._closed = False
        self._reaper = Reaper(config.python)
        self._slots = [_Slot(self, d, i) for d in config.devices for i in range(config.workers_per_device)]
        for slot in self._slots:
            slot.start()

    def submit(self, task: TaskSpec, candidate_source: str, *, trials: int | None = None,
               timing: bool | None = None, tolerance: dict[str, float] | None = None,
               rounds: int | None = None, name: str = "candidate.py") -> concurrent.futures.Future:
        """Queue one candidate. The static guard runs here, so rejected code never reaches a worker.
        ``rounds``: timing rounds for this candidate (more for a winner's second judging)."""
        if self._closed:
            raise RuntimeError("the judge pool is closed")
        future: concurrent.futures.Future = concurrent.futures.Future()
        findings = guard.check_source(candidate_source, task.class_name, task.read_source()) \
            if self.config.static_guard else []
        if findings:
            checks = [Check("guard", False, str(f)) for f in findings]
            future.set_result(invalid("guard", guard.summarize(findings), checks))
            return future
        request = JudgeRequest(
            id=next(self._ids), task=task.to_dict(), candidate_source=candidate_source, device="",
            trials=self.config.trials if trials is None else trials,
            seed=secrets.randbits(62), timing=self.config.timing if timing is None else timing,
            tolerance=tolerance, candidate_name=name, options={"rounds": rounds or self.config.rounds},
        )
        self._queue.put(_Job(request, future))
        return future

    def _baseline_for(self, device: str) -> _Baseline:
        with self._baselines_lock:
            if device not in self._baselines:
                self._baselines[device] = _Baseline(self, device)
            return self._baselines[device]

    def judge(self, task: TaskSpec, candidate_source: str, **kwargs: Any) -> Verdict:
        """Judge one candidate and wait for its verdict."""
        return self.submit(task, candidate_source, **kwargs).result()

    def close(self) -> None:
        """End every judge process now, then the slots' threads: a candidate being judged gets an error verdict
        saying so (it does not run on to its time limit), a queued one is cancelled."""
        if self._closed:
            return
        self._closed = True
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.future.cancel()
        self._reaper.kill_all()                   # a slow candidate must not hold the close up
        for _ in self._slots:
            self._queue.put(None)
        for slot in self._slots:
            slot.join(CLOSE_JOIN_SECONDS)
        for baseline in self._baselines.values():
            baseline.close()
        self._reaper.close()                      # whatever a slot started meanwhile
        self._tmp.cleanup()

    def __enter__(self) -> "JudgePool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
