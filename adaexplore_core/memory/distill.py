"""Learning rules from failures, as in the paper: compile and runtime failures (numerical mismatches are
excluded: they say nothing general about Triton) get a normalized signature; each new signature is
distilled by the LLM into one sentence "You cannot ..." (or nothing), which goes into the rule memory.
Repeats of a rule raise its score; the memory injects rules that recurred."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ..judge.verdict import OWN_EXCEPTION
from .rules import RuleMemory, ops_of

LEARNABLE_STAGES = {"compile", "runtime", "load", "guard"}
MAX_RULE_CHARS = 300


def signature(verdict: dict[str, Any]) -> str | None:
    """A failure's kind and message with the specifics removed (numbers, paths, names in quotes — except for
    the guard, whose refused name is the lesson), or None for failures that teach no Triton rule (valid, wrong
    numbers, timeouts, the judge's own errors, an exception the candidate raised itself: its message is the
    candidate's text)."""
    if not verdict or verdict.get("verdict") == "valid" or verdict.get("stage") not in LEARNABLE_STAGES:
        return None
    if any(c.get("name") == OWN_EXCEPTION for c in verdict.get("checks", []) if isinstance(c, dict)):
        return None              # the message is the candidate's own text: a rule from it would be its words
    reason = re.sub(r"\s*\(and \d+ more\)", "", verdict.get("reason", ""))   # the guard's count of repeats
    text = re.sub(r"(/[^\s:'\"]+)+", "<path>", reason)
    if verdict.get("stage") != "guard":
        text = re.sub(r"'[^']*'|\"[^\"]*\"", "<name>", text)
    text = re.sub(r"\b0x[0-9a-f]+\b|\b\d+(\.\d+)?\b", "<n>", text)
    return f"{verdict.get('stage')}: {' '.join(text.split())[:300]}"


DISTILL_PROMPT = (
    "A Triton kernel written for a PyTorch module failed. From the error below, state the general Triton "
    "rule it broke as ONE sentence that starts with 'You cannot', useful for writing other kernels (no names "
    "from this kernel). If the error teaches no general Triton rule, answer exactly NONE.\n\n"
    "Stage: {stage}\nError: {reason}\n\nKernel (excerpt):\n```python\n{source}\n```"
)


def parse_rule(reply: str) -> str | None:
    """The first line starting with 'You cannot', cleaned; None for NONE or anything else."""
    for line in (reply or "").splitlines():
        line = line.strip().strip("-*` ").strip()
        if line.lower().startswith("you cannot"):
            line = line[:MAX_RULE_CHARS].rstrip()
            return line if line.endswith(".") else line + "."
    return None


@dataclass
class Learned:
    rule: str
    score: int
    new: bool


class RuleLearner:
    """Turns failing verdicts into rules: each failure signature is distilled once per learner (a repeat of a
    signature counts as a recurrence of its rule without asking the model again)."""

    def __init__(self, memory: RuleMemory, chat: Callable[[list[dict[str, str]]], str]) -> None:
        self.memory = memory
        self.chat = chat
        self._by_signature: dict[str, str | None] = {}

    def learn(self, verdict: dict[str, Any], source: str) -> Learned | None:
        sig = signature(verdict)
        if sig is None:
            return None
        if sig in self._by_signature:
            rule = self._by_signature[sig]
        else:
            prompt = DISTILL_PROMPT.format(stage=verdict.get("stage"), reason=verdict.get("reason", "")[:2000],
                                           source=source[:4000])
            rule = parse_rule(self.chat([{"role": "user", "content": prompt}]))
            self._by_signature[sig] = rule
        if rule is None:
            return None
        stored, new = self.memory.add(rule, ops=sorted(ops_of(source)), kinds=[verdict.get("stage", "")])
        return Learned(rule=stored.text, score=stored.score, new=new)


SAME_RULE_PROMPT = (
    "Do these two Triton rules state the same constraint? Answer YES or NO.\n1. {a}\n2. {b}"
)


def llm_same_rule(chat: Callable[[list[dict[str, str]]], str]) -> Callable[[str, str], bool]:
    """A duplicate check for RuleMemory that asks the model (for pairs that are close but not textually
    the same); any failure counts as "not the same"."""
    def same(a: str, b: str) -> bool:
        try:
            answer = chat([{"role": "user", "content": SAME_RULE_PROMPT.format(a=a, b=b)}])
        except Exception:  # noqa: BLE001 - a failed check must not lose the rule
            return False
        return answer.strip().upper().startswith("YES")
    return same
