"""Autotuned kernels in the judge (``worker._autotune_every_config``): every config once in each round of
launches, in an order no launch can know; ``let_the_autotuner_choose`` hands the choice back to Triton."""
from __future__ import annotations

import os
import subprocess
import sys

PROGRAM = """
import torch, triton, triton.language as tl
from adaexplore_core.judge import worker
worker._autotune_every_config()

@triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32}),
                          triton.Config({"BLOCK": 64})], key=["n"])
@triton.jit
def record(out_ptr, n, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.program_id(0), BLOCK)

seen = []
for _ in range(30):
    out = torch.zeros(1, dtype=torch.int32)
    record[(1,)](out, 8)
    seen.append(int(out))
rounds = [seen[i:i + 3] for i in range(0, 30, 3)]
assert all(sorted(r) == [16, 32, 64] for r in rounds), rounds
assert len({tuple(r) for r in rounds}) > 1, rounds          # not one fixed turn
assert record.cache                                          # the last turn's config, kept for its key
worker.let_the_autotuner_choose()
assert record.cache == {}                                    # its next launch benchmarks, as Triton does
print("ok")
"""


def test_every_config_runs_once_a_round_in_random_order_until_the_autotuner_chooses():
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]
