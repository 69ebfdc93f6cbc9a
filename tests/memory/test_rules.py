"""The rule memory: deduplication and scores, relevance ranking and the injection threshold, seeds,
export/import, persistence across restarts and concurrent writers (two editors), JSON-only storage; and
the failure signatures and rule parsing that learning relies on."""
from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from adaexplore_core.memory.distill import RuleLearner, parse_rule, signature
from adaexplore_core.memory.rules import INJECT_THRESHOLD, SEED_RULES, RuleMemory, normalize, ops_of, similar

NS = "sm90 NVIDIA H200|triton-3.6.0"


@pytest.fixture
def memory(tmp_path):
    m = RuleMemory(tmp_path, NS)
    yield m
    m.close()


def test_seeds_are_there_and_injectable(memory):
    texts = [r.text for r in memory.rules()]
    assert len(texts) == len(SEED_RULES) and all(t.startswith("You cannot") for t in texts)
    assert all(r.score >= INJECT_THRESHOLD for r in memory.relevant(set()))


def test_repeats_raise_the_score_instead_of_adding(memory):
    rule, new = memory.add("You cannot use tl.cat on non-power-of-two blocks.", ops=["tl.cat"], kinds=["compile"])
    assert new and rule.score == 1
    again, new = memory.add("you cannot use `tl.cat` on non power of two blocks", kinds=["runtime"])
    assert not new and again.score == 2 and again.kinds == ["compile", "runtime"]
    close, new = memory.add("You cannot use tl.cat on non-power-of-2 blocks.")
    assert not new and close.score == 3
    other, new = memory.add("You cannot return a value from a @triton.jit kernel.")
    assert new
    learned = [r for r in memory.rules() if r.source == "learned"]
    assert len(learned) == 2


def test_a_learned_repeat_of_a_seed_starts_at_the_seed_score(memory):
    rule, new = memory.add(SEED_RULES[1].text)
    assert new and rule.score == SEED_RULES[1].score + 1
    assert sum(1 for r in memory.rules() if similar(r.text, SEED_RULES[1].text)) == 1


def test_injection_threshold_and_relevance(memory):
    memory.add("You cannot call tl.dot with fp64 inputs.", ops=["tl.dot", "matmul"], kinds=["compile"])
    assert all("fp64" not in r.text for r in memory.relevant({"matmul"}))       # seen once: not yet
    memory.add("You cannot call tl.dot with fp64 inputs.", ops=["tl.dot"])
    ranked = memory.relevant({"matmul", "tl.dot", "linear"}, limit=4)
    assert any("fp64" in r.text for r in ranked)                                  # now it is injected
    assert all({"tl.dot", "matmul"} & set(r.ops) for r in ranked)                 # the dot rules lead
    assert all("fp64" not in r.text for r in memory.relevant({"softmax"}, limit=3))
    softmax_first = memory.relevant({"softmax", "amax"}, limit=1)[0]
    assert "softmax" in softmax_first.ops or "amax" in softmax_first.ops
    assert len(memory.relevant(set(), limit=4)) == 4


def test_llm_duplicate_check_is_asked_for_close_pairs(tmp_path):
    asked = []

    def same(a, b):
        asked.append((a, b))
        return True

    m = RuleMemory(tmp_path, NS, duplicate_check=same)
    m.add("You cannot store a float64 value into a float32 pointer without a cast.")
    rule, new = m.add("You cannot write float64 data through a float32 pointer unless you cast first.")
    assert not new and rule.score == 2 and asked
    m.close()


def test_export_import_between_machines(tmp_path):
    a = RuleMemory(tmp_path / "a", NS)
    a.add("You cannot use tl.atomic_add on bf16 pointers.", ops=["tl.atomic_add"], score=3)
    exported = a.export()
    assert exported["version"] == 1 and exported["namespace"] == NS and len(exported["rules"]) == 1
    b = RuleMemory(tmp_path / "b", NS)
    assert b.import_rules(json.loads(json.dumps(exported))) == (1, 0)
    assert b.import_rules(exported) == (0, 1)
    rule = next(r for r in b.rules() if "atomic_add" in r.text)
    assert rule.score == 6 and rule.source == "imported"
    with pytest.raises(ValueError, match="not an AdaExplore rules export"):
        b.import_rules({"rules": "nope"})
    with pytest.raises(ValueError, match="non-empty text"):
        b.import_rules({"version": 1, "rules": [{"text": " "}]})
    a.close(), b.close()


def test_namespaces_are_separate_and_clear_keeps_seeds(tmp_path):
    h200, cpu = RuleMemory(tmp_path, NS), RuleMemory(tmp_path, "cpu-interpreter|triton-3.9.0")
    h200.add("You cannot use more than 228 KB of shared memory per block.")
    assert not [r for r in cpu.rules() if r.source == "learned"]
    assert h200.clear() == 1 and len(h200.rules()) == len(SEED_RULES)
    h200.close(), cpu.close()


def test_the_memory_survives_a_restart(tmp_path):
    m = RuleMemory(tmp_path, NS)
    m.add("You cannot use tl.reshape to change the number of elements.")
    m.close()
    again = RuleMemory(tmp_path, NS)
    assert any("tl.reshape" in r.text for r in again.rules())
    again.close()


def _writer(directory: str, worker: int) -> None:
    m = RuleMemory(Path(directory), NS)
    for i in range(15):
        m.add(f"You cannot do thing number {worker * 100 + i} in a kernel body, ever, for reason {i}.")
        m.add("You cannot use a shared rule that every writer adds.")
    m.close()


def test_two_editors_writing_at_once(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_writer, args=(str(tmp_path), w)) for w in (1, 2)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(120)
        assert p.exitcode == 0
    m = RuleMemory(tmp_path, NS)
    learned = [r for r in m.rules() if r.source == "learned"]
    shared = [r for r in learned if "shared rule" in r.text]
    assert len(shared) == 1 and shared[0].score == 30                  # no lost update
    assert len(learned) >= 2                                           # the numbered ones dedupe by similarity
    m.close()


def test_storage_is_json_and_private(tmp_path, memory):
    memory.add("You cannot nest @triton.jit functions that capture Python closures.")
    assert (tmp_path / "rules").stat().st_mode & 0o777 == 0o700
    raw = memory._cache.get(f"rules:{NS}")
    assert isinstance(raw, list) and json.dumps(raw)


# ------------------------------------------------------------------------------------------- learning helpers

def test_signatures_keep_the_kind_and_drop_specifics():
    a = signature({"verdict": "invalid", "stage": "compile",
                   "reason": "CompilationError at /tmp/x/cand.py:12: 'acc' has 3 dims, expected 2"})
    b = signature({"verdict": "invalid", "stage": "compile",
                   "reason": "CompilationError at /home/u/k.py:40: 'out' has 4 dims, expected 3"})
    assert a == b and a.startswith("compile:")
    assert signature({"verdict": "invalid", "stage": "correctness", "reason": "max abs error 0.5"}) is None
    assert signature({"verdict": "valid", "stage": "ok", "reason": ""}) is None
    assert signature({"verdict": "error", "stage": "internal", "reason": "judge broke"}) is None


def test_parse_rule():
    assert parse_rule("Sure!\n- You cannot call tl.stor; use tl.store") == "You cannot call tl.stor; use tl.store."
    assert parse_rule("NONE") is None and parse_rule("") is None and parse_rule("Avoid loops.") is None


def test_learner_distills_each_signature_once_and_counts_recurrences(memory):
    calls = []

    def chat(messages):
        calls.append(messages)
        return "You cannot call a function that tl does not define, such as tl.stor."

    learner = RuleLearner(memory, chat)
    verdict = {"verdict": "invalid", "stage": "compile", "reason": "AttributeError: module has no attribute 'stor'"}
    first = learner.learn(verdict, "@triton.jit\ndef k(x):\n    tl.stor(x)\n")
    second = learner.learn(verdict, "@triton.jit\ndef k(y):\n    tl.stor(y)\n")
    assert first.new and first.score == 1 and not second.new and second.score == 2
    assert len(calls) == 1
    assert learner.learn({"verdict": "invalid", "stage": "correctness", "reason": "wrong"}, "") is None


def test_ops_of():
    ops = ops_of("import torch\nx = torch.nn.functional.gelu(F.linear(a, w))\ny = nn.Conv2d(3, 4, 3)\n"
                 "@triton.jit\ndef k(p):\n    tl.dot(a, b)\n")
    assert {"gelu", "linear", "conv2d", "conv", "triton", "tl.dot"} <= ops
    assert normalize("You `cannot` DO this!") == "you cannot do this"


@pytest.mark.parametrize("item, message", [
    ("just text", "must be an object"), ({"text": "You cannot x.", "score": None}, "whole number"),
    ({"text": "You cannot x.", "ops": "tl.dot"}, "list of strings"), ({"score": 2}, "non-empty text"),
])
def test_malformed_imports_are_value_errors(memory, item, message):
    with pytest.raises(ValueError, match=message):
        memory.import_rules({"version": 1, "rules": [item]})


def test_the_llm_duplicate_check_runs_outside_the_write_lock(tmp_path):
    """While the model is asked, another writer (another editor) can still add rules."""
    other = RuleMemory(tmp_path, NS)
    seen = []

    def slow_same(a, b):
        other.add("You cannot use recursion inside a @triton.jit function.")     # would deadlock inside the lock
        seen.append((a, b))
        return False

    m = RuleMemory(tmp_path, NS, duplicate_check=slow_same)
    m.add("You cannot store a float64 value into a float32 pointer without a cast.")
    m.add("You cannot write float64 data through a float32 pointer unless you cast first.")
    assert seen and any("recursion" in r.text for r in m.rules())
    m.close(), other.close()


def test_guard_signatures_keep_the_refused_name():
    """For the guard the refused name is the lesson: two refusals of one name share a signature, two names do
    not."""
    def guard(line: int, name: str) -> dict:
        return {"verdict": "invalid", "stage": "guard",
                "reason": f"Rejected before running: line {line}: calling '{name}' is not allowed"}
    assert signature(guard(3, "triton.language.stor")) == signature(guard(40, "triton.language.stor"))
    assert signature(guard(3, "triton.language.stor")) != signature(guard(3, "torch.compile"))
    repeated = guard(3, "triton.language.stor")
    repeated["reason"] += " (and 2 more)"           # the same refusal in more places: the same lesson
    assert signature(repeated) == signature(guard(3, "triton.language.stor"))
