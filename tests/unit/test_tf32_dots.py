"""In the interpreter the judge rounds float32 dot operands as a GPU's TF32 does (worker._tf32_interpreted_dots):
a kernel without input_precision="ieee" shows the error it has on a GPU; "ieee" stays exact."""
import os
import subprocess
import sys

SCRIPT = '''
import torch, triton, triton.language as tl
from adaexplore_core.judge import worker
worker._tf32_interpreted_dots()

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, IEEE: tl.constexpr):
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
    c = tl.dot(a, b, input_precision="ieee") if IEEE else tl.dot(a, b)
    tl.store(c_ptr + r[:, None] * 32 + r[None, :], c)

a, b = torch.randn(32, 32), torch.randn(32, 32)
exact = (a.double() @ b.double()).float()
for ieee in (False, True):
    c = torch.empty(32, 32)
    mm[(1,)](a, b, c, ieee)
    print("ERR", ieee, float((c - exact).abs().max()))
'''


def test_float32_dots_round_to_tf32_unless_ieee():
    env = dict(os.environ, TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    errors = {line.split()[1]: float(line.split()[2]) for line in out.stdout.splitlines() if line.startswith("ERR")}
    assert errors["False"] > 1e-3, errors        # TF32: ~5e-4 relative per product, over 32 terms
    assert errors["True"] < 1e-4, errors
