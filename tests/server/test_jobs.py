"""Which queue a search waits in: one for the CPU, one for the GPUs; "auto" is resolved by asking the
engine's Python (a subprocess) how many GPUs torch sees, once; and what a finished job's result carries.
(That no process of a job outlives it: test_job_lifetime.py.)"""
from __future__ import annotations

import asyncio
import json
import stat

from adaexplore_server.jobs import Job, JobManager, queue_keys, read_result


def test_queue_keys():
    assert queue_keys("cpu") == queue_keys(" CPU ") == ["cpu"]
    assert queue_keys("cuda:3", gpus=4) == ["gpu:3"]
    assert queue_keys("cuda", gpus=2) == queue_keys("auto", gpus=2) == ["gpu:0", "gpu:1"]   # all of them
    assert queue_keys("auto", gpus=0) == ["cpu"]


def fake_python(tmp_path, gpus: int):
    script = tmp_path / f"python-{gpus}"
    script.write_text(f"#!/bin/sh\necho {gpus}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_auto_is_resolved_once_by_the_engine_python(tmp_path):
    async def keys(gpus: int) -> list[list[str]]:
        manager = JobManager(lambda job, event: None, python=fake_python(tmp_path, gpus))
        first = await manager.queue_keys("auto")
        (tmp_path / f"python-{gpus}").unlink()               # asked once: later calls use the answer
        return [first, await manager.queue_keys("cuda"), await manager.queue_keys("cuda:1"),
                await manager.queue_keys("cpu")]

    assert asyncio.run(keys(0)) == [["cpu"], ["gpu:0"], ["gpu:1"], ["cpu"]]   # CPU-only: auto waits with cpu
    assert asyncio.run(keys(2)) == [["gpu:0", "gpu:1"], ["gpu:0", "gpu:1"], ["gpu:1"], ["cpu"]]


def test_a_job_on_one_gpu_does_not_wait_for_another_gpu(tmp_path):
    """cuda:0 and cuda:1 searches run side by side; a "cuda" search waits for both."""
    async def scenario() -> tuple[bool, bool, bool]:
        manager = JobManager(lambda job, event: None, python=fake_python(tmp_path, 2))
        await manager.queue_keys("cuda")                      # learn the GPU count
        lock0 = manager._locks.setdefault("gpu:0", asyncio.Lock())
        await lock0.acquire()                                 # a search holds GPU 0
        return manager.busy("cuda:0"), manager.busy("cuda:1"), manager.busy("cuda")

    assert asyncio.run(scenario()) == (True, False, True)


def finished_job(tmp_path, report: dict) -> Job:
    job = Job(uri="file:///m.py", class_name="M", digest="d", version=1, content_key="k", device="cpu", steps=1,
              proposer="builtin", workdir=tmp_path)
    job.out.mkdir(parents=True)
    (job.out / "report.json").write_text(json.dumps(report))
    return job


def test_the_result_carries_the_reports_rejection_summary(tmp_path):
    rejections = [{"stage": "guard", "count": 2, "example": "import of 'os' is not allowed"}]
    result = read_result(finished_job(tmp_path / "a", {"steps": 2, "valid": 0, "best": None,
                                                       "rejections": rejections}))
    assert result["rejections"] == rejections and result["steps"] == 2
    older = read_result(finished_job(tmp_path / "b", {"steps": 1, "valid": 1, "best": None}))
    assert older["rejections"] == []                  # a report written before the field existed
