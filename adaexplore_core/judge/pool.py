"""The judge pool: the parent side. Queues candidates, runs them in worker processes, enforces limits.

Each device gets ``workers_per_device`` workers kept warm between candidates. Imports, Triton compilation
and correctness trials of several workers run concurrently; timing takes the device alone (``GpuLock``),
so no other worker's kernels run while a candidate or a baseline is timed. A candidate's clock runs only
while its own code can be running (not while the worker loads the task, measures baselines or waits for
the device). A worker that hangs, crashes or grows past the memory limit is killed and replaced; the
candidate gets the verdict. This module never imports torch.
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
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
from . import guard
from .protocol import JudgeRequest, decode, encode, scrubbed_environment
from .verdict import Check, Verdict, error, invalid

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
POLL_SECONDS = 0.05


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


class _WorkerProcess:
    """One running worker and its protocol pipes."""

    def __init__(self, device: str, config: JudgeConfig, log_path: Path, workdir: Path) -> None:
        env = scrubbed_environment()
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [PACKAGE_ROOT, env.get("PYTHONPATH")]))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["ADAEXPLORE_ALLOW_TF32"] = "1" if config.allow_tf32 else "0"
        if device == "cpu":
            env["TRITON_INTERPRET"] = "1"
            threads = max(1, (os.cpu_count() or 1) // max(1, config.workers_per_device))
            env.setdefault("OMP_NUM_THREADS", str(threads))
        else:
            env.pop("TRITON_INTERPRET", None)
            fraction = config.gpu_memory_fraction or min(0.9, 0.9 / config.workers_per_device)
            env["ADAEXPLORE_GPU_MEMORY_FRACTION"] = str(fraction)
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            [config.python, "-m", "adaexplore_core.judge.worker", device, str(workdir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env,
            cwd=tempfile.gettempdir(), start_new_session=True,
        )
        self._buffer = b""
        self.env: dict[str, Any] = {}

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

    def rss_mb(self) -> float:
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

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
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        self.log.close()


@dataclass
class _Job:
    request: JudgeRequest
    future: concurrent.futures.Future


class _Slot(threading.Thread):
    """A thread that owns one worker process on one device and feeds it jobs."""

    def __init__(self, pool: "JudgePool", device: str, index: int) -> None:
        super().__init__(name=f"judge-{device}-{index}", daemon=True)
        self.pool, self.device, self.index = pool, device, index
        self.worker: _WorkerProcess | None = None
        self.holding: bool | None = None      # None: no GPU access held; else whether it is exclusive

    def run(self) -> None:
        while True:
            job = self.pool._queue.get()
            if job is None:
                break
            if job.future.set_running_or_notify_cancel():
                try:
                    verdict = self._judge(job.request)
                except Exception as e:  # noqa: BLE001 - the pool must answer every job
                    verdict = error("internal", f"The judge pool failed: {type(e).__name__}: {e}")
                job.future.set_result(verdict)
        if self.worker:
            self.worker.kill()

    def _start_worker(self) -> _WorkerProcess | Verdict:
        name = f"worker-{self.device.replace(':', '')}-{self.index}"
        worker = _WorkerProcess(self.device, self.pool.config, self.pool._dir / f"{name}.log",
                                self.pool._dir / name)
        deadline = time.monotonic() + self.pool.config.startup_timeout_s
        try:
            while time.monotonic() < deadline:
                message = worker.read(POLL_SECONDS * 4)
                if message and message.get("type") == "ready":
                    worker.env = message.get("env", {})
                    return worker
        except (EOFError, ValueError):
            pass
        tail = worker.log_tail()
        worker.kill()
        return error("internal", f"The judge worker for {self.device} did not start ({worker.exit_description()})",
                     log_tail=tail)

    def _release_gpu(self) -> None:
        if self.holding is not None:
            self.pool._gpu_locks[self.device].release(self.holding)
            self.holding = None

    def _discard_worker(self) -> tuple[str, str]:
        assert self.worker is not None
        self.worker.kill()
        description, tail = self.worker.exit_description(), self.worker.log_tail()
        self.worker = None
        self._release_gpu()
        return description, tail

    def _send_to_worker(self, request: JudgeRequest) -> Verdict | None:
        """Send ``request`` to a live worker, starting one (twice at most: one may die between jobs)."""
        for _ in range(2):
            if self.worker is None or self.worker.proc.poll() is not None:
                if self.worker is not None:
                    self._discard_worker()
                started = self._start_worker()
                if isinstance(started, Verdict):
                    return started
                self.worker = started
            try:
                self.worker.send(request.to_message())
                return None
            except OSError:
                self._discard_worker()
        return error("internal", f"The judge worker for {self.device} would not take a request")

    def _judge(self, request: JudgeRequest) -> Verdict:
        request = dataclasses.replace(request, device=self.device, nonce=secrets.token_hex(16))
        failed_start = self._send_to_worker(request)
        if failed_start is not None:
            return failed_start
        config = self.pool.config
        worker = self.worker
        assert worker is not None
        used, running = 0.0, True
        task_deadline = time.monotonic() + config.task_timeout_s
        last = time.monotonic()
        while True:
            try:
                message = worker.read(POLL_SECONDS)
            except EOFError:
                try:
                    worker.proc.wait(timeout=1)      # let it finish exiting, to report its real status
                except subprocess.TimeoutExpired:
                    pass
                description, tail = self._discard_worker()
                return invalid("crash", f"The judge worker died while running the candidate ({description})",
                               [Check("crash", False, description)], log_tail=tail, env=worker.env)
            except ValueError:                        # not JSON: something else wrote into the protocol
                self._discard_worker()
                return invalid("runtime", "The candidate wrote into the judge's protocol channel",
                               [Check("protocol", False, "a line that is not a worker message")], env=worker.env)
            now = time.monotonic()
            if running:
                used += now - last
            last = now
            if message is None:
                if used > config.timeout_s:
                    self._discard_worker()
                    return invalid("timeout", f"The candidate ran past the {config.timeout_s:g} s limit and "
                                              "was stopped", [Check("timeout", False, f"{used:.1f} s")],
                                   env=worker.env)
                if now > task_deadline:
                    self._discard_worker()
                    return error("internal", f"Judging took over {config.task_timeout_s:g} s in all (loading "
                                             "the task, its baselines and the candidate's trials)", env=worker.env)
                rss = worker.rss_mb()
                if rss > config.memory_limit_mb:
                    self._discard_worker()
                    return invalid("memory", f"The candidate used over {config.memory_limit_mb} MB of memory "
                                             "and was stopped", [Check("memory", False, f"{rss:.0f} MB resident")],
                                   env=worker.env)
                continue
            kind = message.get("type")
            if kind == "clock":
                running = bool(message.get("running"))
            elif kind == "acquire":
                exclusive = bool(message.get("exclusive"))
                self.pool._gpu_locks[self.device].acquire(exclusive)
                self.holding = exclusive
                worker.send({"type": "go"})
                last = time.monotonic()
            elif kind == "release":
                self._release_gpu()
            elif kind == "verdict":
                self._release_gpu()
                if message.get("nonce") != request.nonce or message.get("id") != request.id:
                    self._discard_worker()
                    return invalid("runtime", "The candidate forged a verdict in the judge's protocol channel",
                                   [Check("protocol", False, "a verdict without the request's nonce")],
                                   env=worker.env)
                if message.get("fatal"):
                    self._discard_worker()
                return Verdict.from_dict(message["verdict"])


class JudgePool:
    """Judge many candidates in isolated worker processes; ``submit`` returns a Future of a Verdict."""

    def __init__(self, config: JudgeConfig = JudgeConfig()) -> None:
        if not config.devices:
            raise ValueError("a judge pool needs at least one device")
        if config.memory_limit_mb is None:
            workers = len(config.devices) * config.workers_per_device
            config = dataclasses.replace(config, memory_limit_mb=default_memory_limit_mb(workers))
        self.config = config
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._gpu_locks = {d: GpuLock() for d in config.devices}
        self._ids = itertools.count(1)
        self._tmp = tempfile.TemporaryDirectory(prefix="adaexplore-pool-")
        self._dir = Path(self._tmp.name)
        self._slots = [_Slot(self, d, i) for d in config.devices for i in range(config.workers_per_device)]
        for slot in self._slots:
            slot.start()
        self._closed = False

    def submit(self, task: TaskSpec, candidate_source: str, *, trials: int | None = None,
               timing: bool | None = None, tolerance: dict[str, float] | None = None,
               name: str = "candidate.py") -> concurrent.futures.Future:
        """Queue one candidate. The static guard runs here, so rejected code never reaches a worker."""
        if self._closed:
            raise RuntimeError("the judge pool is closed")
        future: concurrent.futures.Future = concurrent.futures.Future()
        findings = guard.check_source(candidate_source, task.class_name)
        if findings:
            checks = [Check("guard", False, str(f)) for f in findings]
            future.set_result(invalid("guard", guard.summarize(findings), checks))
            return future
        request = JudgeRequest(
            id=next(self._ids), task=task.to_dict(), candidate_source=candidate_source, device="",
            trials=self.config.trials if trials is None else trials,
            seed=secrets.randbits(62), timing=self.config.timing if timing is None else timing,
            tolerance=tolerance, candidate_name=name,
        )
        self._queue.put(_Job(request, future))
        return future

    def judge(self, task: TaskSpec, candidate_source: str, **kwargs: Any) -> Verdict:
        """Judge one candidate and wait for its verdict."""
        return self.submit(task, candidate_source, **kwargs).result()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for _ in self._slots:
            self._queue.put(None)
        for slot in self._slots:
            slot.join()
        self._tmp.cleanup()

    def __enter__(self) -> "JudgePool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
