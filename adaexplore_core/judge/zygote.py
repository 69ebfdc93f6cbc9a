"""The fork server: one per judge slot, it forks a fresh, sandboxed process for every candidate.

Run as ``python -m adaexplore_core.judge.zygote DEVICE WORKDIR`` by the pool. It imports torch and triton once
(seconds saved per candidate) but never initialises CUDA and never runs candidate code, so every child starts
from the same clean state. Per request: fork; the child makes its own folder, enters the OS sandbox, judges,
sends its verdict and exits; the zygote reports the child's pid when it starts and its exit status when it ends
(a crash is a verdict too). The child never holds the pool's protocol descriptors: it talks on a socket of its
own, and the zygote relays only the messages a candidate's process may send (one verdict, for its own request;
device and timing requests) and the pool's answers, until the child has exited. So a candidate's process, or
anything it left behind, can neither report its own exit nor read the next request. A child dies with the
zygote (a parent-death signal, set before the sandbox), and the zygote with the pool (``lifetime.py``).
"""
from __future__ import annotations

import faulthandler
import os
import select
import selectors
import shutil
import signal
import socket
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


# What a candidate's process may say to the pool (worker.py): everything else ("started", "exited", "ready")
# only the zygote says.
CHILD_MESSAGES = frozenset({"verdict", "clock", "acquire", "release", "time", "samples", "completion"})
RELAY_POLL_S = 0.05          # how often the relay looks whether the child has exited


def _relay(pool: Any, child: Any, pid: int, request_id: int) -> int:
    """Pass the child's messages to the pool and the pool's answers to the child until the child exits; the
    child's wait status. A message the child may not send, or a second verdict, is dropped (and logged)."""
    verdicts = 0

    def from_child(message: dict[str, Any] | None) -> bool:
        nonlocal verdicts
        if message is None:
            return False
        kind = message.get("type")
        if kind == "verdict":
            verdicts += 1
        if kind not in CHILD_MESSAGES or (kind == "verdict" and (verdicts > 1 or message.get("id") != request_id)):
            print(f"zygote: dropped a {kind!r} message from candidate {request_id}", file=sys.stderr)
        else:
            pool.send(**message)
        return True

    def next_from_child() -> dict[str, Any] | None:
        try:
            return child.receive()
        except ValueError:                        # not a message of the protocol: dropped like one it may not send
            return {"type": "undecodable"}

    selector = selectors.DefaultSelector()
    selector.register(child.fileno(), selectors.EVENT_READ, "child")
    selector.register(pool.fileno(), selectors.EVENT_READ, "pool")
    child_open = True
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:                          # what it sent before it exited; its group first, so that nothing
                _kill_group(pid)              # it left behind holds the socket open (receive then ends)
                while child_open and (child.has_message() or _readable(child)):
                    child_open = from_child(next_from_child())
                return status
            for key, _ in selector.select(RELAY_POLL_S):
                if key.data == "child" and child_open:
                    child_open = from_child(next_from_child())
                    while child_open and child.has_message():
                        child_open = from_child(next_from_child())
                    if not child_open:
                        selector.unregister(child.fileno())
                elif key.data == "pool":
                    message = pool.receive()
                    if message is None:                    # the pool is gone: so is the candidate
                        _kill_group(pid)
                        return os.waitpid(pid, 0)[1]
                    messages = [message] + [pool.receive() for _ in iter(pool.has_message, False)]
                    for message in messages if child_open else ():
                        try:
                            child.send(**message)
                        except OSError:                    # it is exiting: waitpid sees it next
                            child_open = False
                            selector.unregister(child.fileno())
                            break
    finally:
        selector.close()


def _readable(channel: Any) -> bool:
    return bool(select.select([channel.fileno()], [], [], 0)[0])


def _kill_group(pid: int) -> None:
    try:                                 # whatever the candidate started dies with it, before the next request
        os.killpg(pid, signal.SIGKILL)   # (the sandbox refuses setsid/setpgid, so nothing left the group)
    except ProcessLookupError:
        pass


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
        mine, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.setpgid(0, 0)                       # the pool kills the candidate with all it started
                set_parent_death_signal(zygote)        # and it dies with the zygote
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)   # stacks on a timeout
                channel.close()                        # the pool's descriptors stay with the zygote
                mine.close()
                own = worker.Channel.over(theirs)
                theirs.close()
                _child(own, request, device, folder, counter, env, exec_paths)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
            except BaseException:  # noqa: BLE001 - report, then leave without running any cleanup of the parent's
                traceback.print_exc()
                code = 70
            finally:
                sys.stderr.flush()
                os._exit(code)
        theirs.close()
        relay = worker.Channel.over(mine)
        mine.close()
        channel.send(type="started", id=request.id, pid=pid)
        try:
            status = _relay(channel, relay, pid, request.id)     # it has killed the child's group
        finally:
            relay.close()
        channel.send(type="exited", id=request.id, status=_exit_description(status))
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
