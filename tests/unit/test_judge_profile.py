"""The opt-in profile of a candidate's judging (ADAEXPLORE_JUDGE_PROFILE): written by the candidate's process,
copied out by the zygote only as a plain file of its own."""
from __future__ import annotations

import os
import sys

import pytest

from adaexplore_core.judge import zygote
from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.task import TaskSpec

from tests.unit.test_protocol import CANDIDATE, REFERENCE


@pytest.fixture
def profiles(tmp_path, monkeypatch):
    target = tmp_path / "profiles"
    monkeypatch.setenv(zygote.PROFILE_ENV, str(target))
    return target


def test_a_profiled_judging_leaves_its_profile(tmp_path, profiles):
    ref = tmp_path / "ref.py"
    ref.write_text(REFERENCE, encoding="utf-8")
    config = JudgeConfig(devices=("cpu",), timeout_s=60, memory_limit_mb=4096, trials=5)
    with JudgePool(config) as pool:
        verdict = pool.judge(TaskSpec.parse(str(ref)), CANDIDATE, name="double.py")
    assert verdict.ok, verdict.to_json()
    (written,) = profiles.iterdir()
    text = written.read_text()
    assert "Ordered by: cumulative time" in text and "worker.py:" in text and "(judge)" in text


def test_the_profile_is_copied_when_it_is_a_plain_file(tmp_path, profiles):
    folder = tmp_path / "candidate-1"
    folder.mkdir()
    (folder / zygote.PROFILE_NAME).write_text("ncalls  tottime")
    zygote._keep_profile(folder, 1)
    assert [p.read_text() for p in profiles.iterdir()] == ["ncalls  tottime"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="links and FIFOs as on Linux")
@pytest.mark.parametrize("kind", ["symlink", "hardlink", "fifo"])
def test_a_profile_that_is_not_the_childs_own_file_is_not_copied(tmp_path, profiles, kind):
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    folder = tmp_path / "candidate-2"
    folder.mkdir()
    made = folder / zygote.PROFILE_NAME
    {"symlink": lambda: made.symlink_to(secret), "hardlink": lambda: os.link(secret, made),
     "fifo": lambda: os.mkfifo(made)}[kind]()
    zygote._keep_profile(folder, 2)                 # returns at once: a FIFO without a writer does not block
    assert not profiles.exists() or not any(profiles.iterdir())
