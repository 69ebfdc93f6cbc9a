"""The fork server: one per judge slot, it forks a fresh, sandboxed process for every candidate.

Run as ``python -m adaexplore_core.judge.zygote DEVICE WORKDIR`` by the pool. It imports torch and triton once
(seconds saved per candidate) but never initialises CUDA and never runs candidate code, so every child starts
from the same clean state. Per request: fork; the child makes its own folder, enters the OS sandbox, judges,
sends its verdict and exits; the zygote reports the child's pid when it starts and its exit status when it ends
(a crash is a verdict too). The child never holds the pool's protocol descriptors: it talks on a socket of its
own, and the zygote relays only the messages a candidate's process may send (one verdict, for its own request;
device and timing requests) and the pool's answers, until the child has exited. So a candidate's process, or
anything it left behind, can neither report its own exit nor read the next request. A valid verdict is held
until then, and passed on only after the slot's witness process (forked alike and kept between candidates,
since it never runs candidate code) has compared the outputs the candidate's process recorded with the reference's (``witness.py``). A child dies
with the zygote (a parent-death signal, set before the sandbox), and the zygote with the pool
(``lifetime.py``).
"""
from __future__ import annotations

import dataclasses
import faulthandler
import os
import select
import selectors
import shutil
import signal
import socket
import sys
import time
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
WITNESS_MESSAGES = frozenset({"witness", "clock", "acquire", "release"})   # the witness process's (witness.py)
RELAY_POLL_S = 0.05          # how often the relay looks whether the child has exited
PROFILE_ENV = "ADAEXPLORE_JUDGE_PROFILE"   # a folder: each child's cProfile of its judging is copied there
PROFILE_NAME = "judge-profile.txt"
PROFILE_MAX_BYTES = 1 << 20


def _relay(pool: Any, child: Any, pid: int, request_id: int, held: list[dict[str, Any]],
           hold: Any = lambda message: False, allowed: frozenset[str] = CHILD_MESSAGES,
           until: Any = None) -> int | None:
    """Pass the child's messages to the pool and the pool's answers to the child until the child exits; the
    child's wait status. A message the child may not send, or a second verdict, is dropped (and logged); one
    for which ``hold(message)`` is true is appended to ``held`` instead of passed on. ``until(held)``, where
    given: return None as soon as it is true (a process that lives on: the witness)."""
    verdicts = 0

    def from_child(message: dict[str, Any] | None) -> bool:
        nonlocal verdicts
        if message is None:
            return False
        kind = message.get("type")
        if kind == "verdict":
            verdicts += 1
        if kind not in allowed or (kind == "verdict" and (verdicts > 1 or message.get("id") != request_id)):
            print(f"zygote: dropped a {kind!r} message from candidate {request_id}", file=sys.stderr)
        elif hold(message):
            held.append(message)
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
                    while child_open and child.has_message() and not (until and until(held)):
                        child_open = from_child(next_from_child())
                    if until and until(held):
                        return None
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


def _claims_valid(message: dict[str, Any]) -> bool:
    verdict = message.get("verdict")
    return message.get("type") == "verdict" and isinstance(verdict, dict) and verdict.get("verdict") == "valid"


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
    gpu = device.startswith("cuda")
    return sandbox.SandboxPolicy(workdir=str(folder), read_paths=(_reference_folder(request),),
                                 exec_paths=exec_paths if gpu else (), gpu=gpu)


def _child(channel: Any, request: JudgeRequest, device: str, folder: Path, counter: Any,
           env: dict[str, Any], exec_paths: tuple[str, ...]) -> None:
    from . import worker

    _move_into(folder)
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
        worker.use_gpu(device, _gpu_share(request))
        env.update(worker.gpu_environment(device))
    if os.environ.get(PROFILE_ENV):
        verdict = _profiled(lambda: worker.judge(channel, request, counter, folder, env), folder / PROFILE_NAME)
    else:
        verdict = worker.judge(channel, request, counter, folder, env)
    channel.send(type="verdict", id=request.id, nonce=request.nonce, verdict=verdict.to_dict())


def _profiled(run: Any, out: Path) -> Any:
    """``run()`` under cProfile (a diagnostic the user opts into with ADAEXPLORE_JUDGE_PROFILE); the 60 functions
    with the most cumulative time are written to ``out`` in the child's own folder."""
    import cProfile
    import io
    import pstats

    profile = cProfile.Profile()
    try:
        return profile.runcall(run)
    finally:
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(60)
        out.write_text(text.getvalue())


def _keep_profile(folder: Path, request_id: int) -> None:
    """Copy a child's profile into the folder ADAEXPLORE_JUDGE_PROFILE names. The child wrote it: it is read
    without following links, only as a regular file and at most PROFILE_MAX_BYTES: never another file."""
    target = os.environ.get(PROFILE_ENV)
    if not target:
        return
    try:
        text = sandbox.read_plain_file(folder / PROFILE_NAME, PROFILE_MAX_BYTES, single_link=True)
    except OSError:                        # none, a link, a pipe, a device or a second name of another file
        return
    text = text[:PROFILE_MAX_BYTES]
    Path(target).mkdir(parents=True, exist_ok=True)
    (Path(target) / f"{os.getpid()}-{request_id}.txt").write_bytes(text)


def _move_into(folder: Path) -> None:
    """A child's own folder: made, its working directory, its HOME, TMPDIR and Triton cache."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chdir(folder)
    for name in ("HOME", "TMPDIR"):
        os.environ[name] = str(folder)
    os.environ["TRITON_CACHE_DIR"] = str(folder / "triton-cache")


def _gpu_share(request: JudgeRequest) -> float:
    """The part of the GPU's memory a child may take: all but the baseline's room for a whole-GPU task."""
    if request.options.get("whole_gpu"):
        return WHOLE_GPU_FRACTION
    return float(os.environ.get("ADAEXPLORE_GPU_MEMORY_FRACTION", "0.45"))


def _fork(run: Any, channel: Any, others: tuple[Any, ...] = ()) -> tuple[int, Any]:
    """Fork a child in a process group of its own that dies with the zygote and talks on a socket of its own
    (never on the pool's descriptors, nor on ``others``: the kept witness's channel, which a candidate could
    otherwise write checks and answers into; review, 2026-12-02); ``run(own_channel)`` is what it does.
    (pid, the zygote's end)."""
    from . import worker

    zygote = os.getpid()
    mine, theirs = socket.socketpair()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.setpgid(0, 0)                       # the pool kills the candidate with all it started
            set_parent_death_signal(zygote)        # and it dies with the zygote
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)   # stacks on a timeout
            channel.close()                        # the pool's descriptors stay with the zygote
            for other in others:
                other.close()
            mine.close()
            own = worker.Channel.over(theirs)
            theirs.close()
            run(own)
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
    return pid, relay


class _Witness:
    """The slot's witness process (witness.py), kept from one candidate to the next: forked from the zygote like
    a candidate's process and sandboxed alike, it never runs candidate code, so it can live on, and CUDA, cuBLAS
    and torch's first-use costs are paid once instead of per candidate. It may read the zygote's folder, where
    every candidate's folder is made, and the reference's; a request for another reference folder or GPU share
    starts a new one, as does one that died, and one where a reference replaced torch's functions or added its
    own to them (each check starts from a candidate's starting state: flags a reference set are set back, and
    the user's modules it imported are forgotten, ``witness.check``). Candidates cannot signal or trace it
    (the sandbox's seccomp filter: signals only to themselves, no ptrace, no process_vm_*)."""

    def __init__(self, device: str, workdir: Path, exec_paths: tuple[str, ...]) -> None:
        self.device, self.workdir, self.exec_paths = device, workdir, exec_paths
        self.pid: int | None = None
        self.channel: Any = None
        self.key: tuple[str, float] | None = None

    def for_request(self, request: JudgeRequest, pool: Any) -> tuple[int, Any]:
        """(pid, channel) of a live witness that can check ``request``."""
        key = (_reference_folder(request), _gpu_share(request))
        if self.pid is not None and (key != self.key or not self._alive()):
            self.close()
        if self.pid is None:
            folder = self.workdir / "witness"
            self.pid, self.channel = _fork(lambda own: _witness_child(own, request, self.device, folder, self.workdir,
                                                                      self.exec_paths), pool)
            self.key = key
        return self.pid, self.channel

    def channels(self) -> tuple[Any, ...]:
        """What a candidate's process must not inherit: the witness's channel."""
        return (self.channel,) if self.channel is not None else ()

    def _alive(self) -> bool:
        assert self.pid is not None
        try:
            return os.waitpid(self.pid, os.WNOHANG)[0] == 0
        except ChildProcessError:                            # reaped already (the relay saw it exit)
            return False

    def close(self) -> None:
        if self.pid is not None:
            if self._alive():
                _kill_group(self.pid)
                os.waitpid(self.pid, 0)
            self.channel.close()
        self.pid, self.channel, self.key = None, None, None


def _reference_folder(request: JudgeRequest) -> str:
    return str(Path(request.task["path"]).resolve().parent)


def _witness_child(channel: Any, first: JudgeRequest, device: str, folder: Path, readable: Path,
                   exec_paths: tuple[str, ...]) -> None:
    """The witness process (witness.py): sandboxed like a candidate's, with the zygote's folder (where the
    candidates' folders are) readable; for each ``check`` it builds only the reference and says whether the
    candidate's recorded outputs are the reference's."""
    import torch

    from . import witness, worker
    from .globalstate import GlobalState

    shutil.rmtree(folder, ignore_errors=True)
    _move_into(folder)
    if not sandbox.opted_out():
        policy = _policy(folder, first, device, exec_paths)
        try:
            sandbox.enter(dataclasses.replace(policy, read_trees=(str(readable),)))
        except sandbox.SandboxError as e:
            channel.send(type="witness", id=first.id, ok=False, failed=True,
                         detail=f"it cannot be sandboxed here: {e}")
            return
    gpu = device.startswith("cuda")
    if gpu:
        worker.use_gpu(device, _gpu_share(first))
    clean = GlobalState()                    # as a candidate's process starts: a check must begin from it
    while True:
        message = channel.receive()
        if message is None:
            return
        if message.get("type") != "check":
            continue
        request = JudgeRequest.from_message(message["request"])
        waited = time.monotonic()
        if gpu:
            channel.send(type="acquire", exclusive=bool(request.options.get("whole_gpu")))
            go = channel.receive()
            if go is None or go.get("type") != "go":
                return
        waited = time.monotonic() - waited
        failed = False
        try:
            ok, detail = witness.check(request, torch.device(device), Path(message["folder"]))
        except Exception as e:  # noqa: BLE001 - the reference failed here as it did not in the candidate's process
            ok, failed, detail = False, True, f"{type(e).__name__}: {e}"
        if gpu:
            torch.cuda.synchronize(device)
            torch.cuda.empty_cache()                     # the next candidate's share of the memory is all its own
            channel.send(type="release")
        channel.send(type="witness", id=request.id, ok=ok, failed=failed, detail=detail[:500],
                     gpu_wait=round(waited, 3))
        clean.restore_flags()                # a reference may set flags when imported (cudnn.benchmark)
        if clean.changes(added="foreign"):   # or replace torch's functions, or add its own to torch's classes:
            return                           # the next check starts in a new witness (torch's lazy names: kept)


def _witnessed(pool: Any, request: JudgeRequest, witness_process: _Witness, candidate_folder: Path,
               message: dict[str, Any]) -> dict[str, Any]:
    """The candidate's valid verdict ``message`` as it stands after the witness process: with a passed
    ``witnessed`` check, or replaced by an invalid verdict."""
    from .verdict import Check, Verdict, invalid

    try:
        verdict = Verdict.from_dict(message["verdict"])
    except (KeyError, TypeError, ValueError) as e:
        verdict = invalid("runtime", "The candidate's process sent a verdict the judge cannot read",
                          [Check("protocol", False, f"{type(e).__name__}")])
        return {**message, "verdict": verdict.to_dict()}
    started = time.monotonic()
    pool.send(type="clock", running=False)                   # the reference's time, not the candidate's
    held: list[dict[str, Any]] = []
    status: int | None = None

    def mine(answer: dict[str, Any]) -> bool:                # not an answer left over from an earlier check
        return answer.get("id") == request.id

    for _ in range(2):
        kept = witness_process.pid
        pid, relay = witness_process.for_request(request, pool)
        reused = pid == kept                                 # not one started now (a dead one replaced)
        try:
            relay.send(type="check", request=request.to_message(), folder=str(candidate_folder))
        except OSError:
            pass                                             # it has exited: the relay reads what it said first
        status = _relay(pool, relay, pid, request.id, held, allowed=WITNESS_MESSAGES,
                        hold=lambda m: m.get("type") == "witness", until=lambda got: any(mine(m) for m in got))
        if status is not None:                               # it exited: the next check starts another
            witness_process.close()
        answer = next((m for m in held if mine(m)), None)
        if answer is not None and answer.get("failed") and reused:
            held.remove(answer)                              # the reference failed in a kept witness (its state,
            witness_process.close()                          # e.g. an operator library it registers when
            continue                                         # imported, red team c3): once more in a new one
        if answer is not None or not reused:                 # a witness kept from earlier may have died since
            break
    pool.send(type="clock", running=True)
    phases = {**verdict.phase_seconds, "witness": round(time.monotonic() - started, 3)}
    ended = f" ({_exit_description(status)})" if status is not None else ""
    answer = next((m for m in held if mine(m)), {"failed": True, "detail": f"it ended without an answer{ended}"})
    if isinstance(answer.get("gpu_wait"), (int, float)) and answer["gpu_wait"] >= 0.001:
        phases["witness.gpu_wait"] = float(answer["gpu_wait"])
    ok, detail = bool(answer.get("ok")), str(answer.get("detail"))
    if answer.get("failed"):              # the judge's own failure, not the candidate's: no verdict either way
        verdict = error("internal", f"The witness process could not check the candidate's outputs: {detail}",
                        env=verdict.env, checks=verdict.checks + [Check("witnessed", False, detail)])
    elif ok:
        verdict.checks.append(Check("witnessed", True, detail))
    else:
        verdict = invalid("correctness", "The candidate's outputs, recorded in its own process and compared with "
                          f"the reference's in a process where it never ran, do not match: {detail}",
                          verdict.checks + [Check("witnessed", False, detail)], env=verdict.env,
                          envelope=verdict.envelope, trials=verdict.trials)
    verdict.phase_seconds = phases
    verdict.env = {**verdict.env, "witness_process": "kept from an earlier check" if reused else "started for it"}
    return {**message, "verdict": verdict.to_dict()}


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
    witness_process = _Witness(device, workdir, exec_paths)
    while True:
        message = channel.receive()
        if message is None:
            witness_process.close()
            return 0
        if message.get("type") != "judge":
            continue
        request = dataclasses.replace(JudgeRequest.from_message(message), device=device)   # its name here
        folder = workdir / f"candidate-{request.id}"
        pid, relay = _fork(lambda own: _child(own, request, device, folder, counter, env, exec_paths), channel,
                           witness_process.channels())
        channel.send(type="started", id=request.id, pid=pid)
        held: list[dict[str, Any]] = []
        try:                                                     # a valid verdict waits for the witness
            status = _relay(channel, relay, pid, request.id, held, hold=_claims_valid)   # it has killed the group
        finally:
            relay.close()
        _keep_profile(folder, request.id)      # before a held verdict: whoever reads it finds the profile there
        for verdict in held:
            channel.send(**_witnessed(channel, request, witness_process, folder, verdict))
        channel.send(type="exited", id=request.id, status=_exit_description(status))
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
