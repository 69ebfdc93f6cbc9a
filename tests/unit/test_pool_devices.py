"""Each GPU judge process sees its own GPU alone (pool.only_device): a candidate cannot run work on another
GPU, which the judge's timer and completion check, watching one device, would not see (red team, 2026-12-02)."""
import pytest

from adaexplore_core.judge.pool import JudgeConfig, only_device, threads_per_process


def test_a_judge_process_sees_only_its_gpu_as_cuda_0():
    assert only_device("cuda:3", None) == ("3", "cuda:0")
    assert only_device("cuda", None) == ("0", "cuda:0")


def test_the_pools_own_visible_gpus_are_followed():
    assert only_device("cuda:1", "4,6") == ("6", "cuda:0")
    assert only_device("cuda:0", "GPU-1a2b, GPU-3c4d") == ("GPU-1a2b", "cuda:0")


def test_a_gpu_the_pool_cannot_see_is_a_clear_error():
    with pytest.raises(ValueError, match="cuda:2 is not among the GPUs CUDA_VISIBLE_DEVICES='0,1' shows"):
        only_device("cuda:2", "0,1")


def test_judge_processes_share_the_hosts_cores(monkeypatch):
    """On a GPU too: six workers with a torch thread per core each spin-wait against one another on the host
    work of a verdict (the CPU trial, float64 evaluations, copies)."""
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    assert threads_per_process(JudgeConfig(devices=("cuda:0",), workers_per_device=6)) == 2
    assert threads_per_process(JudgeConfig(devices=("cuda:0", "cuda:1"), workers_per_device=2)) == 4
    assert threads_per_process(JudgeConfig(devices=("cpu",), workers_per_device=2)) == 8
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert threads_per_process(JudgeConfig(devices=("cuda:0",), workers_per_device=4)) == 1
