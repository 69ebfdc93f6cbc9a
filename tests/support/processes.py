"""The processes of one test's job, found through /proc by a marker in their environment, and a slow module.

A test puts ``MARKER=<unique value>`` in the environment of the process it starts (the language server, or a
process holding a judge pool). Every process descended from it inherits the variable through fork and exec:
the engine, the reaper, zygotes, candidates and whatever a candidate forks, whichever session or process group
they are in, and whoever their parent is now (an orphan's parent is init). The environment a process was
started with stays in /proc/<pid>/environ whatever the process does to os.environ later.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

MARKER = "ADAEXPLORE_TEST_JOB"

# relu(2x + 1), slowly: on real CPU tensors (never while the built-in proposer traces it with torch.fx or on
# the meta device) the forward starts a child process that sleeps, once per process, then sleeps itself. The
# slow part sits in a module of its own beside the reference (a candidate may call what the reference imports;
# the judge's guard refuses os.fork in a candidate's own text).
SLOW_HELPER = '''\
"""Stall a forward: leave a sleeping child process behind (once per process), then sleep."""
import os
import time

_children = []


def stall(seconds):
    if not _children:
        pid = os.fork()
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        _children.append(pid)
    time.sleep(seconds)
'''

SLOW_MODULE = '''\
import torch
import torch.nn as nn

import slow_helper


class Slow(nn.Module):
    """relu(2x + 1), after a stall on real tensors."""

    def forward(self, x):
        if isinstance(x, torch.Tensor) and x.device.type == "cpu":   # not a torch.fx Proxy
            slow_helper.stall({sleep_s})
        return torch.relu(x * 2 + 1)


def get_inputs():
    return [torch.randn(8, 32)]


def get_init_inputs():
    return []
'''


def write_slow_module(folder: Path, sleep_s: float) -> Path:
    """slow.py (class Slow, stalling ``sleep_s`` seconds per call) and its helper, in ``folder``."""
    (folder / "slow_helper.py").write_text(SLOW_HELPER)
    path = folder / "slow.py"
    path.write_text(SLOW_MODULE.format(sleep_s=sleep_s))
    return path


@dataclass(frozen=True)
class Process:
    pid: int
    ppid: int
    session: int
    cmdline: str


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def marked(value: str) -> dict[int, Process]:
    """The live processes (zombies excluded) started with ``MARKER=value`` in their environment."""
    needle = f"{MARKER}={value}".encode()
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        environ, stat = _read(f"/proc/{name}/environ"), _read(f"/proc/{name}/stat")
        if environ is None or stat is None or needle not in environ.split(b"\0"):
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if fields[0] in (b"Z", b"X"):
            continue
        cmdline = (_read(f"/proc/{name}/cmdline") or b"").replace(b"\0", b" ").decode(errors="replace")
        found[int(name)] = Process(int(name), int(fields[1]), int(fields[3]), cmdline.strip())
    return found


def depth_below(processes: dict[int, Process], pid: int, root: int) -> int | None:
    """How many parent links lead from ``pid`` up to ``root`` among ``processes``; None if they do not."""
    depth = 0
    while pid != root:
        if pid not in processes:
            return None
        pid, depth = processes[pid].ppid, depth + 1
    return depth


def wait_for_descendant(value: str, root: int, depth: int, timeout_s: float) -> dict[int, Process]:
    """Wait until a marked process sits ``depth`` parent links below ``root`` (3: root -> zygote -> candidate ->
    the candidate's child); returns the marked processes then."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        processes = marked(value)
        if any((depth_below(processes, pid, root) or 0) >= depth for pid in processes):
            return processes
        time.sleep(0.2)
    raise AssertionError(f"no process {depth} levels below {root} after {timeout_s:g} s: {marked(value)}")


def survivors(value: str, timeout_s: float, keep: tuple[int, ...] = ()) -> dict[int, Process]:
    """The marked processes (other than ``keep``) still alive after waiting up to ``timeout_s`` for none."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = {pid: p for pid, p in marked(value).items() if pid not in keep}
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)
