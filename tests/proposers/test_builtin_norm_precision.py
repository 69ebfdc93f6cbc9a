"""The built-in proposer's norm kernels on rows far from zero (the judge's "shifted inputs (far above zero)"
trial): their statistics are those of x minus a pivot taken from the row itself, so neither the sum nor the mean
is rounded at x's own scale. Measured against a float64 evaluation, for the looped kernel (long rows), the tile
kernel (short rows), group norm and a fused prologue, over every initial candidate (the random block sizes).

Before the pivot, these kernels were as far from float64 as the fp32 reference or up to five times farther
(max abs error ~1.5e-4 at x = 3300 + 3 * noise), and the judge rejected some block sizes in that trial."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIFT, SPREAD = 3300.0, 3.0
MAX_ERROR = 1e-5       # max abs error against float64 (outputs of order 1); fp32's rounding of x is ~2.4e-4

REFERENCES = {
    "looped_rows": """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = nn.Parameter(torch.rand(1500) + 0.5)
                self.bias = nn.Parameter(torch.randn(1500) * 0.1)

            def forward(self, x):
                return F.layer_norm(x, (1500,), self.weight, self.bias, eps=1e-6)

        def get_inputs():
            return [torch.randn(4, 1500)]
        """,
    "tile_rows": """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = nn.LayerNorm(200)

            def forward(self, x):
                return self.norm(x)

        def get_inputs():
            return [torch.randn(40, 200)]
        """,
    "group_norm": """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = nn.GroupNorm(4, 8)

            def forward(self, x):
                return self.norm(x)

        def get_inputs():
            return [torch.randn(2, 8, 24, 24)]
        """,
    "batch_norm_train": """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = nn.BatchNorm2d(8)

            def forward(self, x):
                return torch.relu(self.norm(x))

        def get_inputs():
            return [torch.randn(4, 8, 12, 12)]
        """,
    "prologue": """
        class Model(nn.Module):
            def forward(self, x):
                return F.layer_norm(x * 0.5 + 1.0, (1500,))

        def get_inputs():
            return [torch.randn(3, 1500)]
        """,
}

SCRIPT = textwrap.dedent('''
    import json, os, sys
    assert os.environ["TRITON_INTERPRET"] == "1"
    import torch
    from adaexplore_core.proposers.base import ProposalRequest
    from adaexplore_core.proposers.builtin.proposer import BuiltinProposer
    from adaexplore_core.task import TaskSpec, import_file

    ref_path, out_dir, shift, spread = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    proposals = BuiltinProposer("cpu").initial(ProposalRequest(task=TaskSpec(ref_path), seed=1), 6)
    reference = import_file(ref_path)
    torch.manual_seed(0)
    model = reference.Model()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn_like(p) * 0.2 + 1.0)
    result = []
    for i, proposal in enumerate(proposals):
        path = os.path.join(out_dir, f"candidate_{i}.py")
        with open(path, "w") as f:
            f.write(proposal.source)
        candidate = import_file(path).ModelNew()
        candidate.load_state_dict(model.state_dict())
        worst = worst_reference = 0.0
        for seed in range(3):
            shape = reference.get_inputs()[0].shape
            x = torch.randn(shape, generator=torch.Generator().manual_seed(seed)) * spread + shift
            with torch.no_grad():
                exact = model.double()(x.double())
                model.float()
                worst = max(worst, float((candidate(x).double() - exact).abs().max()))
                worst_reference = max(worst_reference, float((model(x).double() - exact).abs().max()))
        result.append({"description": proposal.description, "error": worst, "reference_error": worst_reference})
    print("RESULT " + json.dumps(result))
''')


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_norm_kernels_stay_exact_on_rows_far_from_zero(name: str, tmp_path: Path):
    ref = tmp_path / "reference.py"
    ref.write_text("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
                   + textwrap.dedent(REFERENCES[name]) + "\n\ndef get_init_inputs():\n    return []\n",
                   encoding="utf-8")
    script = tmp_path / "measure.py"
    script.write_text(SCRIPT, encoding="utf-8")
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(script), str(ref), str(tmp_path), str(SHIFT), str(SPREAD)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    results = json.loads(next(ln for ln in out.stdout.splitlines() if ln.startswith("RESULT "))[7:])
    assert len(results) >= 2, results          # the default block sizes and at least one random draw
    for r in results:
        assert "Triton kernel" in r["description"], r
        if "left to cuDNN" in r["description"]:             # torch's own batch norm: the reference's error
            assert r["error"] <= r["reference_error"] * 1.01 + 1e-7, r
            continue
        assert r["error"] <= MAX_ERROR, (f"{r['description']}: max abs error {r['error']:.3g} against float64 "
                                         f"(the fp32 reference's: {r['reference_error']:.3g})")
