"""Capture a reference module's computation as an fx graph with shapes, without running it for real.

The model and its example inputs are built on the ``meta`` device (no memory, no compute) and traced with
torch.fx; shapes come from ShapeProp. When meta tensors are not enough, the real CPU model is used. A
module fx cannot trace gets ``ProposalError("unsupported: ... at line N")``. An argument that is None in
the example call (``forward(self, x, mask=None)`` with get_inputs giving only x) is traced as the constant
None; the envelope then requires None there. An int or bool argument (``dim``, ``keepdim``) is specialized to
its example value unless it only enters arithmetic with tensors (``x * n``: a run-time number of the kernels);
the candidate takes its Triton path only for that value (``Captured.specialized``). The placeholders keep the
forward's own parameter names (fx would make ``A`` ``a``). Buffers are graph values (a buffer sliced by the input's
size stays a slice), and tensors made from the input's sizes (``torch.ones(t, t)``) or ``torch.finfo(x.dtype)``
are graph nodes (``_Tracer``). The module tree's state is recorded as built (state.py).
"""
from __future__ import annotations

import ast
import contextlib
import inspect
import io
import operator
import re
import traceback
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import fx, nn
from torch.fx.passes.shape_prop import ShapeProp

from ...task import LoadedTask, TaskError, TaskSpec, load_task
from ..base import ProposalError
from .state import ModuleState, module_state


@dataclass
class Captured:
    spec: TaskSpec
    source: str
    graph_module: fx.GraphModule
    modules: dict[str, nn.Module]
    init_args: list[Any]
    example_inputs: list[Any]          # meta tensors (real CPU ones when meta tensors could not be used)
    eval_only: tuple[str, ...] = ()    # submodules whose eval-mode behaviour was captured (must stay in eval)
    train_only: tuple[str, ...] = ()   # submodules whose training-mode behaviour was captured (must stay so)
    state: ModuleState = ModuleState()  # the module tree as built: submodules, tensors, numbers (state.py)
    specialized: dict[str, int | bool] = field(default_factory=dict)   # int/bool arguments traced as these


def _line_of(error: BaseException, path: str) -> str:
    """' at line N' for the deepest frame of the reference file in ``error``'s traceback."""
    lines = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
    match = re.search(rf'File "{re.escape(path)}", line (\d+)', str(error))
    if lines:
        return f" at line {lines[-1]}"
    return f" at line {match.group(1)}" if match else ""


def _root_cause(error: BaseException) -> str:
    """The innermost error of an explicit chain (ShapeProp wraps the real one), as 'Type: first line'."""
    while error.__cause__ is not None:
        error = error.__cause__
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


def _values_only(graph_module: fx.GraphModule) -> None:
    """``torch.max(x, dim)[0]`` with the indices unused becomes ``torch.amax(x, dim)``, and
    ``torch.max(x, dim)[1]`` with the values unused ``torch.argmax(x, dim)`` (likewise min), so the reduction
    can be fused (the indices only of a float input: torch.argmax refuses bools); the graph is otherwise
    unchanged. Needs the shapes propagated; propagate them again after."""
    graph = graph_module.graph
    for node in list(graph.nodes):
        is_max = node.op == "call_function" and node.target in (torch.max, torch.min) or \
            node.op == "call_method" and node.target in ("max", "min")
        users = list(node.users)
        if not is_max or not users or any(u.target is not operator.getitem for u in users):
            continue
        taken = {u.args[1] for u in users if u.users}     # `_, idx = torch.max(x, 1)` leaves a dead [0]
        if taken not in ({0}, {1}):
            continue
        dim = node.kwargs.get("dim", node.args[1] if len(node.args) > 1 else None)
        keepdim = node.kwargs.get("keepdim", node.args[2] if len(node.args) > 2 else False)
        if not isinstance(dim, int) or set(node.kwargs) - {"dim", "keepdim"}:
            continue
        source = node.args[0].meta.get("tensor_meta") if isinstance(node.args[0], fx.Node) else None
        if taken == {1} and getattr(source, "dtype", None) not in (torch.float32, torch.float16, torch.bfloat16):
            continue
        is_max = node.target in (torch.max, "max")
        if taken == {0}:
            reduce = torch.amax if is_max else torch.amin
        else:
            reduce = torch.argmax if is_max else torch.argmin
        with graph.inserting_before(node):
            reduced = graph.call_function(reduce, (node.args[0],), {"dim": dim, "keepdim": bool(keepdim)})
        for user in users:
            user.replace_all_uses_with(reduced)
            graph.erase_node(user)
        graph.erase_node(node)
    graph_module.recompile()


_BATCH_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)


def _batch_norms(graph_module: fx.GraphModule, training: bool = True) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Rewrite BatchNorm module calls into ops the planner fuses. Eval mode (running statistics) is a
    per-channel affine map: ``batch_norm_eval`` on (C, 1, ...) views of the buffers. Training mode (batch
    statistics) is ``batch_norm_stats`` (a (3, C) tensor of shift, mean of x minus the shift, and variance,
    which also updates the running statistics) and ``batch_norm_eval`` on views of its rows. Returns the paths
    of the modules captured in eval mode and in training mode; shapes must be propagated again. ``training=False`` leaves the
    batch-statistics modules alone."""
    from .ops import batch_norm_eval, batch_norm_stats
    graph = graph_module.graph
    eval_only: list[str] = []
    train_only: list[str] = []
    for node in list(graph.nodes):
        module = graph_module.get_submodule(str(node.target)) if node.op == "call_module" else None
        if not isinstance(module, _BATCH_NORMS):
            continue
        meta = node.meta.get("tensor_meta")          # the output's: the input's shape and dtype (an input
        if getattr(meta, "dtype", None) not in (torch.float32, torch.float16, torch.bfloat16) or \
                len(meta.shape) < 2 or not node.args:  # rewritten just before has no metadata yet)
            continue
        state = [t for t in (module.weight, module.bias, module.running_mean, module.running_var) if t is not None]
        if any(t.dtype != meta.dtype for t in state):
            continue                # mixed precision: torch returns the input's dtype, the rewrite would not
        view = (-1,) + (1,) * (len(meta.shape) - 2)
        path = str(node.target)
        batch_statistics = module.training or module.running_mean is None
        if batch_statistics and not training:
            continue
        with graph.inserting_before(node):
            def buffer(name: str) -> Any:
                return None if getattr(module, name) is None else graph.get_attr(f"{path}.{name}")

            def channel(value: Any, default: float) -> Any:
                return default if value is None else graph.call_method("view", (value, *view))
            if batch_statistics:
                tracked = module.track_running_stats and module.running_mean is not None
                stats = graph.call_function(batch_norm_stats, (
                    node.args[0], *(buffer(b) if tracked else None
                                    for b in ("running_mean", "running_var", "num_batches_tracked")),
                    module.momentum, float(module.eps)))
                shift = channel(graph.call_method("select", (stats, 0, 0)), 0.0)
                mean = channel(graph.call_method("select", (stats, 0, 1)), 0.0)
                var = channel(graph.call_method("select", (stats, 0, 2)), 1.0)
            else:
                mean, var = channel(buffer("running_mean"), 0.0), channel(buffer("running_var"), 1.0)
            args = (node.args[0], mean, var, channel(buffer("weight"), 1.0), channel(buffer("bias"), 0.0),
                    float(module.eps)) + ((shift,) if batch_statistics else ())
            replacement = graph.call_function(batch_norm_eval, args)
        node.replace_all_uses_with(replacement)
        graph.erase_node(node)
        if module.training:
            train_only.append(path)
        elif not batch_statistics:
            eval_only.append(path)
    graph_module.recompile()
    return tuple(eval_only), tuple(train_only)


def propagate_shapes(graph_module: fx.GraphModule, inputs: list[Any]) -> None:
    """ShapeProp, without the traceback it prints to stderr before raising (the error is reported by us)."""
    with contextlib.redirect_stderr(io.StringIO()):
        ShapeProp(graph_module).propagate(*inputs)


def _none_arguments(model: nn.Module, inputs: list[Any]) -> dict[str, None]:
    """The forward's arguments that are None in the example call (passed as None, or not passed and None by
    default): traced as the constant None, so that ``if mask is not None:`` follows the example call."""
    none: dict[str, None] = {}
    for i, p in enumerate(inspect.signature(model.forward).parameters.values()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            break
        passed = i < len(inputs) and p.kind != p.KEYWORD_ONLY
        if (inputs[i] is None) if passed else p.default is None:
            none[p.name] = None
    return none


# torch functions that fx cannot trace when a size or dtype comes from the input (``torch.ones(t, t)`` with
# ``t = x.size(-1)``, ``torch.finfo(x.dtype)``): while tracing, a call of one with a traced value among its
# arguments is recorded as a graph node (the function itself is the node's target) instead of failing.
# ``torch``'s own attributes are swapped for the recording ones during the trace only.
RECORDED_FUNCTIONS = ("ones", "zeros", "full", "empty", "finfo", "iinfo")


def _has_proxy(value: Any) -> bool:
    if isinstance(value, fx.Proxy):
        return True
    if isinstance(value, (tuple, list)):
        return any(_has_proxy(v) for v in value)
    if isinstance(value, dict):
        return any(_has_proxy(v) for v in value.values())
    return False


class _Tracer(fx.Tracer):
    """torch.fx's tracer, with RECORDED_FUNCTIONS recorded as nodes and, with ``buffers_as_values``, buffers
    traced as graph values (``self.bias[:, :, :t, :t]`` with a traced ``t`` is a slice in the graph, not a
    slice of the buffer as traced)."""

    def __init__(self, buffers_as_values: bool) -> None:
        super().__init__()
        self.proxy_buffer_attributes = buffers_as_values

    def trace(self, root: Any, concrete_args: dict[str, Any] | None = None) -> fx.Graph:
        originals = {name: getattr(torch, name) for name in RECORDED_FUNCTIONS}

        def recording(original: Any) -> Any:
            def call(*args: Any, **kwargs: Any) -> Any:
                if _has_proxy(args) or _has_proxy(kwargs):
                    return self.create_proxy("call_function", original, args, kwargs)
                return original(*args, **kwargs)
            return call
        try:
            for name, original in originals.items():
                setattr(torch, name, recording(original))
            return super().trace(root, concrete_args)
        finally:
            for name, original in originals.items():
                setattr(torch, name, original)


def _trace(model: nn.Module, path: str, none: dict[str, None]) -> fx.GraphModule:
    """Buffers are traced as graph values; where the forward uses one as a plain value (``range(self.buf.size(0))``)
    that fails, and the buffers are traced as the tensors they are now, as torch.fx does by default."""
    try:
        graph = _Tracer(buffers_as_values=True).trace(model, concrete_args=none or None)
    except Exception:  # noqa: BLE001 - tried again below, where the error is reported
        graph = None
    try:
        graph = graph or _Tracer(buffers_as_values=False).trace(model, concrete_args=none or None)
    except Exception as e:  # noqa: BLE001 - any tracing failure is "unsupported", with its reason
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ProposalError(f"unsupported: the forward cannot be captured by torch.fx ({first}){_line_of(e, path)}; "
                            "data-dependent control flow (if/for on tensor values) is the usual cause") from e
    _keep_argument_names(graph, model)
    return fx.GraphModule(model, graph)


def _keep_argument_names(graph: fx.Graph, model: nn.Module) -> None:
    """The placeholders get the forward's parameter names, which the candidate's forward takes: fx makes
    ``A`` ``a``, and renames an argument traced as the constant None (``mask`` -> ``mask_1``, checked with
    ``_assert_is_none``, a check the candidate's envelope makes instead)."""
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target is fx._symbolic_trace._assert_is_none:
            graph.erase_node(node)
    parameters = list(inspect.signature(model.forward).parameters.values())
    named = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for node, name in zip([n for n in graph.nodes if n.op == "placeholder"], named):
        if str(node.target).startswith("*"):
            break
        if node.name != name:
            if any(n.name == name for n in graph.nodes):
                raise ProposalError(f"unsupported: the forward's argument '{name}' has the name of another value "
                                    "of the traced graph; the candidate could not keep the reference's signature")
            node.target = name
            node._rename(name)
            if node.name != name:          # fx keeps builtins' names (``input``) free: the forward may shadow one
                node.name = name
                graph._graph_namespace._rename_object(node, name)


_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, torch.add, torch.sub,
               torch.mul, torch.div, "add", "sub", "mul", "div"}


def _specialize_int_arguments(graph_module: fx.GraphModule, model: nn.Module, inputs: list[Any]) -> dict[str, Any]:
    """Every use of an int or bool argument of forward becomes its example value, unless each use is arithmetic
    with a tensor (``x * n``, ``x + shift``: the kernels take it at run time). A dim, a keepdim or a size then
    reaches the planner as the constant it needs; the candidate checks the value (codegen). Returns the
    specialized arguments by name. Needs the shapes propagated."""
    parameters = list(inspect.signature(model.forward).parameters.values())
    values = {p.name: (inputs[i] if i < len(inputs) else p.default) for i, p in enumerate(parameters)
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)}
    specialized: dict[str, Any] = {}
    for node in [n for n in graph_module.graph.nodes if n.op == "placeholder"]:
        value = values.get(node.name, inspect.Parameter.empty)
        if type(value) not in (int, bool) or not node.users:
            continue
        if all(u.target in _ARITHMETIC and any(isinstance(a, fx.Node) and a is not node and
                                               a.meta.get("tensor_meta") is not None for a in u.args)
               for u in node.users):
            continue
        for user in list(node.users):
            user.replace_input_with(node, value)
        specialized[node.name] = value
    graph_module.recompile()
    return specialized


def check_input_mutation(source: str, class_name: str) -> None:
    """``x += y`` on a forward argument mutates the caller's tensor, but torch.fx records it as ``x + y``:
    refuse rather than drop the mutation. (Augmented assignment to the forward's own intermediates is fine.)"""
    cls = next((n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    forward = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None) \
        if cls else None
    if forward is None:
        return
    inputs = {a.arg for a in forward.args.args[1:] + forward.args.kwonlyargs}
    for stmt in ast.walk(forward):
        if isinstance(stmt, ast.Assign):
            inputs -= {t.id for t in stmt.targets if isinstance(t, ast.Name)}   # rebound: no longer the input
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in inputs:
            raise ProposalError(f"unsupported: '{stmt.target.id} {_OPS.get(type(stmt.op), '?')}= ...' at line "
                                f"{stmt.lineno} changes the caller's tensor in place, which torch.fx records as "
                                f"out-of-place; write '{stmt.target.id} = {stmt.target.id} "
                                f"{_OPS.get(type(stmt.op), '?')} ...' if the mutation is not intended")


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}


def capture(spec: TaskSpec, training_batch_norms: bool = True) -> Captured:
    """Trace the reference of ``spec`` and annotate every node with its tensor metadata.
    ``training_batch_norms=False`` keeps training-mode batch norms as modules (cuDNN)."""
    try:
        task: LoadedTask = load_task(spec)
        init_args = task.init_args()
    except TaskError as e:
        raise ProposalError(str(e)) from e
    check_input_mutation(spec.read_source(), spec.class_name)
    try:
        with torch.device("meta"):
            model = task.model_class(*init_args)
            inputs = task.make_inputs(0, "meta")
        state = module_state(model)
        graph_module = _trace(model, spec.path, _none_arguments(model, inputs))
        propagate_shapes(graph_module, inputs)
        specialized = _specialize_int_arguments(graph_module, model, inputs)
        _values_only(graph_module)
        eval_only, train_only = _batch_norms(graph_module, training_batch_norms)
        propagate_shapes(graph_module, inputs)
    except ProposalError:
        raise
    except Exception:  # noqa: BLE001 - meta tensors do not support everything: fall back to the real CPU model
        torch.manual_seed(0)
        try:
            model = task.model_class(*init_args)
            inputs = task.make_inputs(0, "cpu")
        except Exception as e:  # noqa: BLE001 - the reference's own constructor or get_inputs
            raise ProposalError(f"the reference cannot be built: {_root_cause(e)}{_line_of(e, spec.path)}") from e
        state = module_state(model)
        graph_module = _trace(model, spec.path, _none_arguments(model, inputs))
        try:
            with torch.no_grad():
                propagate_shapes(graph_module, inputs)
                specialized = _specialize_int_arguments(graph_module, model, inputs)
                _values_only(graph_module)
                eval_only, train_only = _batch_norms(graph_module, training_batch_norms)
                propagate_shapes(graph_module, inputs)
        except Exception as e:  # noqa: BLE001
            raise ProposalError("the reference's own forward fails on its example inputs: "
                                f"{_root_cause(e)}") from e
    return Captured(spec=spec, source=spec.read_source(), graph_module=graph_module,
                    modules=dict(graph_module.named_modules()), init_args=init_args, example_inputs=inputs,
                    eval_only=eval_only, train_only=train_only, state=state, specialized=specialized)


def reference_class_node(source: str, class_name: str) -> ast.ClassDef:
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return node
    raise ProposalError(f"class {class_name!r} not found at the top level of the reference")
