"""No judge process outlives its pool: not when the pool's process is killed (SIGKILL: no Python code of it
runs), and not when the pool closes while a slow candidate runs (the close ends it at once, it does not wait
for the candidate's time limit). The candidate's process starts a child of its own (the sandbox allows fork);
that one has to go too. Processes are found by a marker in their environment (tests/support/processes.py).
First the two parts on their own (judge/lifetime.py): the reaper, and a child that dies with its parent."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

from adaexplore_core.judge.lifetime import Reaper, session_members
from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.task import TaskSpec

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from support.processes import MARKER, survivors, wait_for_descendant, write_slow_module  # noqa: E402

CANDIDATE = (ROOT / "tests" / "data" / "judge" / "candidates" / "pointwise" / "valid.py").read_text()
STARTUP_S = 120          # a zygote imports torch and triton; the machine may be busy
GONE_S = 5
SLEEPER = "import os, time\nif os.fork() == 0:\n    time.sleep(600)\ntime.sleep(600)\n"   # and its child


def sleeper_session() -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", SLEEPER], start_new_session=True)
    for _ in range(100):
        if len(session_members({process.pid})) == 2:
            return process
        time.sleep(0.05)
    raise AssertionError("the sleeper did not fork")


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_the_reaper_kills_the_sessions_it_watches_at_end_of_file():
    watched, forgotten = sleeper_session(), sleeper_session()
    try:
        reaper = Reaper()
        reaper.watch(watched.pid)
        reaper.watch(forgotten.pid)
        reaper.forget(forgotten.pid)
        reaper.proc.stdin.close()                     # as when the pool's process dies: only end of file
        reaper.proc.wait(timeout=GONE_S)
        assert session_members({watched.pid}) == []  # the leader and the child it forked
        assert len(session_members({forgotten.pid})) == 2
    finally:
        for process in (watched, forgotten):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_a_child_started_with_die_with_parent_dies_with_it():
    parent = textwrap.dedent('''\
        import subprocess, sys, time
        from adaexplore_core.judge.lifetime import die_with_parent
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True,
                                 preexec_fn=die_with_parent())
        print(child.pid, flush=True)
        time.sleep(600)
    ''')
    process = subprocess.Popen([sys.executable, "-c", parent], stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    child = int(process.stdout.readline())
    try:
        process.kill()
        process.wait()
        deadline = time.monotonic() + GONE_S
        while alive(child):
            assert time.monotonic() < deadline, "the child outlived its parent"
            time.sleep(0.05)
    finally:
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass


def slow_task(folder: Path) -> TaskSpec:
    return TaskSpec(str(write_slow_module(folder, sleep_s=600)), "Slow")


def test_killing_the_pools_process_leaves_no_judge_process(tmp_path):
    marker = uuid.uuid4().hex
    task = slow_task(tmp_path)
    holder = textwrap.dedent(f'''\
        import sys
        from adaexplore_core.judge.pool import JudgeConfig, JudgePool
        from adaexplore_core.task import TaskSpec
        pool = JudgePool(JudgeConfig(devices=("cpu",), timeout_s=600, memory_limit_mb=4096))
        pool.judge(TaskSpec({task.path!r}, "Slow"), sys.stdin.read())
    ''')
    env = {**os.environ, MARKER: marker, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-c", holder], stdin=subprocess.PIPE, env=env, text=True)
    try:
        process.stdin.write(CANDIDATE)
        process.stdin.close()
        wait_for_descendant(marker, process.pid, 3, STARTUP_S)   # pool -> zygote -> candidate -> its child
        process.kill()
        process.wait()
        assert survivors(marker, GONE_S) == {}
    finally:
        process.kill()
        for pid in survivors(marker, 0):
            os.kill(pid, signal.SIGKILL)


def test_closing_the_pool_ends_a_slow_candidate_at_once(tmp_path, monkeypatch):
    marker = uuid.uuid4().hex
    monkeypatch.setenv(MARKER, marker)               # the pool's processes inherit it (this one's /proc does not)
    pool = JudgePool(JudgeConfig(devices=("cpu",), timeout_s=600, memory_limit_mb=4096))
    try:
        future = pool.submit(slow_task(tmp_path), CANDIDATE)
        wait_for_descendant(marker, os.getpid(), 3, STARTUP_S)
        closing = threading.Thread(target=pool.close, daemon=True)
        closing.start()
        closing.join(GONE_S)
        assert not closing.is_alive(), "the close waits for the slow candidate"
        assert survivors(marker, GONE_S, keep=(os.getpid(),)) == {}
        assert "closed while the candidate was judged" in future.result(timeout=GONE_S).reason
    finally:
        pool.close()
        for pid in survivors(marker, 0, keep=(os.getpid(),)):
            os.kill(pid, signal.SIGKILL)
