"""Which queue a search waits in: one for the CPU, one for the GPUs; "auto" is resolved by asking the
engine's Python (a subprocess) how many GPUs torch sees, once."""
from __future__ import annotations

import asyncio
import stat

from adaexplore_server.jobs import JobManager, device_key


def test_device_keys():
    assert device_key("cpu") == device_key(" CPU ") == "cpu"
    assert device_key("cuda") == device_key("cuda:0") == device_key("cuda:3") == "gpu"
    assert device_key("auto", gpus=0) == "cpu" and device_key("auto", gpus=2) == "gpu"
    assert device_key("auto") == "gpu"                      # unknown yet: the conservative queue


def fake_python(tmp_path, gpus: int):
    script = tmp_path / f"python-{gpus}"
    script.write_text(f"#!/bin/sh\necho {gpus}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_auto_is_resolved_once_by_the_engine_python(tmp_path):
    async def keys(gpus: int) -> list[str]:
        manager = JobManager(lambda job, event: None, python=fake_python(tmp_path, gpus))
        first = await manager.queue_key("auto")
        (tmp_path / f"python-{gpus}").unlink()               # asked once: later calls use the answer
        return [first, await manager.queue_key("auto"), await manager.queue_key("cpu")]

    assert asyncio.run(keys(0)) == ["cpu", "cpu", "cpu"]       # a CPU-only machine: auto waits with cpu jobs
    assert asyncio.run(keys(2)) == ["gpu", "gpu", "cpu"]
