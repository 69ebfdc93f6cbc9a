"""The progress display of `adaexplore optimize`: elapsed time and an estimate of the time left, as a rich bar
on a terminal (a real pty here) and as plain lines without control characters when stderr is a pipe.

The two CPU searches (Triton interpreter) start together up front; each test waits for its own.
"""
from __future__ import annotations

import concurrent.futures
import fcntl
import io
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from adaexplore_core.progress import SearchClock, SearchProgress, clock

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "adaexplore_core" / "examples" / "fused_bias_gelu.py"
STEPS = 3
RUN_TIMEOUT_S = 400
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "NO_COLOR", "TERM")}
    env["TERM"] = "xterm-256color"
    return env


def command(out: Path) -> list[str]:
    return [sys.executable, "-m", "adaexplore_core.cli", "optimize", str(REFERENCE), "--steps", str(STEPS),
            "--device", "cpu", "--out", str(out)]


def run_piped(out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command(out), capture_output=True, text=True, timeout=RUN_TIMEOUT_S, cwd=ROOT,
                          env=cli_env())


def run_in_terminal(out: Path) -> tuple[int, str, str]:
    """The command with stderr on a pty of 160 columns (stdout a pipe); its exit status, stdout, pty output."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    proc = subprocess.Popen(command(out), stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                            cwd=ROOT, env=cli_env())
    os.close(slave)
    chunks, deadline = [], time.monotonic() + RUN_TIMEOUT_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:                  # the pty closed: the process is gone
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        stdout = proc.communicate(timeout=30)[0].decode()
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return proc.returncode, stdout, b"".join(chunks).decode(errors="replace")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp("progress")
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as executor:
        yield {"piped": executor.submit(run_piped, work / "piped"),
               "terminal": executor.submit(run_in_terminal, work / "terminal")}


def test_piped_progress_is_plain_lines_with_elapsed_and_eta(runs):
    done = runs["piped"].result(timeout=RUN_TIMEOUT_S * 2)
    assert done.returncode == 0, done.stderr
    assert not CONTROL.search(done.stderr.replace("\n", "")), repr(done.stderr)
    steps = [line for line in done.stderr.splitlines() if line.startswith("step ")]
    assert [line.split(" |")[0] for line in steps] == [f"step {i}/{STEPS}" for i in range(1, STEPS + 1)]
    for line in steps:
        assert re.search(r"\| elapsed \d+:\d\d:\d\d \| ETA \d+:\d\d:\d\d \| best ", line), line
    assert re.search(rf"ETA 0:00:00 \| best .* \| valid \d/{STEPS}", steps[-1]), steps[-1]
    assert re.search(rf"^search finished: {STEPS} candidate\(s\), \d valid, in \d+:\d\d:\d\d$", done.stderr, re.M)
    assert done.stdout.startswith(f"{STEPS} candidate(s)")          # the summary stays on stdout


def test_terminal_progress_is_a_live_bar_with_elapsed_and_eta(runs):
    status, stdout, screen = runs["terminal"].result(timeout=RUN_TIMEOUT_S * 2)
    assert status == 0, screen
    assert "\x1b[" in screen                      # rich redraws the bar in place
    text = ANSI.sub("", screen)
    assert re.search(r"elapsed\s+\d+:\d\d:\d\d\s+ETA\s+\d+:\d\d:\d\d", text), text[-2000:]
    assert re.search(rf"{STEPS}/{STEPS}\s+elapsed", text), text[-2000:]
    assert f"search finished: {STEPS} candidate(s)" in text
    assert not CONTROL.search(stdout.replace("\n", "")) and stdout.startswith(f"{STEPS} candidate(s)")


# the pieces, without a search ----------------------------------------------------------------------------

def test_clock_and_estimate():
    assert clock(3725.4) == "1:02:05" and clock(None) == "-" and clock(-3) == "0:00:00"
    timer = SearchClock(steps=10, resumed=2, now=100.0)
    assert timer.remaining(now=110.0) is None                  # nothing judged in this run yet
    timer.judged(4)                                            # 2 candidates in 20 s; 6 left
    assert timer.elapsed(now=120.0) == 20.0 and timer.remaining(now=120.0) == pytest.approx(60.0)


class Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


def event(event_type: str, **fields) -> dict:
    return {"event": event_type, "time": "2026-12-01T00:00:00.000+00:00", "job": "j", **fields}


def test_plain_mode_strips_control_characters_from_messages():
    stream = Pipe()
    progress = SearchProgress(stream)
    progress(event("job_started", task="model.py::Model", steps=2, proposer="llm", devices=["cpu"], out="o",
                   resumed_steps=0))
    progress(event("error", message="proposer: \x1b[31mrate limited\x1b[0m\rretrying", fatal=False))
    progress(event("candidate_judged", step=1, steps=2, node=1, parent=0, kind="large", verdict="invalid",
                   stage="compile\x07", reason="r", description="d", reward=0.0, speedup_vs_eager=None,
                   speedup_vs_compile=None, duplicate=False, seconds=1.0))
    text = stream.getvalue()
    assert not CONTROL.search(text.replace("\n", "")), repr(text)
    assert "rate limited" in text and "step 1/2 | elapsed 0:00:00 | ETA 0:00:00" in text
