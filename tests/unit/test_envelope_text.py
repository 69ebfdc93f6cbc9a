"""schema/envelope.py: a candidate's ENVELOPE read without running it, and the words the patch and hover use."""
from __future__ import annotations

from adaexplore_core.schema import envelope as envelope_text

ENVELOPE = {"device_types": ["cuda"], "inputs": [{"dtype": "torch.bfloat16", "sizes": ["B", "S", 1024]},
                                                 {"value": True}],
            "parameter_dtypes": ["torch.bfloat16"], "eval_only": [], "train_only": [], "autograd": False}


def test_declared_reads_the_class_attribute_or_the_top_level():
    in_class = f"import torch\n\nclass ModelNew:\n    ENVELOPE = {ENVELOPE!r}\n"
    top = f"ENVELOPE = {ENVELOPE!r}\n\nclass ModelNew:\n    pass\n"
    assert envelope_text.declared(in_class) == ENVELOPE
    assert envelope_text.declared(top) == ENVELOPE


def test_declared_never_runs_code_and_refuses_what_is_not_a_literal():
    assert envelope_text.declared("class ModelNew:\n    ENVELOPE = __import__('os').system('true')\n") is None
    assert envelope_text.declared("ENVELOPE = [1, 2]\n") is None
    assert envelope_text.declared("class ModelNew(:\n") is None
    assert envelope_text.declared("class ModelNew:\n    pass\n") is None


def test_summary_names_device_dtype_sizes_and_modes():
    assert envelope_text.summary(ENVELOPE) == ("Triton path: cuda bfloat16 inputs (B, S, 1024), train and eval, no "
                                               "autograd; every other call runs the original forward.")
    assert ", eval, " in envelope_text.summary({**ENVELOPE, "eval_only": ["bn"]})


def test_validated_lines_for_the_hover():
    lines = envelope_text.validated({
        "declared": ENVELOPE, "shapes_timed": [[8, 128, 1024]],
        "shapes_validated": [{"label": "B 8 -> 4", "triton": True}, {"label": "B 8 -> 7", "triton": False}],
        "dtypes": ["torch.bfloat16", "torch.float32"], "modes": ["train", "eval"], "devices": ["cuda", "cpu"],
        "gradients": "matched"})
    assert lines[0].startswith("Triton path: cuda bfloat16")
    assert lines[1] == "Shapes validated: 2 besides the example (1 on the Triton path): B 8 -> 4, B 8 -> 7"
    assert lines[2] == "Timed at: (8, 128, 1024)"
    assert lines[3] == "Matched the original with dtypes bfloat16, float32; modes train, eval; devices cuda, cpu"
    assert lines[4] == "Gradients: matched"
    assert envelope_text.validated(None) == [] and envelope_text.validated({}) == []
