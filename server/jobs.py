"""Search jobs of the language server: each one is ``adaexplore optimize ... --events -`` in a subprocess of
its own process group (cancel = interrupt the group, then kill it), read event by event from its stdout.
The engine dies with the server however the server ends (a parent-death signal: the event loop's thread starts
it and lives as long as the server), and the engine's judge processes die with the engine (its pool's reaper).

Jobs wait in per-device queues (one search per GPU and one on the CPU at a time; see queue_keys). The server
process itself never imports torch: the engine runs in the subprocess, with the interpreter the server
runs on (the user's environment).
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from adaexplore_core.schema.events import EventError, parse_line
from adaexplore_core.schema.report import REPORT_FILE, read_report

log = logging.getLogger(__name__)
QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
INTERRUPT_GRACE_S = 10.0           # after SIGINT, how long the engine gets to save before SIGKILL
_ids = itertools.count(1)
SECRET_VARIABLES = ("OPENAI_API_KEY", "ADAEXPLORE_API_KEY")
ENGINE_NICENESS = 10               # search processes run below the editor's priority


@dataclass
class Job:
    uri: str
    class_name: str
    digest: str                      # the class text's digest when the job started
    version: int | None              # the document version when the job started
    content_key: str
    device: str
    steps: int
    proposer: str
    workdir: Path
    model: str = ""                  # LLM proposer settings
    base_url: str = ""
    cache_dir: str = ""              # the rule memory lives here (shared with the result cache)
    inputs_text: str = ""            # what defined the example inputs (kept with the result)
    fingerprint: str = ""            # the environment the result is valid for
    id: str = field(default_factory=lambda: f"job-{next(_ids)}")
    state: str = QUEUED
    step: int = 0
    valid: int = 0
    best_speedup: float | None = None
    best_valid: bool = False
    message: str = ""
    started: float = field(default_factory=time.time)
    events: list[dict[str, Any]] = field(default_factory=list)
    process: asyncio.subprocess.Process | None = None
    progress_token: str | None = None
    cancel_requested: bool = False
    ended: bool = False              # the end was announced (listener called with event=None)

    @property
    def out(self) -> Path:
        return self.workdir / "out"

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "uri": self.uri, "class": self.class_name, "state": self.state, "step": self.step,
                "steps": self.steps, "valid": self.valid, "best_speedup": self.best_speedup,
                "device": self.device, "message": self.message, "started": self.started}

    def status_line(self) -> str:
        best = f"best {self.best_speedup:.2f}x" if self.best_speedup else \
            ("valid, not timed" if self.best_valid else "no valid candidate yet")
        return f"step {self.step}/{self.steps} · {best}"


Listener = Callable[[Job, dict[str, Any] | None], Awaitable[None] | None]


class JobManager:
    """Starts, queues, follows and cancels search jobs; calls ``listener(job, event)`` on every event and
    once more with ``event=None`` when the job ends."""

    def __init__(self, listener: Listener, python: str = sys.executable) -> None:
        self.listener = listener
        self.python = python
        self.jobs: dict[str, Job] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task] = set()
        self._gpus: int | None = None          # GPUs the engine's torch sees (asked once, for "auto")

    def running_for(self, uri: str, class_name: str) -> Job | None:
        return next((j for j in self.jobs.values() if j.uri == uri and j.class_name == class_name
                     and j.state in (QUEUED, RUNNING)), None)

    def busy(self, device: str) -> bool:
        """Whether a search holds (part of) ``device`` now, so a new job there waits."""
        return any(self._locks.get(k) is not None and self._locks[k].locked()
                   for k in queue_keys(device, self._gpus))

    def start(self, job: Job, reference: Path, cwd: Path, env_extra: dict[str, str] | None = None) -> Job:
        self.jobs[job.id] = job
        task = asyncio.ensure_future(self._run(job, reference, cwd, env_extra or {}))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    def command(self, job: Job, reference: Path) -> list[str]:
        command = [self.python, "-m", "adaexplore_core.cli", "optimize", f"{reference}::{job.class_name}",
                   "--steps", str(job.steps), "--device", job.device, "--proposer", job.proposer,
                   "--out", str(job.out), "--events", "-", "--quiet", "--parent-pid", str(os.getpid())]
        if job.proposer == "llm":
            command += ["--model", job.model] + (["--base-url", job.base_url] if job.base_url else [])
        if job.cache_dir:
            command += ["--cache-dir", job.cache_dir]
        return command

    async def queue_keys(self, device: str) -> list[str]:
        """The queues a search on ``device`` holds (see queue_keys); the GPU count is asked once, from a
        subprocess of the engine's Python (the server never imports torch)."""
        if device.strip().lower() != "cpu" and self._gpus is None:
            self._gpus = await asyncio.get_running_loop().run_in_executor(None, gpu_count, self.python)
        return queue_keys(device, self._gpus)

    async def _run(self, job: Job, reference: Path, cwd: Path, env_extra: dict[str, str]) -> None:
        keys = await self.queue_keys(job.device)
        try:
            async with contextlib.AsyncExitStack() as held:     # one search per device at a time
                for key in keys:                               # sorted: no two jobs wait on each other
                    await held.enter_async_context(self._locks.setdefault(key, asyncio.Lock()))
                if job.cancel_requested:
                    return                         # cancelled while it waited: cancel() ended it
                job.state = RUNNING
                await self._notify(job, None if not job.events else job.events[-1])
                await self._follow(job, reference, cwd, env_extra)
        except Exception as e:  # noqa: BLE001 - a job failure must never take the server down
            job.state, job.message = FAILED, f"the job failed: {type(e).__name__}: {e}"
        finally:
            if job.state in (QUEUED, RUNNING):
                job.state = FAILED
            if not job.ended:
                job.ended = True
                await self._notify(job, None)

    async def _follow(self, job: Job, reference: Path, cwd: Path, env_extra: dict[str, str]) -> None:
        # the key reaches only the engine process of an LLM search (its judge workers scrub it again)
        env = {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES or job.proposer == "llm"}
        env.update(env_extra)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(cwd), _engine_path(env.get("PYTHONPATH"))]))
        env.pop("TRITON_INTERPRET", None)
        job.process = await asyncio.create_subprocess_exec(
            *self.command(job, reference), cwd=str(cwd), env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
            limit=16 * 1024 * 1024)          # the engine ends with the server (--parent-pid)
        try:                                   # the search yields the CPU to the editor (children inherit)
            os.setpriority(os.PRIO_PROCESS, job.process.pid, ENGINE_NICENESS)
        except (OSError, AttributeError):
            pass
        if job.cancel_requested:               # cancelled while the process was being created
            self._interrupt(job)
        stderr_task = asyncio.ensure_future(job.process.stderr.read())
        fatal = ""
        async for raw in job.process.stdout:
            line = raw.decode("utf-8", errors="replace").strip()
            if not line:
                continue
            try:
                event = parse_line(line)
            except EventError:
                continue                          # not an event (a stray print): ignored
            job.events.append(event)
            kind = event["event"]
            if kind == "candidate_judged":
                job.step = event["step"]
                job.valid += event["verdict"] == "valid"
            elif kind == "best_improved":
                job.best_valid = True
                job.best_speedup = event["speedup_vs_eager"]
            elif kind == "best_retimed" and event["valid"]:
                job.best_speedup = event["speedup_vs_eager"]     # the winner's second, fresh timing
            elif kind == "error" and event["fatal"]:
                fatal = event["message"]
            await self._notify(job, event)
        code = await job.process.wait()
        stderr = (await stderr_task).decode("utf-8", errors="replace")
        if job.cancel_requested:
            job.state, job.message = CANCELLED, "cancelled"
        elif code == 0:
            job.state, job.message = DONE, "finished"
        elif code == 1 and (job.out / REPORT_FILE).exists():
            job.state, job.message = DONE, "finished without a valid candidate"
        else:
            tail = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit status {code}"
            job.state, job.message = FAILED, fatal or tail

    async def _notify(self, job: Job, event: dict[str, Any] | None) -> None:
        try:
            result = self.listener(job, event)
            if asyncio.iscoroutine(result):
                await result
        except Exception:  # noqa: BLE001 - a display problem must not end the job
            log.exception("%s: showing its %s failed", job.id, (event or {}).get("event", "end"))

    def cancel(self, job_id: str) -> Job | None:
        """Interrupt the job's process group (the engine saves its tree), then kill it after a grace period."""
        job = self.jobs.get(job_id)
        if job is None or job.state not in (QUEUED, RUNNING):
            return job
        job.cancel_requested = True
        if job.state == QUEUED:                     # never started: it ends now, not when the device frees up
            job.state, job.message, job.ended = CANCELLED, "cancelled before it started", True
            asyncio.ensure_future(self._notify(job, None))
            return job
        self._interrupt(job)
        return job

    @staticmethod
    def _interrupt(job: Job) -> None:
        process = job.process
        if process is not None and process.returncode is None:
            _signal_group(process.pid, signal.SIGINT)
            asyncio.get_event_loop().call_later(INTERRUPT_GRACE_S, _kill_if_alive, process)

    async def shutdown(self) -> None:
        for job in list(self.jobs.values()):
            self.cancel(job.id)
        for job in list(self.jobs.values()):
            if job.process is not None and job.process.returncode is None:
                try:
                    await asyncio.wait_for(job.process.wait(), timeout=INTERRUPT_GRACE_S)
                except asyncio.TimeoutError:
                    _kill_if_alive(job.process)


def queue_keys(device: str, gpus: int | None = None) -> list[str]:
    """The queues a search holds: "cpu"; "gpu:N" for cuda:N; every GPU's queue for "cuda" and for "auto" on a
    machine with ``gpus`` GPUs (the engine then uses them all); "auto" without GPUs is the CPU. Sorted."""
    d = device.strip().lower()
    if d == "cpu" or (d == "auto" and gpus == 0):
        return ["cpu"]
    if d.startswith("cuda:") and d[5:].isdigit():
        return [f"gpu:{int(d[5:])}"]
    return sorted(f"gpu:{i}" for i in range(max(gpus or 1, 1)))


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_if_alive(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        _signal_group(process.pid, signal.SIGKILL)


def _engine_path(existing: str | None) -> str:
    """PYTHONPATH for the engine's processes: the folder this server's package sits in (the engine's package
    beside it, in a checkout), then ``existing``."""
    return os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]), existing]))


def gpu_count(python: str) -> int:
    """The CUDA devices the engine's Python sees (0 when none, or when it cannot tell), asked of a subprocess."""
    try:
        env = {**os.environ, "PYTHONPATH": _engine_path(os.environ.get("PYTHONPATH"))}
        out = subprocess.run([python, "-m", "adaexplore_core.devices"], capture_output=True, text=True,
                             timeout=120, check=True, env=env)
        return int(out.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError, OSError):
        return 0


def read_result(job: Job) -> dict[str, Any] | None:
    """The finished job's result for the cache: the report's headline facts and the best source."""
    found = read_report(job.out)
    if found is None:
        return None
    report, source = found
    return {"class": job.class_name, "digest": job.digest, "uri": job.uri, "job": job.id,
            "finished": time.time(), "steps": report.get("steps"), "valid": report.get("valid"),
            "best": report.get("best"), "best_source": source, "device": job.device, "proposer": job.proposer,
            "rejections": report.get("rejections", [])}
