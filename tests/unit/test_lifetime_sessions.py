"""lifetime.kill_sessions: a session number that now leads an unrelated session is left alone, and without a
readable /proc the leaders' process groups are killed."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from adaexplore_core.judge import lifetime

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and sessions: Linux")


@pytest.fixture
def leader():
    """A process leading a session of its own, and a child of it in that session."""
    process = subprocess.Popen(["/bin/sh", "-c", "sleep 60 & wait"], start_new_session=True)
    deadline = time.monotonic() + 10
    while len(lifetime.session_members({process.pid})) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    yield process
    lifetime.kill_sessions({process.pid})
    process.wait()


def test_a_session_number_led_by_another_process_is_not_killed(leader):
    started = lifetime.start_time(leader.pid)
    assert started is not None
    lifetime.kill_sessions({leader.pid}, {leader.pid: started + 1})      # the number leads another session now
    assert leader.poll() is None and len(lifetime.session_members({leader.pid})) == 2
    lifetime.kill_sessions({leader.pid}, {leader.pid: started})
    assert leader.wait(timeout=5) == -9 and lifetime.session_members({leader.pid}) == []


def test_the_reaper_checks_the_leader_it_was_told_of(leader):
    reaper = subprocess.Popen([sys.executable, "-m", "adaexplore_core.judge.lifetime"], stdin=subprocess.PIPE,
                              start_new_session=True)
    reaper.communicate(f"watch {leader.pid} {lifetime.start_time(leader.pid) + 1}\n".encode(), timeout=30)
    assert reaper.returncode == 0 and leader.poll() is None


def test_without_a_readable_proc_the_process_groups_are_killed(leader, monkeypatch):
    real_listdir = os.listdir

    def listdir(path="."):
        if str(path) == "/proc":
            raise PermissionError(13, "Permission denied", "/proc")
        return real_listdir(path)
    monkeypatch.setattr(os, "listdir", listdir)
    lifetime.kill_sessions({leader.pid})
    assert leader.wait(timeout=5) == -9
