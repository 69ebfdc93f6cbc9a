"""Capture a reference module's computation as an fx graph with shapes, without running it for real.

The model and its example inputs are built on the ``meta`` device (no memory, no compute) and traced with
torch.fx; shapes come from ShapeProp. When meta tensors are not enough, the real CPU model is used. A
module fx cannot trace gets ``ProposalError("unsupported: ... at line N")``.
"""
from __future__ import annotations

import ast
import re
import traceback
from dataclasses import dataclass
from typing import Any

import torch
from torch import fx, nn
from torch.fx.passes.shape_prop import ShapeProp

from ...task import LoadedTask, TaskError, TaskSpec, load_task
from ..base import ProposalError


@dataclass
class Captured:
    spec: TaskSpec
    source: str
    graph_module: fx.GraphModule
    modules: dict[str, nn.Module]
    init_args: list[Any]
    example_inputs: list[Any]          # meta tensors (or small real ones when meta could not trace)


def _line_of(error: BaseException, path: str) -> str:
    """' at line N' for the deepest frame of the reference file in ``error``'s traceback."""
    lines = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
    match = re.search(rf'File "{re.escape(path)}", line (\d+)', str(error))
    if lines:
        return f" at line {lines[-1]}"
    return f" at line {match.group(1)}" if match else ""


def _trace(model: nn.Module, path: str) -> fx.GraphModule:
    tracer = fx.Tracer()
    try:
        graph = tracer.trace(model)
    except Exception as e:  # noqa: BLE001 - any tracing failure is "unsupported", with its reason
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ProposalError(f"unsupported: the forward cannot be captured by torch.fx ({first}){_line_of(e, path)}; "
                            "data-dependent control flow (if/for on tensor values) is the usual cause") from e
    return fx.GraphModule(model, graph)


def capture(spec: TaskSpec) -> Captured:
    """Trace the reference of ``spec`` and annotate every node with its tensor metadata."""
    try:
        task: LoadedTask = load_task(spec)
        init_args = task.init_args()
    except TaskError as e:
        raise ProposalError(str(e)) from e
    try:
        with torch.device("meta"):
            model = task.model_class(*init_args)
            inputs = task.make_inputs(0, "meta")
        graph_module = _trace(model, spec.path)
        ShapeProp(graph_module).propagate(*inputs)
    except ProposalError:
        raise
    except Exception:  # noqa: BLE001 - meta tensors do not support everything: fall back to the real CPU model
        torch.manual_seed(0)
        model = task.model_class(*init_args)
        inputs = task.make_inputs(0, "cpu")
        graph_module = _trace(model, spec.path)
        try:
            with torch.no_grad():
                ShapeProp(graph_module).propagate(*inputs)
        except Exception as e:  # noqa: BLE001
            raise ProposalError(f"unsupported: running the captured graph failed ({type(e).__name__}: {e})") from e
    return Captured(spec=spec, source=spec.read_source(), graph_module=graph_module,
                    modules=dict(graph_module.named_modules()), init_args=init_args, example_inputs=inputs)


def reference_class_node(source: str, class_name: str) -> ast.ClassDef:
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return node
    raise ProposalError(f"class {class_name!r} not found at the top level of the reference")
