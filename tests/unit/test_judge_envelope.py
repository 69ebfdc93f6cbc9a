"""The envelope trials' pure parts: size symbols, variant sizes, resized inputs, the declared ENVELOPE."""
from __future__ import annotations

import pytest
import torch

from adaexplore_core.schema import envelope as envelope_text
from adaexplore_core.judge import envelope

ENVELOPE_SOURCE = '''
import torch

ENVELOPE = {
    "device_types": ["cuda"],
    "inputs": [{"dtype": "torch.float32", "sizes": ["B", 256]}, {"value": True}],
    "parameter_dtypes": ["torch.float32"],
    "eval_only": [], "train_only": [],
    "autograd": False,
}


class ModelNew(torch.nn.Module):
    pass
'''


def test_symbols_batch_from_the_first_tensor_and_sequence_from_rank_three():
    assert envelope.symbols([torch.zeros(64, 128)]) == {"B": (0, 64)}
    assert envelope.symbols([3, torch.zeros(8, 16, 32), torch.zeros(5)]) == {"B": (0, 8), "S": (1, 16)}
    assert envelope.symbols([torch.zeros(128)]) == {"B": (0, 128)}


def test_symbols_skip_sizes_of_one_scalars_and_non_tensors():
    assert envelope.symbols([torch.zeros(1, 16, 32)]) == {"S": (1, 16)}
    assert envelope.symbols([torch.zeros(4, 1, 32)]) == {"B": (0, 4)}
    assert envelope.symbols([torch.tensor(2.0), torch.zeros(8)]) == {}      # the first tensor is a scalar
    assert envelope.symbols([1.5, "x"]) == {}


@pytest.mark.parametrize("size, sizes", [(64, [32, 128, 7]), (7, [3, 14, 9]), (2, [2, 4, 7]), (3, [2, 6, 7])])
def test_variant_sizes(size, sizes):
    assert envelope.variant_sizes(size) == sizes


def test_variants_and_their_labels():
    found = envelope.variants([torch.zeros(8, 16, 32)])
    assert [v.label for v in found] == [f"shape trial (B: 8 -> {n})" for n in (4, 16, 7, 1, 133, 35)] + [
        f"shape trial (S: 16 -> {n})" for n in (8, 32, 7, 1, 261, 67)]
    assert found[6] == envelope.Variant("S", 1, 16, 8)


def test_growing_variants_stop_at_twice_large_bytes():
    big_bytes = envelope.LARGE_BYTES // 2                     # x2 fits, x4 + 3 does not
    variant_2x, variant_4x = envelope.Variant("B", 0, 8, 16), envelope.Variant("B", 0, 8, 35)
    assert not envelope.too_large([torch.empty(big_bytes // 4)], variant_2x)
    assert envelope.too_large([torch.empty(big_bytes // 4)], variant_4x)
    assert not envelope.too_large([torch.empty(big_bytes // 4)], envelope.Variant("B", 0, 8, 1))


def test_unknown_symbols_and_claims_from_size_two():
    declared = {"inputs": [{"sizes": ["B", "N", 4]}], "device_types": ["cuda"]}
    assert envelope.unknown_symbols(declared) == ["N"]
    assert envelope.claims_triton(declared, "B", "cuda", 35) and not envelope.claims_triton(declared, "B", "cuda", 1)
    assert not envelope.claims_triton(declared, "B", "cpu", 35)


def test_resized_varies_every_tensor_of_that_size_together():
    x, mask, bias, idx = torch.randn(8, 16), torch.rand(8, 16) < 0.3, torch.randn(16), torch.randint(0, 9, (8,))
    out = envelope.resized([x, mask, bias, 2.0, idx], envelope.Variant("B", 0, 8, 7), seed=1)
    assert envelope.shapes(out) == [[7, 16], [7, 16], [16], [7]]
    assert [t.dtype for t in out if isinstance(t, torch.Tensor)] == [torch.float32, torch.bool, torch.float32,
                                                                    torch.int64]
    assert out[3] == 2.0
    s = envelope.resized([torch.randn(4, 16, 32), torch.randn(4, 16, 32)], envelope.Variant("S", 1, 16, 9), seed=1)
    assert envelope.shapes(s) == [[4, 9, 32], [4, 9, 32]]


def test_resized_values_are_drawn_like_the_originals_and_seeded():
    floats = torch.randn(400, 50, dtype=torch.float64) * 3.0 + 5.0
    ints = torch.randint(10, 20, (400, 50))
    bools = torch.rand(400, 50) < 0.25
    variant = envelope.Variant("B", 0, 400, 800)
    new_floats, new_ints, new_bools = envelope.resized([floats, ints, bools], variant, seed=3)
    assert new_floats.dtype == torch.float64 and abs(float(new_floats.mean()) - 5.0) < 0.1
    assert abs(float(new_floats.std()) - 3.0) < 0.1
    assert int(new_ints.min()) == int(ints.min()) and int(new_ints.max()) == int(ints.max())
    assert abs(float(new_bools.double().mean()) - float(bools.double().mean())) < 0.02
    again = envelope.resized([floats, ints, bools], variant, seed=3)
    assert all(torch.equal(a, b) for a, b in zip(again, [new_floats, new_ints, new_bools]))
    assert not torch.equal(envelope.resized([floats], variant, seed=4)[0], new_floats)


def test_resized_constant_floats_get_unit_spread():
    (out,) = envelope.resized([torch.full((64, 8), 2.0)], envelope.Variant("B", 0, 64, 128), seed=0)
    assert abs(float(out.mean()) - 2.0) < 0.2 and 0.8 < float(out.std()) < 1.2


def test_too_large_only_grows_inputs_over_a_gib():
    big = torch.zeros(1).expand(envelope.LARGE_BYTES // 4 + 1)          # a GiB and 4 bytes, no memory
    assert envelope.tensor_bytes([big, 3]) == envelope.LARGE_BYTES + 4
    n = big.shape[0]
    assert envelope.too_large([big], envelope.Variant("B", 0, n, 2 * n))
    assert not envelope.too_large([big], envelope.Variant("B", 0, n, 7))
    assert not envelope.too_large([torch.zeros(64, 8)], envelope.Variant("B", 0, 64, 128))


def test_declared_reads_the_literal():
    found = envelope_text.declared(ENVELOPE_SOURCE)
    assert found["inputs"][0] == {"dtype": "torch.float32", "sizes": ["B", 256]}
    assert found["device_types"] == ["cuda"] and found["autograd"] is False
    annotated = envelope_text.declared('ENVELOPE: dict = {"inputs": [{"sizes": ["S"]}]}\n')
    assert annotated == {"inputs": [{"sizes": ["S"]}]}


@pytest.mark.parametrize("source", [
    "import torch\n",                                                        # absent
    "ENVELOPE = dict(inputs=[])\n",                                          # not a literal
    "ENVELOPE = {'inputs': __import__('os').getcwd()}\n",                    # code: never run
    "ENVELOPE = ['B']\n",                                                    # not a dict
    "def f():\n    ENVELOPE = {'inputs': []}\n",                             # not at module level
    "ENVELOPE = {\n",                                                        # a syntax error
])
def test_declared_is_none_without_a_top_level_literal_dict(source):
    assert envelope_text.declared(source) is None


def test_free_symbols_and_the_triton_claim():
    found = envelope_text.declared(ENVELOPE_SOURCE)
    assert envelope.free_symbols(found) == {"B"} and envelope.free_symbols(None) == set()
    assert envelope.claims_triton(found, "B", "cuda")
    assert not envelope.claims_triton(found, "B", "cpu")                     # Triton only on the GPU
    assert not envelope.claims_triton(found, "S", "cuda")                    # S is not free
    assert not envelope.claims_triton(None, "B", "cuda")
    assert envelope.claims_triton({"inputs": [{"sizes": ["B", 4]}]}, "B", "cpu")   # no device types: all


def test_single_float_dtype_and_floating_dtypes():
    linear = torch.nn.Linear(4, 4)
    assert envelope.single_float_dtype([torch.randn(2, 4)], linear) == torch.float32
    assert envelope.single_float_dtype([torch.randint(0, 3, (2,))], linear) == torch.float32   # parameters count
    assert envelope.single_float_dtype([torch.randn(2, 4).double()], linear.double()) == torch.float64
    assert envelope.single_float_dtype([torch.randn(2, 4).double()], linear.float()) is None   # mixed
    assert envelope.single_float_dtype([torch.randint(0, 3, (2,))], torch.nn.ReLU()) is None   # nothing floating
    assert envelope.floating_dtypes([torch.randn(2).half(), torch.zeros(2, dtype=torch.int64)], linear) == [
        "torch.float16", "torch.float32"]


def test_the_cpu_trial_runs_only_on_a_gpu_judge():
    assert envelope.cpu_trial_applies(torch.device("cuda:0"))
    assert envelope.cpu_trial_applies(torch.device("cuda"))
    assert not envelope.cpu_trial_applies(torch.device("cpu"))


def test_a_nan_in_the_example_does_not_make_the_variant_all_nan():
    x = torch.randn(4, 8)
    x[1, 2] = float("nan")
    (new,) = envelope.resized([x], envelope.Variant("B", 0, 4, 7), seed=1)
    assert bool(torch.isfinite(new).all()) and new.shape == (7, 8)


def test_fixed_sizes_leave_out_the_symbols():
    x, bias = torch.zeros(8, 16, 32), torch.zeros(32)
    assert envelope.fixed_sizes([x, bias]) == [32]            # dim 0 is B, dim 1 is S
    assert envelope.fixed_sizes([torch.zeros(4, 8, 6, 6)]) == [6]
    assert envelope.fixed_sizes([torch.zeros(16, 64)]) == [64]
    resized = envelope.resized_fixed([torch.randn(4, 8, 6, 6), 2.0], 6, 9, seed=0)
    assert resized[0].shape == (4, 8, 9, 9) and resized[1] == 2.0


@pytest.mark.parametrize("layout, strides", [("transposed", (1, 3)), ("sliced", (9, 1))])
def test_layouts_keep_values_and_shapes(layout, strides):
    x = torch.randn(3, 4)
    changed = envelope.in_layout([x, 1], layout)
    assert torch.equal(changed[0], x) and changed[0].stride() == strides and changed[1] == 1


def test_channels_last_applies_to_images_only():
    image = torch.randn(2, 3, 4, 4)
    assert envelope.in_layout([image], "channels_last")[0].is_contiguous(memory_format=torch.channels_last)
    assert envelope.in_layout([torch.randn(3, 4)], "channels_last") is None
    assert envelope.in_layout([torch.randn(5)], "transposed") is None


def test_a_same_layout_copy_keeps_the_strides():
    from adaexplore_core.judge.correctness import same_layout_copy
    for x in (torch.randn(4, 9)[:, :5], torch.randn(3, 4).t(),
              torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)):
        copy = same_layout_copy(x)
        assert copy.stride() == x.stride() and torch.equal(copy, x) and copy.data_ptr() != x.data_ptr()
    expanded = torch.randn(3, 1).expand(3, 4)
    assert torch.equal(same_layout_copy(expanded), expanded)


def test_long_rows_grow_the_last_fixed_dim_past_the_tile_caps():
    assert envelope.long_rows([torch.zeros(4, 8, 32)], "cpu") == [(32, 1025)]
    assert envelope.long_rows([torch.zeros(4, 8, 32)], "cuda") == [(32, 1025), (32, 4097)]
    assert envelope.long_rows([torch.zeros(4, 8, 2048)], "cuda") == [(2048, 4097)]   # past the first cap already
    assert envelope.long_rows([torch.zeros(4, 1)], "cpu") == []


def test_past_caps_inputs_shrink_the_batch_first_or_give_up():
    small = envelope.past_caps_inputs([torch.zeros(4, 32)], 32, 1025, "cpu", seed=0)
    assert [tuple(x.shape) for x in small] == [(4, 1025)]
    shrunk = envelope.past_caps_inputs([torch.zeros(4096, 32)], 32, 1025, "cpu", seed=0)   # 16.8 MB grown
    assert shrunk is not None and 1 <= shrunk[0].shape[0] < 4096 and shrunk[0].shape[1] == 1025
    assert envelope.tensor_bytes(shrunk) <= envelope.PAST_CAPS_BYTES["cpu"]
    volume = [torch.zeros(2, 3, 16, 16, 16)]                  # 1025 ** 3 per channel: never made
    assert envelope.past_caps_inputs(volume, 16, 1025, "cuda", seed=0) is None


def test_many_rows_passes_the_row_count_cap_with_the_batch():
    variant = envelope.many_rows([torch.zeros(4, 8, 32)], "cpu")     # 32 rows
    assert variant is not None and variant.symbol == "B" and variant.new * 8 > envelope.ROW_COUNT_CAPS[0]
    assert envelope.many_rows([torch.zeros(64)], "cpu") is None       # a vector: no rows
