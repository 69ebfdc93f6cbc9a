"""torch's process-wide state, read before candidate code runs and compared after it.

A candidate must not change what the reference computes or how it is timed: the default dtype and device,
grad and inference mode, autocast, precision and determinism flags, active function or dispatch modes, global
module hooks, and the functions of torch, ``torch.nn.functional``, ``torch.Tensor`` and ``nn.Parameter``,
``torch.cuda``, the methods of ``torch.nn``'s module classes, of ``torch.autograd.Function`` and of Triton's kernel
classes, and the judge's own modules (a replaced or added function counts). Each candidate runs in a fresh process, so a change cannot reach another candidate; this
check makes it an invalid verdict instead of a silently different reference.
"""
from __future__ import annotations

import sys
from typing import Any

import torch
import triton
from triton.runtime.autotuner import Autotuner, Heuristics
from triton.runtime.interpreter import InterpretedFunction
from triton.runtime.jit import JITFunction, KernelInterface

NAMESPACES = ("torch", "torch.nn.functional", "torch.nn.init", "torch._VF", "torch.cuda", "torch.linalg",
              "torch.fft", "triton", "triton.language", "adaexplore_core.judge.timing",
              "adaexplore_core.judge.correctness", "adaexplore_core.judge.worker", "adaexplore_core.judge.trials",
              "adaexplore_core.judge.protocol", "adaexplore_core.judge.envelope", "adaexplore_core.schema.envelope",
              "adaexplore_core.task")


def _flags() -> dict[str, Any]:
    from torch.nn.modules import module
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    return {
        "default dtype": torch.get_default_dtype(),
        "default device": str(torch.get_default_device()),
        "grad mode": torch.is_grad_enabled(),
        "inference mode": torch.is_inference_mode_enabled(),
        "autocast": (torch.is_autocast_enabled("cpu"), torch.is_autocast_enabled("cuda")),
        "deterministic algorithms": torch.are_deterministic_algorithms_enabled(),
        "matmul precision": torch.get_float32_matmul_precision(),
        "cuda matmul tf32": torch.backends.cuda.matmul.allow_tf32,
        "cudnn tf32": torch.backends.cudnn.allow_tf32,
        "cudnn": (torch.backends.cudnn.enabled, torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic),
        "reduced precision reductions": (torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
                                         torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction),
        "function modes": len(_get_current_function_mode_stack()),
        "dispatch modes": len(_get_current_dispatch_mode_stack()),
        "global module hooks": tuple(name for name, table in vars(module).items()
                                     if name.startswith("_global_") and isinstance(table, dict) and table),
        "threads": torch.get_num_threads(),
    }


def _functions() -> dict[str, Any]:
    """The functions and methods a candidate or a reference could replace, by dotted name (the objects themselves:
    compared by identity, and kept alive, so that an address is never reused by a replacement)."""
    found: dict[str, Any] = {}
    for name in NAMESPACES:
        namespace = _namespace(name)
        if namespace is None:
            continue
        for attr, value in list(vars(namespace).items()):
            if callable(value):
                found[f"{name}.{attr}"] = value
    for cls in _tensor_classes():                      # torch.Tensor.add_, nn.Parameter.copy_ (once set), ...
        for attr, value in list(vars(cls).items()):
            found[f"{'torch' if cls is torch.Tensor else 'torch.nn'}.{cls.__name__}.{attr}"] = value
    for cls in _module_classes():                      # nn.Module.parameters, nn.Linear.forward, ...
        for attr, value in list(vars(cls).items()):
            if callable(value) or isinstance(value, (staticmethod, classmethod, property)):
                found[f"torch.nn.{cls.__name__}.{attr}"] = value
    for dotted, cls in _reachable_classes():           # Function.apply, a kernel's launch (red team b2)
        for attr, value in list(vars(cls).items()):
            if callable(value) or isinstance(value, (staticmethod, classmethod, property)):
                found[f"{dotted}.{attr}"] = value
    return found


def _namespace(name: str) -> Any:
    """The module ``name`` if imported (``torch._VF`` is an attribute of torch, not in sys.modules)."""
    if name == "torch._VF":
        return getattr(torch, "_VF", None)
    return sys.modules.get(name)


def _foreign(value: Any) -> bool:
    """Whether ``value`` was defined outside torch, triton and Python's built-ins: a name torch adds lazily is
    its own; one a reference's file adds is the reference's."""
    inner = getattr(value, "__func__", None) or getattr(value, "fget", None) or value
    module = getattr(inner, "__module__", None) or ""
    return module.split(".")[0] not in ("", "torch", "triton", "builtins")


def _reachable_classes() -> list[tuple[str, type]]:
    """Classes a candidate reaches through the allowlist besides torch.Tensor and torch.nn's: the base of its
    autograd Functions and those of its kernels (their launch path), and triton.Config."""
    found = [("torch.autograd.Function", torch.autograd.Function),
             ("torch.autograd.function.FunctionCtx", torch.autograd.function.FunctionCtx),
             ("triton.Config", triton.Config)]
    found += [(f"triton.runtime.{c.__name__}", c) for c in (JITFunction, KernelInterface, Autotuner, Heuristics,
                                                            InterpretedFunction)]
    return found


def _tensor_classes() -> list[type]:
    """torch.Tensor and torch.nn.parameter's subclasses of it (Parameter, Buffer, the uninitialised ones): a
    method set on Parameter reaches every weight the judge writes to."""
    import torch.nn.parameter as parameter
    return [torch.Tensor] + [v for v in vars(parameter).values() if isinstance(v, type) and issubclass(v, torch.Tensor)]


def _module_classes() -> list[type]:
    return [torch.nn.Module] + [v for v in vars(torch.nn).values()
                                if isinstance(v, type) and issubclass(v, torch.nn.Module)]


class GlobalState:
    """A snapshot of torch's global state; ``changes()`` names what differs now."""

    def __init__(self) -> None:
        self.flags = _flags()
        self.functions = _functions()

    def changes(self, added: str = "all") -> list[str]:
        """What differs from the snapshot. Names new to torch's namespaces and classes count: ``"all"`` of them,
        or, with ``"foreign"``, those whose value was defined outside torch and triton."""
        now_flags, now_functions = _flags(), _functions()
        changed = [f"{k} ({self.flags[k]!r} -> {v!r})" for k, v in now_flags.items() if self.flags.get(k) != v]
        replaced = sorted(k for k, v in self.functions.items() if now_functions.get(k, v) is not v)
        new_names = sorted(k for k in set(now_functions) - set(self.functions)
                           if added == "all" or _foreign(now_functions[k]))
        if replaced:
            changed.append("replaced " + ", ".join(replaced[:3]) + (" ..." if len(replaced) > 3 else ""))
        if new_names:
            changed.append("added " + ", ".join(new_names[:3]) + (" ..." if len(new_names) > 3 else ""))
        return changed

    def restore_flags(self) -> None:
        """Set the flags that have a public setter back to the snapshot's (modes, hooks and autocast have none
        that is safe to call from outside their context: ``changes()`` still names them)."""
        saved = self.flags
        torch.set_default_dtype(saved["default dtype"])
        torch.set_default_device(None if saved["default device"] == "cpu" else saved["default device"])
        torch.set_grad_enabled(saved["grad mode"])
        if torch.are_deterministic_algorithms_enabled() != saved["deterministic algorithms"]:
            torch.use_deterministic_algorithms(saved["deterministic algorithms"])
        torch.set_float32_matmul_precision(saved["matmul precision"])
        torch.backends.cuda.matmul.allow_tf32 = saved["cuda matmul tf32"]
        torch.backends.cudnn.allow_tf32 = saved["cudnn tf32"]
        (torch.backends.cudnn.enabled, torch.backends.cudnn.benchmark,
         torch.backends.cudnn.deterministic) = saved["cudnn"]
        (torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
         torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction) = saved["reduced precision reductions"]
        torch.set_num_threads(saved["threads"])
