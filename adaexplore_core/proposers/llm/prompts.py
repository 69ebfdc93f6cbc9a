"""Prompts for the method's three roles.

- proposer (a large step): the task, the hardware, the validity rules and the diverse pool of the best
  kernels with their verdicts — write a new, faster ModelNew ("beat them");
- reviser (first half of a small step): 1-3 concrete improvements to the parent kernel, from its verdict and
  the recent kernels' feedback;
- tuner (second half): the parent's source and the improvements — numbered OLD/NEW edit blocks.
"""
from __future__ import annotations

from typing import Any

from ..base import Candidate

SYSTEM = (
    "You are an expert GPU programmer who rewrites PyTorch modules with custom Triton kernels. A candidate "
    "is a complete Python file defining class ModelNew: the same constructor arguments and parameter names as "
    "the reference (so state_dict keys match), the same forward outputs on any inputs of the reference's "
    "shapes, the same updates to the module's buffers (running statistics of a training-mode batch norm, "
    "counters), at least one @triton.jit kernel that really runs, no torch.compile, no cached results, no "
    "changes to the inputs, fp32 accuracy (no TF32). Imports are limited to torch (with torch.nn, "
    "torch.nn.functional and torch.cuda device queries), triton, triton.language (and its extra.libdevice), "
    "math, typing, operator and itertools, plus what the reference itself imports; no numpy, functools, os or "
    "sys, no try/except, no data_ptr(), no hooks (reading whether a submodule has any, "
    "`m._forward_hooks or m._forward_pre_hooks or m._backward_hooks` in a test, is allowed), no streams or "
    "global torch settings; "
    "use a module only as "
    "module.name, never assign it or pass it around. Every candidate runs in a sandbox and is judged on fresh "
    "random inputs, on randomised weights, on inputs scaled x50 and shifted below zero, on random masks and on "
    "repeated calls, and timed against eager PyTorch and torch.compile with its outputs checked while timed: "
    "kernels must read every weight, handle any values, and compute every call. The patch stays in the user's "
    "program, so ModelNew must keep the reference's forward as _reference_forward, unchanged, and its forward "
    "must call it (never assert) for every call the Triton path was not written for: autograd needed "
    "(torch.is_grad_enabled() and an input or parameter requiring grad: the gradients are checked, also with "
    "inputs without grad, frozen parameters, one parameter frozen, accumulating .grad, tied and zero inputs, a "
    "non-contiguous grad_output and one sliced from a wider tensor, outputs changed in place before the loss, "
    "weights changed between two steps, backward twice and a second-order gradient penalty, and every trial "
    "below again with autograd: a training path of its own must honour all of it), another dtype (float32, "
    "bfloat16, float16 and float64 are tried; float64 at float64 precision: compute it in float64 or fall "
    "back), autocast enabled (torch.is_autocast_enabled(x.device.type); bfloat16 and "
    "float16 autocast are tried: a kernel that follows autocast reads torch.get_autocast_dtype(x.device.type)), "
    "forward-mode AD (an input with torch.autograd.forward_ad.unpack_dual(x).tangent is not None: jvp and "
    "jacfwd are tried), forward hooks on a submodule, an optional argument the example leaves out, another "
    "device (CPU tensors are tried on a GPU), another rank, an empty batch (size 0: return the reference's "
    "empty outputs, never raise), or the other train/eval mode of any submodule where that changes the "
    "computation (each submodule's own .training flag: dropout layers alone in train while the model is in "
    "eval are tried). "
    "Kernels take every size at run time (the judge tries batch and sequence sizes x0.5, x2, 7, 1, 16x+5 and "
    "4x+3, every other dim +3, rows of 1025 columns and 4097 rows, past the common tile and grid caps: loop "
    "over a row longer than one tile, and over rows past the grid) and read strides or call .contiguous() (transposed, sliced and "
    "channels_last inputs are tried), so no size of the example may be written into the code. Read weights, "
    "float attributes (a temperature, an eps) and float, bool and string arguments (a reduction mode, "
    "keepdim) on every call: they are changed in place and set to other values between calls, and an option "
    "the kernel was not written for falls back. Read submodules and their tensors on every call too (a program "
    "replaces a layer, loads checkpoints with load_state_dict, also with assign=True), and keep state_dict the "
    "reference's. The class is also built with other constructor arguments (every int argument +1 and -1, "
    "floats, bools and strings changed): read sizes and options from the module. Check input sizes against the weights and fall back where they do not match, so "
    "that a call the original refuses raises as it does. forward keeps the reference's signature, returns what "
    "it returns (a tensor or a tuple of the same length, contiguous where the reference's is, new memory on "
    "every call: outputs are kept alive across many calls), is right from its very first call (no lazy "
    "set-up that skips work), keeps no workspace between calls (two calls may run at once on two CUDA "
    "streams, or twice before one backward), is right in every config of an @triton.autotune (each is "
    "run), never replaces parameters and never draws random numbers the reference does not."
)
MAX_SOURCE_CHARS = 12_000


def _clip(text: str, limit: int = MAX_SOURCE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "\n# ... (cut)\n"


def verdict_line(candidate: Candidate) -> str:
    v = candidate.verdict
    if v is None:
        return "not judged yet"
    if v.ok and v.timing is not None:
        t = v.timing
        compile_part = f", {t.speedup_vs_compile:.2f}x vs torch.compile" if t.speedup_vs_compile else ""
        return f"valid, {t.speedup_vs_eager:.2f}x vs eager{compile_part} ({t.candidate_ms:.4f} ms)"
    if v.ok:
        return "valid (not timed)"
    return f"{v.verdict} at stage {v.stage}: {v.reason[:600]}"


def _rules(rules: list[str]) -> str:
    if not rules:
        return ""
    return "Triton validity rules learned from earlier failures (follow them):\n" + \
        "\n".join(f"- {r}" for r in rules) + "\n\n"


def proposer_messages(reference: str, hardware: str, rules: list[str], pool: list[Candidate]) -> list[dict[str, Any]]:
    parts = [f"Reference module to optimize:\n```python\n{_clip(reference)}```\n",
             f"Hardware: {hardware}.\n", _rules(rules)]
    if pool:
        parts.append("The best kernels found so far, one per search branch, with their verdicts:\n")
        for i, c in enumerate(pool, start=1):
            parts.append(f"Kernel {i} ({verdict_line(c)}): {c.description}\n```python\n{_clip(c.source, 6000)}```\n")
        parts.append("Write a NEW ModelNew with a different structure (fusion plan, tiling, algorithm) that beats "
                     "all of them.\n")
    else:
        parts.append("Write a ModelNew that is faster than the reference.\n")
    parts.append("Answer with one ```python code block holding the complete file, then one line starting with "
                 "'Idea:' that says what the kernel does differently.")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "".join(parts)}]


def reviser_messages(reference: str, hardware: str, rules: list[str], parent: Candidate,
                     recent: list[Candidate]) -> list[dict[str, Any]]:
    parts = [f"Reference module:\n```python\n{_clip(reference, 6000)}```\n", f"Hardware: {hardware}.\n",
             _rules(rules),
             f"Current kernel ({verdict_line(parent)}):\n```python\n{_clip(parent.source)}```\n"]
    if parent.feedback:
        parts.append(f"Judge feedback on it: {parent.feedback[:1500]}\n")
    if recent:
        parts.append("Recent attempts and their verdicts:\n" + "".join(
            f"- {c.description or 'a kernel'}: {verdict_line(c)}\n" for c in recent))
    parts.append("List 1 to 3 concrete, small improvements to the current kernel (fix its error first if it is "
                 "not valid), one per line, each starting with '- '. No code.")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "".join(parts)}]


def tuner_messages(parent: Candidate, improvements: str, rules: list[str]) -> list[dict[str, Any]]:
    content = (
        f"{_rules(rules)}Kernel file:\n```python\n{_clip(parent.source)}```\n"
        f"Apply these improvements:\n{improvements.strip()[:3000]}\n\n"
        "Answer only with numbered edit blocks, each replacing lines copied EXACTLY from the file:\n"
        "EDIT 1\n<<<<<<< OLD\n(exact existing lines)\n=======\n(replacement lines)\n>>>>>>> NEW\n"
        "Keep the class name ModelNew and its constructor."
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]
