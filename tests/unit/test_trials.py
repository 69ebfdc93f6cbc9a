"""The trials beyond get_inputs: other weights, x50 and shifted inputs, random masks, repeated calls, gradients."""
from __future__ import annotations

import copy

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


def test_requiring_grad_gives_each_model_its_own_leaves():
    x, idx = torch.randn(3, 4), torch.tensor([1, 2])
    a, b = trials.requiring_grad([x, idx, 2.0]), trials.requiring_grad([x, idx, 2.0])
    assert a[0].requires_grad and a[0].is_leaf and not x.requires_grad
    assert a[0] is not b[0] and torch.equal(a[0], x) and a[0].data_ptr() != x.data_ptr()
    assert a[1] is idx and a[2] == 2.0


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
