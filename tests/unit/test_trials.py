"""The trials beyond get_inputs: other weights, x50 and shifted inputs, random masks, repeated calls, gradients."""
from __future__ import annotations

import copy
import pickle

import pytest
import torch

from adaexplore_core.judge import trials
from adaexplore_core.judge.correctness import compare_outputs


def test_randomize_state_changes_constant_weights_and_keeps_variances_positive():
    norm = torch.nn.LayerNorm(16)
    bn = torch.nn.BatchNorm1d(8)
    model = torch.nn.Sequential(norm, bn)
    assert trials.randomize_state(model, seed=1) == 6      # 2 + 2 parameters, running mean and var
    assert not torch.equal(norm.weight, torch.ones(16)) and not torch.equal(norm.bias, torch.zeros(16))
    assert bool((bn.running_var >= 0).all()) and not torch.equal(bn.running_var, torch.ones(8))
    assert int(bn.num_batches_tracked) == 0                  # integer buffers are left alone


def test_randomize_state_is_seeded():
    a, b = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)
    b.load_state_dict(a.state_dict())
    trials.randomize_state(a, seed=7)
    trials.randomize_state(b, seed=7)
    assert torch.equal(a.weight, b.weight)


def test_scaled_and_shifted_touch_only_floats():
    x, idx = torch.randn(3, 4), torch.tensor([1, 2])
    big = trials.scaled([x, idx, 2.0])
    assert torch.equal(big[0], x * 50) and big[1] is idx and big[2] == 2.0
    low = trials.shifted([x])[0]
    assert bool((low < 0).all()) and torch.allclose(low - low.mean(), x - x.mean(), atol=1e-5)


def test_random_masks():
    causal = torch.ones(8, 8, dtype=torch.bool).tril()
    (mask,) = trials.random_masks([causal], seed=3)
    assert mask.dtype == torch.bool and mask.shape == causal.shape and not torch.equal(mask, causal)
    assert trials.has_masks([causal]) and not trials.has_masks([torch.randn(2)])


def test_refill_keeps_the_objects():
    x = torch.zeros(5)
    pointer = x.data_ptr()
    trials.refill([x], [torch.arange(5.0)])
    assert x.data_ptr() == pointer and torch.equal(x, torch.arange(5.0))


def test_few_elements_changed():
    x = torch.randn(64, 8)
    (y,) = trials.few_elements_changed([x], seed=2)
    assert y.data_ptr() != x.data_ptr() and int((y != x).sum()) == 8       # one in 64
    (z,) = trials.few_elements_changed([torch.randn(5).t()], seed=2)
    assert z.numel() == 5


def test_permuted_masks_keep_row_counts():
    causal = torch.ones(16, 16, dtype=torch.bool).tril()
    (mask,) = trials.permuted_masks([causal], seed=4)
    assert torch.equal(mask.sum(dim=1), causal.sum(dim=1)) and not torch.equal(mask, causal)


def test_copy_state_writes_in_place():
    a, b = torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)
    weight = b.weight
    trials.copy_state(a, b)
    assert b.weight is weight and torch.equal(b.weight, a.weight)


def test_fair_numerics_accepts_a_candidate_as_close_to_float64_as_the_reference():
    # KernelBench level 1 problem 4: a matrix-vector product with K = 1M, where the fp32 reference is itself
    # ~3e-4 (relative) away from the float64 result. A candidate as far on the other side fails atol/rtol
    # against the reference, and is as good.
    exact = torch.linspace(1.0, 2.0, 64, dtype=torch.float64)
    ref = (exact * (1 + 3e-4)).float()
    cand = (exact * (1 - 3e-4)).float()
    worse = (exact * (1 - 1e-2)).float()
    assert compare_outputs([ref], [cand]) is not None                      # the plain rule rejects it
    assert compare_outputs([ref], [cand], exact=[exact]) is None            # the fair rule accepts it
    check = compare_outputs([ref], [worse], exact=[exact])
    assert check is not None and "float64" in check.detail


def test_plain_tensor_required():
    class Lazy(torch.Tensor):
        pass

    ref = torch.ones(3)
    check = compare_outputs([ref], [ref.clone().as_subclass(Lazy)])
    assert check is not None and check.name == "plain_tensor" and "plain torch.Tensor" in check.detail


def test_randomize_state_leaves_structure_buffers_alone():
    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(4, 4)
            self.register_buffer("bias", torch.ones(8, 8).tril())                  # a causal mask, as in nanoGPT
            self.register_buffer("inv_freq", torch.rand(4), persistent=False)      # rotary frequencies
            self.register_buffer("scale", torch.full((4,), 0.5))                   # learned state

    m = Attention()
    mask, freq, scale = m.bias.clone(), m.inv_freq.clone(), m.scale.clone()
    assert trials.randomize_state(m, seed=5) == 3
    assert torch.equal(m.bias, mask) and torch.equal(m.inv_freq, freq) and not torch.equal(m.scale, scale)


def test_integer_and_mask_inputs_change_too():
    from adaexplore_core.judge.timing import FreshInputs

    idx = torch.arange(64).reshape(8, 8)
    fresh = FreshInputs([[idx]], seed=1)
    first, second = fresh.next()[0], fresh.next()[0]
    assert not torch.equal(first, idx) and not torch.equal(first, second)
    assert torch.equal(first.flatten().sort().values, idx.flatten())          # the same values, new places
    (changed,) = trials.few_elements_changed([idx], seed=3)
    assert int((changed != idx).sum()) == 2 and torch.equal(changed.flatten().sort().values, idx.flatten())


def test_shifted_above_zero():
    x = torch.randn(5, 5)
    high = trials.shifted([x], +1.0)[0]
    assert bool((high > 0).all())


def test_leaf_copies_give_each_model_its_own_leaves_in_the_inputs_layout():
    x, idx = torch.randn(3, 4), torch.tensor([1, 2])
    a, b = trials.leaf_copies([x, idx, 2.0]), trials.leaf_copies([x, idx, 2.0])
    assert a[0].requires_grad and a[0].is_leaf and not x.requires_grad
    assert a[0] is not b[0] and torch.equal(a[0], x) and a[0].data_ptr() != x.data_ptr()
    assert a[1] is not idx and torch.equal(a[1], idx) and a[2] == 2.0
    t = torch.randn(4, 3).t()
    (copied,) = trials.leaf_copies([t])
    assert copied.stride() == t.stride() and torch.equal(copied, t) and copied.is_leaf
    only = trials.leaf_copies([x, x], requires=lambda i: i == 1)
    assert not only[0].requires_grad and only[1].requires_grad


def test_output_grads_are_seeded_and_only_for_outputs_that_require_grad():
    x = torch.randn(5, requires_grad=True)
    outputs = [x * 2, torch.ones(5), (x > 0).long()]
    grads = trials.output_grads(outputs, seed=5)
    assert grads[0].shape == (5,) and grads[1] is None and grads[2] is None
    assert torch.equal(grads[0], trials.output_grads(outputs, seed=5)[0])


def test_loss_backward_gives_the_vector_jacobian_product():
    x = torch.randn(6, requires_grad=True)
    outputs = [x * 3.0, x.sum().reshape(1)]
    grads = trials.output_grads(outputs, seed=2)
    trials.loss(outputs, grads).backward()
    assert torch.allclose(x.grad, 3.0 * grads[0] + grads[1])


def test_clear_grads_drops_parameter_grads_and_detaches_buffers():
    model = torch.nn.Linear(3, 2)
    model.register_buffer("ema", torch.zeros(3))
    x = torch.randn(4, 3, requires_grad=True)
    model(x).sum().backward()
    model.ema = model.ema + x.mean(0)                 # a buffer rebound from an input: attached to its graph
    assert model.weight.grad is not None and model.ema.requires_grad
    trials.clear_grads(model)
    assert model.weight.grad is None and model.bias.grad is None
    assert not model.ema.requires_grad and "ema" in dict(model.named_buffers())
    copy_of = copy.deepcopy(model)                    # a graph-attached buffer would make this raise
    assert torch.equal(copy_of.ema, model.ema)


def test_fresh_inputs_are_made_again_equal_from_their_recipe():
    """A checked timed call keeps no copy of its inputs: they are made again, equal, from the same seed."""
    from adaexplore_core.judge.timing import FreshInputs

    x, idx = torch.randn(6, 5), torch.arange(30).reshape(5, 6)
    fresh = FreshInputs([[x, idx, 3]], seed=2)
    first = fresh.next()
    recipe = fresh.last_recipe
    second = fresh.next()
    again = fresh.make(recipe)
    assert torch.equal(again[0], first[0]) and torch.equal(again[1], first[1]) and again[2] == 3
    assert not torch.equal(second[0], first[0])
    assert again[0].data_ptr() != first[0].data_ptr()


def test_timed_inputs_change_their_sign_pattern_but_one_signed_inputs_and_zeros_stay():
    """Red team (2026-12-02): with positive factors alone, sign(x) was the same on every timed call of a base set,
    so a cache keyed on it (a binarized layer: sign(x) @ W.T) hit every time. Magnitudes stay within [0.5, 1.5)
    of the base's."""
    from adaexplore_core.judge.timing import FreshInputs

    x = torch.randn(64, 64)
    x[0] = 0.0
    positive, negative = torch.rand(32) + 0.1, -torch.rand(32) - 0.1
    fresh = FreshInputs([[x, positive, negative]], seed=3)
    calls = [fresh.next() for _ in range(4)]
    patterns = {tuple(torch.sign(c[0]).flatten().tolist()) for c in calls}
    assert len(patterns) == 4
    for mixed, pos, neg in calls:
        ratio = (mixed[1:] / x[1:]).abs()
        assert bool((ratio >= 0.5).all() and (ratio < 1.5).all())
        assert bool((mixed[0] == 0).all()) and bool((pos > 0).all()) and bool((neg < 0).all())
    flipped = (torch.sign(calls[0][0][1:]) != torch.sign(x[1:])).float().mean()
    assert 0.4 < float(flipped) < 0.6


def test_inputs_made_again_leave_the_generators_as_the_timed_call_found_them():
    """A reference that draws random numbers (dropout) re-run on a timed call's inputs draws that call's
    numbers: the timed outputs of an honest dropout candidate match (they did not on a GPU before)."""
    from adaexplore_core.judge.timing import FreshInputs

    fresh = FreshInputs([[torch.randn(4)]], seed=5)
    fresh.next()
    recipe, drawn = fresh.last_recipe, torch.rand(8)       # what the timed call drew
    fresh.next()
    torch.rand(3)
    fresh.make(recipe)
    assert torch.equal(torch.rand(8), drawn)
    fresh.next()
    assert not torch.equal(torch.rand(8), drawn)           # each call its own numbers


def test_timed_integer_inputs_get_new_counts_and_permutations_stay_permutations():
    """A cache keyed on an integer input's sum or max missed no timed call when the calls only shuffled the
    values (red team b14: bincount, sort, histograms)."""
    from adaexplore_core.judge.timing import FreshInputs

    labels, order, mask = torch.randint(0, 10, (200,)), torch.randperm(50), torch.rand(40) > 0.5
    fresh = FreshInputs([[labels, order, mask]], seed=3)
    calls = [fresh.next() for _ in range(4)]
    assert len({int(c[0].sum()) for c in calls}) > 1                          # new counts of each value
    assert all(set(c[0].tolist()) <= set(labels.tolist()) for c in calls)     # only values it had
    assert all(torch.equal(c[1].sort().values, torch.arange(50)) for c in calls)
    assert all(int(c[2].sum()) == int(mask.sum()) for c in calls)


def test_changed_in_place_keeps_the_objects_and_changes_a_part():
    torch.manual_seed(0)
    layer = torch.nn.Linear(6, 4)
    weight, before = layer.weight, layer.weight.detach().clone()
    assert trials.changed_in_place(layer, seed=1, pattern="column") == 2
    assert layer.weight is weight
    changed_columns = (layer.weight != before).any(dim=0)
    assert int(changed_columns.sum()) == 1                      # one column of the last dim
    before = layer.weight.detach().clone()
    trials.changed_in_place(layer, seed=2, pattern="fraction")
    share = float((layer.weight != before).double().mean())
    assert 0.05 < share < 0.6


def test_float_settings_include_a_dropouts_p_and_skip_private_names():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.temperature, self._hidden, self.count = 2.0, 3.0, 4
            self.drop = torch.nn.Dropout(0.1)
            self.act = torch.nn.LeakyReLU(0.2)
    assert trials.float_settings(M()) == [("", "temperature", 2.0), ("drop", "p", 0.1),
                                          ("act", "negative_slope", 0.2)]    # a schedule sets p (red team)
    assert trials.other_value(0.0) != 0.0 and trials.other_value(2.0) == 3.25


def test_masked_prefix():
    x = torch.randn(64, 64)
    masked = trials.masked_prefix([x, 3])
    assert torch.isneginf(masked[0][:, :16]).all() and torch.isfinite(masked[0][:, 16:]).all() and masked[1] == 3


def test_rounded_and_ignored_indices():
    assert torch.equal(trials.rounded([torch.tensor([0.4, 1.6])])[0], torch.tensor([0.0, 2.0]))
    targets = torch.randint(0, 10, (1000,))
    ignored = trials.ignored_indices([targets, torch.ones(3, dtype=torch.bool)], seed=0)
    assert 50 < int((ignored[0] == -100).sum()) < 150 and ignored[1].all()
    assert not trials.has_integers([torch.ones(2, dtype=torch.bool), torch.randn(2)])


def test_past_indices_set_some_ids_past_the_largest():
    targets = torch.randint(0, 10, (1000,))
    past = trials.past_indices([targets, torch.ones(3, dtype=torch.bool)], seed=0)
    changed = past[0] != targets
    assert 50 < int(changed.sum()) < 150 and changed[0] and past[1].all()
    assert (past[0][changed] == 2 * int(targets.max()) + 1).all()
    small = trials.past_indices([torch.tensor([100, 3], dtype=torch.int8)], seed=0)[0]
    assert int(small[0]) == 127                           # capped at the dtype's largest value


def test_broadcast_variants_cut_later_inputs_shaped_like_the_first():
    x, y, z = torch.randn(4, 8), torch.randn(4, 8), torch.randn(8)
    found = trials.broadcast_variants([x, y, z])
    assert [i for i, _ in found] == [1]
    assert found[0][1][1].shape == (1, 8) and found[0][1][0] is x
    assert trials.broadcast_variants([x]) == []


@pytest.mark.parametrize("how", ["plain", "strided", "narrowed", "outputs_changed", "twice", "second_order"])
def test_backward_variants_give_the_expected_gradients(how):
    x = torch.randn(3, 4, requires_grad=True)
    out = [x * 1.0 + 0.0] if how == "outputs_changed" else [x * x]    # x * x saves x: a change would raise
    grads = [torch.randn(3, 4)]
    trials.backward(out, grads, how, [x])
    first = grads[0] if how == "outputs_changed" else 2 * x.detach() * grads[0]
    expected = {"plain": first, "strided": first, "narrowed": first, "outputs_changed": first, "twice": 2 * first,
                "second_order": 2 * first * 2 * grads[0]}[how]    # d/dx sum((2 x g)^2) = 8 x g^2
    assert torch.allclose(x.grad, expected, atol=1e-5)


def _seen_grad_outputs(how):
    """The grad_outputs the module's backward receives under ``how``, and the outputs after the backward."""
    seen = []

    class Spy(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            seen.append(g)
            return g
    x = torch.randn(3, 4, requires_grad=True)
    out = [Spy.apply(x)]
    before = out[0].detach().clone()
    trials.backward(out, [torch.ones(3, 4)], how, [x])
    return seen[0], before, out[0].detach()


def test_strided_backward_hands_the_module_a_non_contiguous_grad_output():
    g, _, _ = _seen_grad_outputs("strided")
    assert not g.is_contiguous()


def test_narrowed_backward_hands_the_module_a_column_slice_of_a_wider_grad_output():
    g, _, _ = _seen_grad_outputs("narrowed")
    assert g.shape == (3, 4) and g.stride() == (4 + trials.NARROWED_EXTRA, 1)    # rows further apart than 4


def test_outputs_changed_backward_changes_the_outputs_in_place_first():
    g, before, after = _seen_grad_outputs("outputs_changed")
    assert torch.equal(after, before + 1.0) and torch.equal(g, torch.ones(3, 4))


def test_the_strings_a_forward_compares_an_argument_with_are_its_other_values():
    class Pool(torch.nn.Module):
        def forward(self, x, mode: str = "avg", other: str = "x"):
            if mode == "max":
                return x.amax(-1)
            if mode in ("sum", "avg") or other != "y":
                return x.sum(-1)
            return x.mean(-1)

    forward = Pool().forward
    assert trials.string_values(forward, "mode", "avg", at_most=2) == ["max", "sum"]
    assert trials.string_values(forward, "other", "x", at_most=1) == ["y"]
    assert trials.string_values(len, "mode", "avg") == ["sum", "none", "mean", "batchmean"]   # torch's options
    assert trials.string_values(forward, "mode", "avg", at_most=1) == ["max", "sum"]   # every compared option


def test_tensors_inside_lists_are_mapped_and_refilled_in_place():
    a, b = torch.zeros(2), torch.zeros(3)
    inputs = [[a, b], {"k": torch.ones(1)}, 4]
    doubled = trials.scaled(inputs, 2.0)
    assert doubled[0][1] is not b and doubled[2] == 4 and float(doubled[1]["k"]) == 2.0
    trials.refill(inputs, [[torch.ones(2), torch.full((3,), 5.0)], {"k": torch.zeros(1)}, 4])
    assert inputs[0][0] is a and float(a.sum()) == 2.0 and float(b.sum()) == 15.0
    assert [t.numel() for t in trials.tensors_in(inputs)] == [2, 3, 1]


REDUCTIONS = '''
"""A module docstring: not an option."""
import torch

TABLE = {"first": 0, "second": 1}


def pick(x, how):
    return x.sum() if how == "total" else x.mean()


class Model(torch.nn.Module):
    def __init__(self, kind="plain"):
        super().__init__()
        self.kind = kind

    def forward(self, x, reduction="mean", flag="on"):
        match flag:
            case "off":
                pass
        if reduction.lower() == "sum" or self.kind == "fancy":
            return x.sum()
        return torch.nn.functional.mse_loss(x, x, reduction=reduction)
'''


def test_string_values_read_calls_match_statements_attributes_and_the_module(tmp_path):
    path = tmp_path / "reductions.py"
    path.write_text(REDUCTIONS)
    from adaexplore_core.task import import_file

    module = import_file(str(path))
    forward = module.Model().forward
    assert trials.string_values(forward, "reduction", "mean", at_most=1) == ["sum"]        # reduction.lower()
    assert trials.string_values(forward, "flag", "on", at_most=1) == ["off"]               # match / case
    assert trials.string_values(forward, "kind", "plain", at_most=1) == ["fancy"]          # self.kind
    found = trials.string_values(forward, "reduction", "mean", at_most=20)
    assert found[0] == "sum" and set(found[1:8]) == {"first", "second", "total", "plain", "off", "fancy", "on"}
    assert found[8:] == [o for o in trials.TORCH_STRING_OPTIONS if o not in found[:8] and o != "mean"][:12]
    assert "none" in found and "A module docstring" not in " ".join(found) and "mean" not in found


def test_a_pickled_copy_goes_through_pickle_but_shares_the_weights():
    model = torch.nn.Linear(512, 256)
    copied = trials.pickled_copy(model)
    assert type(copied) is torch.nn.Linear and copied is not model
    assert copied.weight.data_ptr() == model.weight.data_ptr()        # no bytes of the weights copied
    assert isinstance(copied.weight, torch.nn.Parameter) and copied.weight.requires_grad
    x = torch.randn(3, 512)
    assert torch.equal(copied(x), model(x))
    model.hook = lambda y: y                                            # what torch.save(model) refuses
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        trials.pickled_copy(model)


def test_other_values_of_a_parameter_by_its_kind():
    class Pool(torch.nn.Module):
        def forward(self, x, mode: str = "avg"):
            return x.amax(-1) if mode == "max" else x.mean(-1)

    forward = Pool().forward
    assert trials.other_values(3, forward, "n") == [4, 2, 7]            # twice plus one: a block covering 3
    assert trials.other_values(1, forward, "n") == [2, 0]
    assert trials.other_values(True, forward, "flag") == [False]
    assert trials.other_values(2.0, forward, "t") == [trials.other_value(2.0), -2.0]   # negated: the sign
    assert trials.other_values(0.0, forward, "t") == [trials.other_value(0.0)]
    assert trials.other_values("avg", forward, "mode", strings=1) == ["max"]
    assert trials.other_values("avg", forward, None) == [] and trials.other_values(None, forward, "x") == []


def test_two_calls_converts_the_second_calls_inputs_with_the_model():
    """The float64 evaluation of a bf16 trial converts the TwoCalls wrapper: its second call must then run in
    float64 too (CI 2026-12-04: a bf16 rotary candidate failed because it ran in bf16 and agreed exactly)."""
    class Scaled(torch.nn.Linear):
        def forward(self, x, k):
            return super().forward(x) * k

    second = [torch.randn(3, 4, dtype=torch.bfloat16), 5]
    both = trials.TwoCalls(Scaled(4, 2).to(torch.bfloat16), second).double()
    assert both.second[0].dtype == torch.float64 and both.second[1] == 5
    outs = both(torch.randn(2, 4, dtype=torch.float64), 2)
    assert [o.dtype for o in outs] == [torch.float64, torch.float64] and outs[1].shape == (3, 2)
    assert both.second[0].to(torch.bfloat16).equal(second[0])         # the same values, only wider
