"""The pure search tree (adaexplore_core.search.tree): the paper's reward, backing up, UCB selection with the
"expand" option, step kinds, the diverse pool, the best node and the JSON round trip.

Verdicts are built by hand (the shape of ``Verdict.to_dict()`` as far as the tree reads it); no torch, no
judge. Expected selection scores are computed here from the documented formulas, independently of
``Tree.ucb`` / ``Tree.expand_score``.
"""
from __future__ import annotations

import json
import math
import random

import pytest

from adaexplore_core.search.tree import (JUDGED, LARGE, PENDING, ROOT, SMALL, Node, SearchConfig, Tree, reward,
                                         speedup_of)

CFG = SearchConfig()


def verdict(kind: str = "valid", stage: str | None = None, eager: float | None = None,
            compile_: float | None = None) -> dict:
    """A hand-made verdict dict; ``eager`` given means it was timed."""
    stage = stage or ("ok" if kind == "valid" else "compile")
    timing = None if eager is None else {"speedup_vs_eager": eager, "speedup_vs_compile": compile_}
    return {"verdict": kind, "stage": stage, "reason": f"{kind} at {stage}", "timing": timing}


def valid_reward(s: float, cfg: SearchConfig = CFG) -> float:
    """The paper's formula, written out: 0.4 + 1.2 * (clip(s, 0.1, 10) - 0.1) / 9.9."""
    clipped = min(max(s, 0.1), 10.0)
    return 0.4 + 1.2 * (clipped - 0.1) / 9.9


def ucb(mean_sum: float, visits: int, parent_visits: int, c: float = CFG.c) -> float:
    return mean_sum / visits + c * math.sqrt(math.log(max(parent_visits, 1)) / visits)


def expand(visits: int, children: int, cfg: SearchConfig = CFG) -> float:
    return cfg.expand_weight + cfg.c * math.sqrt(math.log(visits + 1) / (children + 1))


def judged(tree: Tree, parent: int, v: dict, step: str = LARGE, source: str | None = None) -> Node:
    node = tree.add(parent, step, source if source is not None else f"src-{len(tree.nodes)}")
    tree.record(node.id, v)
    return node


# --------------------------------------------------------------------------------------------------------------
# reward


@pytest.mark.parametrize("stage", ["compile", "guard", "load"])
def test_reward_is_zero_when_it_does_not_compile_or_load(stage):
    assert reward(verdict("invalid", stage)) == 0.0


@pytest.mark.parametrize("stage", ["runtime", "timeout", "crash", "memory"])
def test_reward_for_crashed_candidates(stage):
    assert reward(verdict("invalid", stage)) == pytest.approx(0.05)
    cfg = SearchConfig(reward_crashed=0.07)
    assert reward(verdict("invalid", stage), cfg) == pytest.approx(0.07)


def test_reward_for_wrong_results():
    assert reward(verdict("invalid", "correctness")) == pytest.approx(0.1)
    assert reward(verdict("invalid", "correctness"), SearchConfig(reward_wrong=0.2)) == pytest.approx(0.2)
    # a wrong result earns more than a crash, which earns more than a compile failure
    assert reward(verdict("invalid", "correctness")) > reward(verdict("invalid", "runtime")) > \
        reward(verdict("invalid", "compile"))


@pytest.mark.parametrize("s", [0.1, 0.5, 1.0, 2.0, 3.7, 9.99, 10.0])
def test_reward_for_valid_candidates_follows_the_formula(s):
    assert reward(verdict("valid", eager=s, compile_=s / 2)) == pytest.approx(valid_reward(s), abs=1e-12)


@pytest.mark.parametrize("s,expected", [(0.0, 0.4), (0.01, 0.4), (0.1, 0.4), (10.0, 1.6), (12.0, 1.6),
                                        (1e6, 1.6)])
def test_valid_reward_is_clipped_at_both_ends(s, expected):
    assert reward(verdict("valid", eager=s)) == pytest.approx(expected, abs=1e-12)


def test_untimed_valid_counts_as_speedup_one():
    expected = 0.4 + 1.2 * 0.9 / 9.9
    assert reward(verdict("valid")) == pytest.approx(expected, abs=1e-12)
    assert reward(verdict("valid")) == pytest.approx(reward(verdict("valid", eager=1.0)), abs=1e-12)
    # the timed-but-slower candidate scores less than the untimed one
    assert reward(verdict("valid", eager=0.5)) < reward(verdict("valid"))


@pytest.mark.parametrize("stage", ["reference", "internal"])
def test_judge_errors_score_zero(stage):
    assert reward(verdict("error", stage)) == 0.0


def test_no_verdict_scores_zero():
    assert reward(None) == 0.0
    assert reward({}) == 0.0


def test_reward_reads_the_config_constants():
    cfg = SearchConfig(reward_valid=1.0, reward_speed_scale=2.0, speedup_min=1.0, speedup_max=3.0)
    assert reward(verdict("valid", eager=2.0), cfg) == pytest.approx(1.0 + 2.0 * (2.0 - 1.0) / 2.0)
    assert reward(verdict("valid", eager=0.5), cfg) == pytest.approx(1.0)      # clipped at speedup_min
    assert reward(verdict("valid", eager=5.0), cfg) == pytest.approx(3.0)      # clipped at speedup_max


def test_speedup_of():
    v = verdict("valid", eager=2.5, compile_=1.25)
    assert speedup_of(v) == 2.5
    assert speedup_of(v, "compile") == 1.25
    assert speedup_of(verdict("valid")) is None                       # not timed
    assert speedup_of(verdict("invalid", "runtime", eager=3.0)) is None   # only valid verdicts have a speedup
    assert speedup_of(None) is None


# --------------------------------------------------------------------------------------------------------------
# structure and backing up


def test_add_makes_pending_children_with_increasing_ids():
    tree = Tree()
    a = tree.add(ROOT, LARGE, "a", "first", {"k": 1})
    b = tree.add(a.id, SMALL, "b")
    assert (a.id, b.id) == (1, 2)
    assert a.status == b.status == PENDING
    assert tree.nodes[ROOT].children == [1] and a.children == [2]
    assert [n.id for n in tree.pending()] == [1, 2] and tree.judged() == []
    assert a.meta == {"k": 1} and a.description == "first"
    with pytest.raises(KeyError):
        tree.add(99, SMALL, "c")


def test_record_backs_up_visits_and_reward_along_the_whole_path():
    tree = Tree()
    a = judged(tree, ROOT, verdict("valid", eager=2.0))
    b = judged(tree, a.id, verdict("invalid", "correctness"), SMALL)
    side = judged(tree, ROOT, verdict("invalid", "runtime"))
    c = tree.add(b.id, SMALL, "c")
    r = tree.record(c.id, verdict("valid", eager=4.0))
    assert r == pytest.approx(valid_reward(4.0))
    assert c.status == JUDGED and c.reward == pytest.approx(r)
    ra, rb, rs = valid_reward(2.0), 0.1, 0.05
    expected = {ROOT: (4, ra + rb + rs + r), a.id: (3, ra + rb + r), b.id: (2, rb + r), c.id: (1, r),
                side.id: (1, rs)}
    for node_id, (visits, total) in expected.items():
        node = tree.nodes[node_id]
        assert node.visits == visits, node_id
        assert node.reward_sum == pytest.approx(total), node_id
    assert tree.nodes[a.id].mean_reward() == pytest.approx((ra + rb + r) / 3)
    assert [n.id for n in tree.path(c.id)] == [ROOT, a.id, b.id, c.id]


def test_record_refuses_a_second_verdict():
    tree = Tree()
    a = judged(tree, ROOT, verdict("valid"))
    before = (tree.nodes[ROOT].visits, tree.nodes[ROOT].reward_sum, a.visits, a.reward_sum)
    with pytest.raises(ValueError, match="already judged"):
        tree.record(a.id, verdict("valid", eager=9.0))
    assert (tree.nodes[ROOT].visits, tree.nodes[ROOT].reward_sum, a.visits, a.reward_sum) == before
    assert a.verdict == verdict("valid")


def test_record_keeps_duplicate_of():
    tree = Tree()
    a = judged(tree, ROOT, verdict("valid"), source="same")
    b = tree.add(a.id, SMALL, "same")
    tree.record(b.id, a.verdict, duplicate_of=a.id)
    assert b.duplicate_of == a.id
    assert tree.find_source("same") is a          # the original, not the duplicate


# --------------------------------------------------------------------------------------------------------------
# selection


def test_select_on_an_empty_tree_returns_the_root():
    assert Tree().select().id == ROOT


def test_pending_children_are_never_entered():
    tree = Tree()
    tree.add(ROOT, LARGE, "a")                            # pending, nothing judged
    assert tree.select().id == ROOT
    good = judged(tree, ROOT, verdict("valid", eager=10.0))
    tree.add(good.id, SMALL, "pending child")          # the only child of `good` is with the judge
    assert tree.select().id == good.id
    # even when expanding is never worth it, selection stops above pending children
    never_expand = Tree(SearchConfig(expand_weight=-10.0))
    never_expand.add(ROOT, LARGE, "a")
    assert never_expand.select().id == ROOT
    b = judged(never_expand, ROOT, verdict("invalid", "compile"))
    never_expand.add(b.id, SMALL, "b's pending child")
    assert never_expand.select().id == b.id


def test_pending_children_count_as_visits_without_reward():
    tree = Tree()
    a = judged(tree, ROOT, verdict("valid", eager=10.0))
    parent_visits = 1
    assert tree.ucb(a, parent_visits) == pytest.approx(ucb(valid_reward(10.0), 1, 1))
    tree.add(a.id, SMALL, "x")
    tree.add(a.id, SMALL, "y")
    # visits 1 + 2 pending, reward sum unchanged: the virtual loss lowers the mean
    assert tree.ucb(a, 3) == pytest.approx(ucb(valid_reward(10.0), 3, 3))
    assert tree.expand_score(a) == pytest.approx(expand(3, 2))


def test_select_descends_into_the_child_with_the_higher_mean():
    tree = Tree()
    good = judged(tree, ROOT, verdict("valid", eager=10.0))
    bad = judged(tree, ROOT, verdict("invalid", "compile"))
    good_child = judged(tree, good.id, verdict("valid", eager=10.0), SMALL)
    # at the root (3 visits, 2 children): the good branch beats both the bad one and a new branch
    r = valid_reward(10.0)
    assert ucb(2 * r, 2, 3) > ucb(0.0, 1, 3)
    assert ucb(2 * r, 2, 3) > expand(3, 2)
    # at `good` (2 visits, 1 child): its child beats expanding `good`
    assert ucb(r, 1, 2) > expand(2, 1)
    assert tree.select().id == good_child.id
    assert bad.id != good_child.id


def test_expand_wins_at_a_node_whose_children_are_poor():
    tree = Tree()
    a = judged(tree, ROOT, verdict("valid", eager=10.0))
    for _ in range(2):
        judged(tree, a.id, verdict("invalid", "compile"), SMALL)
    r = valid_reward(10.0)
    # root: 3 visits, one child `a` with sum r over 3 visits -> descend (ucb > expand(root))
    assert ucb(r, 3, 3) > expand(3, 1)
    # at `a`: 3 visits, two children worth 0 -> expanding `a` wins
    assert expand(3, 2) >= ucb(0.0, 1, 3)
    assert tree.select().id == a.id


def test_root_expands_when_its_branches_are_poor():
    tree = Tree()
    judged(tree, ROOT, verdict("invalid", "compile"))
    judged(tree, ROOT, verdict("invalid", "runtime"))
    assert expand(2, 2) > ucb(0.05, 1, 2)
    assert tree.select().id == ROOT


def test_ties_descend_at_the_root_and_expand_below_it():
    """The root's expand option must be strictly better to start a new branch; elsewhere a tie expands.
    With c = 0 and rewards of exactly 0.5 every score is exactly 0.5."""
    cfg = SearchConfig(c=0.0, expand_weight=0.5, reward_valid=0.5, reward_speed_scale=0.0)
    tree = Tree(cfg)
    a = judged(tree, ROOT, verdict("valid"))
    assert a.reward == 0.5
    assert tree.select().id == a.id                     # root: 0.5 > 0.5 is false -> descend
    judged(tree, a.id, verdict("valid"), SMALL)
    assert tree.select().id == a.id                     # at `a`: 0.5 >= 0.5 -> expand `a`


def test_selection_prefers_the_lower_id_on_equal_scores():
    cfg = SearchConfig(expand_weight=-10.0)              # never expand: always descend
    tree = Tree(cfg)
    first = judged(tree, ROOT, verdict("valid"))
    judged(tree, ROOT, verdict("valid"))
    assert tree.select().id == first.id


# --------------------------------------------------------------------------------------------------------------
# step kinds


def test_root_and_sourceless_nodes_get_large_steps():
    tree = Tree(SearchConfig(p_large=0.0))
    assert tree.step_kind(tree.nodes[ROOT], random.Random(0)) == LARGE
    empty = judged(tree, ROOT, verdict("invalid", "guard"), source="")
    assert tree.step_kind(empty, random.Random(0)) == LARGE


def test_large_step_forced_after_enough_small_children():
    tree = Tree(SearchConfig(p_large=0.0, small_children_before_large=2))
    a = judged(tree, ROOT, verdict("valid"))
    assert tree.step_kind(a, random.Random(0)) == SMALL
    judged(tree, a.id, verdict("valid"), SMALL)
    judged(tree, a.id, verdict("valid"), LARGE)         # large children do not count
    assert tree.step_kind(a, random.Random(0)) == SMALL
    tree.add(a.id, SMALL, "pending small")               # pending small children count
    assert tree.step_kind(a, random.Random(0)) == LARGE
    three = Tree(SearchConfig(p_large=0.0, small_children_before_large=3))
    b = judged(three, ROOT, verdict("valid"))
    for _ in range(2):
        judged(three, b.id, verdict("valid"), SMALL)
    assert three.step_kind(b, random.Random(0)) == SMALL


def test_large_steps_have_probability_p_large():
    tree = Tree()
    a = judged(tree, ROOT, verdict("valid"))
    n = 4000
    share = sum(tree.step_kind(a, random.Random(seed)) == LARGE for seed in range(n)) / n
    assert abs(share - 0.2) < 0.03, share
    # the same rng state gives the same answer
    assert [tree.step_kind(a, random.Random(s)) for s in range(50)] == \
        [tree.step_kind(a, random.Random(s)) for s in range(50)]


@pytest.mark.parametrize("p,kind", [(0.0, SMALL), (1.0, LARGE)])
def test_p_large_extremes(p, kind):
    tree = Tree(SearchConfig(p_large=p))
    a = judged(tree, ROOT, verdict("valid"))
    assert {tree.step_kind(a, random.Random(seed)) for seed in range(300)} == {kind}


# --------------------------------------------------------------------------------------------------------------
# the diverse pool and the best node


@pytest.fixture
def branches():
    """root -> b1 (2x) -> b1a (3x), b1b (wrong), b1c (2.5x); root -> b2 (1.5x) -> b2a (5x);
    root -> b3 (compile error) -> b3a (1.2x); root -> b4 (judge error); root -> b5 (pending)."""
    tree = Tree()
    n = {}
    n["b1"] = judged(tree, ROOT, verdict("valid", eager=2.0))
    n["b2"] = judged(tree, ROOT, verdict("valid", eager=1.5))
    n["b3"] = judged(tree, ROOT, verdict("invalid", "compile"))
    n["b4"] = judged(tree, ROOT, verdict("error", "internal"))
    n["b5"] = tree.add(ROOT, LARGE, "pending")
    n["b1a"] = judged(tree, n["b1"].id, verdict("valid", eager=3.0), SMALL)
    n["b1b"] = judged(tree, n["b1"].id, verdict("invalid", "correctness"), SMALL)
    n["b1c"] = judged(tree, n["b1"].id, verdict("valid", eager=2.5), SMALL)
    n["b2a"] = judged(tree, n["b2"].id, verdict("valid", eager=5.0), SMALL)
    n["b3a"] = judged(tree, n["b3"].id, verdict("valid", eager=1.2), SMALL)
    return tree, n


def test_pool_is_the_best_of_each_branch_along_the_path(branches):
    tree, n = branches
    pool = tree.pool(n["b1a"])
    # root's branches give b2a, b1a, b3a; b1's own branches add b1c (b1b is wrong)
    assert [p.id for p in pool] == [n["b2a"].id, n["b1a"].id, n["b1c"].id, n["b3a"].id]
    assert all(p.valid and p.status == JUDGED for p in pool)
    speeds = [speedup_of(p.verdict) for p in pool]
    assert speeds == sorted(speeds, reverse=True)
    assert len({p.id for p in pool}) == len(pool)


def test_pool_is_diverse_one_per_branch(branches):
    tree, n = branches
    pool = tree.pool(n["b2a"])
    # from the root's branches only: the best of b1's whole subtree (b1a), not b1c or b1 as well
    assert [p.id for p in pool] == [n["b2a"].id, n["b1a"].id, n["b3a"].id]


def test_pool_at_the_root(branches):
    tree, n = branches
    assert [p.id for p in tree.pool(tree.nodes[ROOT])] == [n["b2a"].id, n["b1a"].id, n["b3a"].id]
    assert Tree().pool(Tree().nodes[ROOT]) == []


def test_pool_size_limits_the_pool(branches):
    tree, n = branches
    small = Tree.from_dict({**tree.to_dict(), "config": SearchConfig(pool_size=2).to_dict()})
    assert [p.id for p in small.pool(small.nodes[n["b1a"].id])] == [n["b2a"].id, n["b1a"].id]


def test_best_is_the_highest_speedup(branches):
    tree, n = branches
    assert tree.best().id == n["b2a"].id
    assert tree.best([n["b1"], n["b1a"], n["b1b"]]).id == n["b1a"].id
    assert tree.best([n["b3"], n["b4"], n["b5"]]) is None
    assert Tree().best() is None


def test_best_prefers_the_earliest_of_equal_untimed_nodes():
    tree = Tree()
    judged(tree, ROOT, verdict("invalid", "correctness"))
    first = judged(tree, ROOT, verdict("valid"))
    judged(tree, first.id, verdict("valid"), SMALL)
    judged(tree, ROOT, verdict("valid"))
    assert tree.best().id == first.id


def test_best_ignores_pending_nodes():
    tree = Tree()
    a = judged(tree, ROOT, verdict("valid", eager=1.1))
    b = tree.add(ROOT, LARGE, "b")
    b.verdict = verdict("valid", eager=9.0)      # a verdict attached but not recorded: still pending
    assert tree.best().id == a.id


# --------------------------------------------------------------------------------------------------------------
# persistence


def test_to_dict_from_dict_round_trip(branches):
    tree, n = branches
    dup = tree.add(n["b1a"].id, SMALL, n["b2a"].source, "a repeat", {"builtin": {"knobs": {"0": {"BLOCK": 64}}}})
    tree.record(dup.id, n["b2a"].verdict, duplicate_of=n["b2a"].id)
    data = tree.to_dict()
    text = json.dumps(data)
    again = Tree.from_dict(json.loads(text))
    assert again.to_dict() == data
    assert json.dumps(again.to_dict()) == text
    assert again.config == tree.config
    assert again.select().id == tree.select().id
    assert [p.id for p in again.pool(again.nodes[n["b1a"].id])] == [p.id for p in tree.pool(n["b1a"])]
    assert [p.id for p in again.pending()] == [n["b5"].id]
    assert again.add(ROOT, LARGE, "next").id == max(tree.nodes) + 1


def test_round_trip_keeps_a_non_default_config():
    cfg = SearchConfig(c=0.7, p_large=0.5, pool_size=3, reward_wrong=0.2)
    tree = Tree(cfg)
    judged(tree, ROOT, verdict("invalid", "correctness"))
    again = Tree.from_dict(json.loads(json.dumps(tree.to_dict())))
    assert again.config == cfg
    assert again.nodes[1].reward == pytest.approx(0.2)


def test_from_dict_without_the_root_raises():
    tree = Tree()
    judged(tree, ROOT, verdict("valid"))
    data = tree.to_dict()
    data["nodes"] = [raw for raw in data["nodes"] if raw["id"] != ROOT]
    with pytest.raises(ValueError, match="root"):
        Tree.from_dict(data)


def test_search_config_from_dict_ignores_unknown_keys():
    cfg = SearchConfig.from_dict({"c": 0.9, "pool_size": 7, "from_the_future": True, "another": [1]})
    assert cfg == SearchConfig(c=0.9, pool_size=7)
    assert SearchConfig.from_dict({}) == SearchConfig()
    assert SearchConfig.from_dict(SearchConfig(p_large=0.6).to_dict()) == SearchConfig(p_large=0.6)


def test_best_puts_a_candidate_no_faster_in_a_loop_after_the_others():
    """Review (2026-12-02): a kernel 3x faster on the device but slower to launch than eager's whole call (no
    faster in a program's loop) won over a 1.5x one, and the editor then showed no faster kernel."""
    tree = Tree()
    host_bound = verdict("valid", eager=3.0)
    host_bound["timing"].update(candidate_host_ms=2.5, eager_ms=0.3, eager_host_ms=0.1)
    loop = judged(tree, ROOT, host_bound)
    honest = verdict("valid", eager=1.5)
    honest["timing"].update(candidate_host_ms=0.05, eager_ms=0.3, eager_host_ms=0.1)
    fast = judged(tree, ROOT, honest)
    assert tree.best().id == fast.id
    assert tree.best([loop]).id == loop.id              # alone, it is still the best there is
