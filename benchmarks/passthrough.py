"""Make a "passthrough" candidate from a reference: the reference's own PyTorch forward, with every output
copied through a Triton kernel (calls with autograd on, or off the GPU, return the reference's outputs as they
are: the judge's gradient and CPU trials). It is valid by construction and never faster than eager, so it measures the
judge itself (baselines, trials, throughput) on any KernelBench problem. Never shown as a speedup."""
from __future__ import annotations

import ast

_TAIL = '''

@triton.jit
def passthrough_copy_kernel(src_ptr, dst_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # dst[i] = src[i] for a contiguous buffer of n_elements
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _passthrough_copy(t):
    src = t.contiguous()
    dst = torch.empty_like(src)
    n = src.numel()
    passthrough_copy_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK_SIZE=1024)
    return dst
'''


def passthrough_candidate(reference_source: str, class_name: str = "Model") -> str:
    """Candidate source whose ModelNew runs the reference forward, then copies each output with Triton."""
    tree = ast.parse(reference_source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    for node in ast.walk(cls):
        if isinstance(node, ast.Name) and node.id == class_name:
            node.id = "ModelNew"
    cls.name = "ModelNew"
    forward = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward")
    forward.name = "_reference_forward"
    signature = ast.unparse(forward.args)                 # the reference's parameters, kept as they are
    call = ", ".join([a.arg for a in forward.args.posonlyargs + forward.args.args][1:]
                     + ([f"*{forward.args.vararg.arg}"] if forward.args.vararg else [])
                     + [f"{a.arg}={a.arg}" for a in forward.args.kwonlyargs]
                     + ([f"**{forward.args.kwarg.arg}"] if forward.args.kwarg else []))
    cls.body.append(ast.parse(
        f"def forward({signature}):\n"
        f"    out = self._reference_forward({call})\n"
        "    first = out[0] if isinstance(out, (tuple, list)) else out\n"
        "    if torch.is_grad_enabled() or not first.is_cuda:\n"
        "        return out\n"
        "    if isinstance(out, tuple):\n"
        "        return tuple(_passthrough_copy(o) for o in out)\n"
        "    if isinstance(out, list):\n"
        "        return [_passthrough_copy(o) for o in out]\n"
        "    return _passthrough_copy(out)\n").body[0])
    header = "import torch\nimport triton\nimport triton.language as tl\n"
    return header + ast.unparse(ast.fix_missing_locations(tree)) + _TAIL
