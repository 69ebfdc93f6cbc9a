"""Every process a job starts dies with it: parent-death signals, sessions, and the pool's reaper.

* ``die_with_parent(sig)`` is a ``preexec_fn``: the child gets ``sig`` when its parent dies (Linux
  ``PR_SET_PDEATHSIG``). The kernel sends it when the *thread* that started the child ends, so start children
  only from threads that live as long as the children should (the server's event loop, the pool's slots).
* Each judge process (a zygote, a baseline process) leads a session of its own; its candidates and whatever
  they start stay in it (the sandbox refuses setsid and setpgid), so ``kill_sessions`` finds them all by session
  id in /proc, including a candidate's own child that no parent-death signal covers.
* The reaper (``python -m adaexplore_core.judge.lifetime``) is a small process in a session of its own that
  the pool tells which sessions it started. When its stdin reaches end of file, because the pool closed it or
  because the pool's process died in any way (SIGKILL included), it kills those sessions and exits.

Linux only where noted: elsewhere ``die_with_parent`` returns None, and without a readable /proc sessions are
killed by process group. A session's number is checked against its leader's start time before it is killed
(once its processes are gone, the number can lead an unrelated session).
Never imports torch (the language server uses ``die_with_parent``).
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Mapping

from .protocol import scrubbed_environment

_PR_SET_PDEATHSIG = 1
KILL_PASSES = 50            # sweeps of /proc: a process forking while it is killed leaves a child to find
KILL_PAUSE_S = 0.02
REAPER_EXIT_S = 5.0


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.restype = ctypes.c_int
    prctl.argtypes = (ctypes.c_int,) + (ctypes.c_ulong,) * 4     # the kernel reads unsigned longs
    return prctl


_PRCTL = _prctl()           # looked up once, in the parent: the forked child only calls it


def die_with_parent(sig: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A ``preexec_fn`` giving the child ``sig`` when its parent (the thread that forks it) ends; None off Linux.
    A parent that died before the child asked is caught too: the child then sends itself ``sig``."""
    if _PRCTL is None:
        return None
    parent = os.getpid()
    return lambda: set_parent_death_signal(parent, sig)


def set_parent_death_signal(parent: int, sig: int = signal.SIGKILL) -> None:
    """The same for the calling process itself, after a plain fork from ``parent`` (the zygote's candidates)."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:        # the parent died between fork and prctl: nobody would signal us
            os.kill(os.getpid(), sig)


def _stat(pid: int | str) -> tuple[str, int, int] | None:
    """A process's state letter, session id and start time (clock ticks after boot) from /proc/<pid>/stat;
    None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()        # after "pid (comm) ": state ppid pgrp session ...
    return fields[0].decode(), int(fields[3]), int(fields[19])


def start_time(pid: int) -> int | None:
    """When process ``pid`` started (None when it is gone or /proc cannot tell): with its pid, who it is."""
    found = _stat(pid)
    return found[2] if found else None


def _ours(sid: int, started: Mapping[int, int | None]) -> bool:
    """Whether session ``sid`` is still the one whose leader started at ``started[sid]``. A session's number
    stays taken while any process of it lives, so it can name an unrelated session only once a new process
    with that pid leads one: then that process's start time differs."""
    now = start_time(sid)
    return started.get(sid) is None or now is None or now == started[sid]


def session_members(sids: set[int] | frozenset[int]) -> list[int]:
    """The live processes of the sessions ``sids`` (zombies are dead already), this one excepted."""
    members = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            found = _stat(name)
            if found and found[1] in sids and found[0] not in ("Z", "X"):
                members.append(int(name))
    return members


def kill_sessions(sids: Iterable[int], started: Mapping[int, int | None] | None = None) -> None:
    """SIGKILL every process of the sessions ``sids``, until none is left (a second or so at most). A session
    whose leader's start time is in ``started`` is left alone once its number leads another session."""
    started = started or {}
    sids = frozenset(sids)
    if not sids:
        return
    for _ in range(KILL_PASSES):
        live = frozenset(sid for sid in sids if _ours(sid, started))
        try:
            found = session_members(live) if os.path.exists(f"/proc/{os.getpid()}/stat") else None
        except OSError:
            found = None
        if found is None:                              # no readable /proc: the leaders' process groups
            for sid in live:
                _kill(lambda: os.killpg(sid, signal.SIGKILL))
            return
        if not found:
            return
        for pid in found:
            _kill(lambda: os.kill(pid, signal.SIGKILL))
        time.sleep(KILL_PAUSE_S)


def _kill(send: Callable[[], None]) -> None:
    try:
        send()
    except (ProcessLookupError, PermissionError):
        pass


class Reaper:
    """The pool's handle on its reaper process: ``watch`` each judge process's session as it starts,
    ``kill_all`` to end them all now, ``close`` to end them and the reaper."""

    def __init__(self, python: str = sys.executable) -> None:
        self.sessions: dict[int, int | None] = {}      # session id -> its leader's start time
        self._lock = threading.Lock()
        env = scrubbed_environment()
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        self.proc = subprocess.Popen([python, "-m", "adaexplore_core.judge.lifetime"], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, env=env, start_new_session=True)

    def _tell(self, line: str) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            pass                                        # the reaper is gone: kill_all and close still work

    def watch(self, sid: int) -> None:
        """Watch the session that process ``sid`` (alive now) leads."""
        started = start_time(sid)
        with self._lock:
            self.sessions[sid] = started
            self._tell(f"watch {sid} {started}" if started is not None else f"watch {sid}")

    def forget(self, sid: int) -> None:
        """After ``kill_sessions({sid})``: its number may be used again by an unrelated session."""
        with self._lock:
            self.sessions.pop(sid, None)
            self._tell(f"forget {sid}")

    def kill_all(self) -> None:
        with self._lock:
            sessions = dict(self.sessions)
        kill_sessions(sessions, sessions)

    def close(self) -> None:
        self.kill_all()
        with self._lock:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()             # end of file: the reaper sweeps once more and exits
            except OSError:
                pass
        try:
            self.proc.wait(timeout=REAPER_EXIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def main() -> int:
    """The reaper process: reads ``watch SID [START]`` / ``forget SID`` lines; at end of file kills those
    sessions."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # the pool's end is end of file, nothing else
    sessions: dict[int, int | None] = {}
    for line in sys.stdin.buffer:
        words = line.split()
        if len(words) in (2, 3) and all(w.isdigit() for w in words[1:]):
            if words[0] == b"watch":
                sessions[int(words[1])] = int(words[2]) if len(words) == 3 else None
            elif words[0] == b"forget":
                sessions.pop(int(words[1]), None)
    kill_sessions(sessions, sessions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
