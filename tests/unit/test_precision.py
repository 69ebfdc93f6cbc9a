"""TF32 as each protocol asks (worker.set_precision), and as bench.md reports it."""
import torch

from adaexplore_core.judge.worker import set_precision
from adaexplore_core.search.bench import _tf32


def test_each_mode_sets_cublas_and_cudnn_as_it_says():
    before = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32,
              torch.get_float32_matmul_precision())
    try:
        for mode, matmul, cudnn in (("0", False, False), ("torch", False, True), ("1", True, True), ("", False, False)):
            set_precision(mode)
            assert (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) == (matmul, cudnn), mode
            assert torch.get_float32_matmul_precision() == ("high" if matmul else "highest")
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = before[:2]
        torch.set_float32_matmul_precision(before[2])


def test_the_report_tells_torchs_default_from_tf32_on():
    assert _tf32({"tf32": False, "tf32_matmul": False}) == "off"
    assert _tf32({"tf32": True, "tf32_matmul": False}).startswith("for convolutions only")
    assert _tf32({"tf32": True, "tf32_matmul": True}) == "on"
    assert _tf32({"tf32": True}) == "on"          # a bench.json from before the two were told apart
