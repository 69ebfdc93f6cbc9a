"""The fork server: one per judge slot, it forks a fresh, sandboxed process for every candidate.

Run as ``python -m adaexplore_core.judge.zygote DEVICE WORKDIR`` by the pool. It imports torch and triton once
(seconds saved per candidate) but never initialises CUDA and never runs candidate code, so every child starts
from the same clean state. Per request: fork; the child makes its own folder, enters the OS sandbox, judges,
sends its verdict and exits; the zygote reports the child's pid when it starts and its exit status when it ends
(a crash is a verdict too). Messages go to the pool on the inherited protocol descriptors. A child dies with
the zygote (a parent-death signal, set before the sandbox), and the zygote with the pool (``lifetime.py``).
"""
from __future__ import annotations

import faulthandler
import os
import shutil
import signal
import sys
import traceback
from pathlib import Path
from typing import Any

from . import sandbox
from .lifetime import set_parent_death_signal
from .protocol import JudgeRequest
from .verdict import error

WHOLE_GPU_FRACTION = 0.7   # a task that needs "the whole GPU": all but room for the baseline process beside it
                           # (at 0.9 the baseline of a 7.5 GB level-1 task ran out of memory on the H200)


def _exit_description(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"killed by signal {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exited with status {os.WEXITSTATUS(status)}"


def _policy(folder: Path, request: JudgeRequest, device: str, exec_paths: tuple[str, ...]) -> Any:
    """The candidate's sandbox: its folder, the reference's folder, and on a GPU the toolchain found once by the
    zygote (``sandbox.default_policy`` would look it up again, with subprocesses, for every candidate)."""
    reference_folder = str(Path(request.task["path"]).resolve().parent)
    gpu = device.startswith("cuda")
    return sandbox.SandboxPolicy(workdir=str(folder), read_paths=(reference_folder,),
                                 exec_paths=exec_paths if gpu else (), gpu=gpu)


def _child(channel: Any, request: JudgeRequest, device: str, folder: Path, counter: Any,
           env: dict[str, Any], exec_paths: tuple[str, ...]) -> None:
    from . import worker

    folder.mkdir(parents=True, exist_ok=True)
    os.chdir(folder)
    for name in ("HOME", "TMPDIR"):
        os.environ[name] = str(folder)
    os.environ["TRITON_CACHE_DIR"] = str(folder / "triton-cache")
    env = dict(env)
    if sandbox.opted_out():
        env["sandbox"] = "off (ADAEXPLORE_SANDBOX=off)"
    else:
        try:
            env.update(sandbox.enter(_policy(folder, request, device, exec_paths)))
        except sandbox.SandboxError as e:
            verdict = error("internal", f"The judge cannot sandbox candidates here: {e}")
            channel.send(type="verdict", id=request.id, nonce=request.nonce, verdict=verdict.to_dict())
            return
    if device.startswith("cuda"):
        whole = bool(request.options.get("whole_gpu"))
        share = WHOLE_GPU_FRACTION if whole else float(os.environ.get("ADAEXPLORE_GPU_MEMORY_FRACTION", "0.45"))
        worker.use_gpu(device, share)
        env.update(worker.gpu_environment(device))
    verdict = worker.judge(channel, request, counter, folder, env)
    channel.send(type="verdict", id=request.id, nonce=request.nonce, verdict=verdict.to_dict())


def main() -> int:
    from . import worker

    channel = worker.Channel()
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    if device == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        print("a CPU judge needs TRITON_INTERPRET=1 set before it starts", file=sys.stderr)
        return 2
    workdir = Path(sys.argv[2])
    workdir.mkdir(parents=True, exist_ok=True)
    os.chdir(workdir)
    sys.path[:] = [p for p in sys.path if p and Path(p).resolve() != workdir.resolve()]   # -m put it first
    counter = worker.prepare_process()
    env = worker.environment(device)
    exec_paths = sandbox.toolchain_paths() if device.startswith("cuda") else ()
    problems = [] if sandbox.opted_out() else sandbox.support().problems()
    channel.send(type="ready", env=env, sandbox_problems=problems)
    while True:
        message = channel.receive()
        if message is None:
            return 0
        if message.get("type") != "judge":
            continue
        request = JudgeRequest.from_message(message)
        folder = workdir / f"candidate-{request.id}"
        sys.stderr.flush()
        zygote = os.getpid()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.setpgid(0, 0)                       # the pool kills the candidate with all it started
                set_parent_death_signal(zygote)        # and it dies with the zygote
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)   # stacks on a timeout
                _child(channel, request, device, folder, counter, env, exec_paths)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
            except BaseException:  # noqa: BLE001 - report, then leave without running any cleanup of the parent's
                traceback.print_exc()
                code = 70
            finally:
                sys.stderr.flush()
                os._exit(code)
        channel.send(type="started", id=request.id, pid=pid)
        _, status = os.waitpid(pid, 0)
        try:                                 # whatever the candidate started dies with it, before the next request
            os.killpg(pid, signal.SIGKILL)   # (the sandbox refuses setsid/setpgid, so nothing left the group)
        except ProcessLookupError:
            pass
        channel.send(type="exited", id=request.id, status=_exit_description(status))
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
