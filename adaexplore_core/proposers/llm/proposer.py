"""The LLM proposer: large steps ask the proposer role for a new ModelNew; small steps ask the reviser for
1-3 improvements and the tuner for OLD/NEW edits of the parent. Extraction problems become ProposalErrors
whose message is feedback (the search records them and goes on); an endpoint that cannot answer raises
LLMError, which ends the search with one clear message.

``SeededProposer`` lets the built-in proposer write the first branches, so the pool the model sees starts
with validated kernels.
"""
from __future__ import annotations

import random
import re
from ..base import LARGE, Proposal, ProposalError, ProposalRequest, Proposer
from .client import LLMClient
from .extract import ExtractionError, apply_edits, as_model_new, first_code_block
from .prompts import proposer_messages, reviser_messages, tuner_messages

RECENT_FOR_REVISER = 4


class LLMProposer:
    name = "llm"

    def __init__(self, client: LLMClient, hardware: str = "an NVIDIA GPU") -> None:
        self.client = client
        self.hardware = hardware

    def propose(self, request: ProposalRequest) -> Proposal:
        reference = request.task.read_source()
        rng = random.Random(request.seed)
        if request.step == LARGE or request.parent is None:
            reply = self.client.chat(proposer_messages(reference, self.hardware, request.rules, request.pool), rng=rng)
            try:
                source = as_model_new(first_code_block(reply), request.task.class_name)
            except ExtractionError as e:
                raise ProposalError(f"the model's reply was unusable: {e}") from e
            return Proposal(source=source, description=_idea(reply, "LLM: new kernel"),
                            meta={"llm": {"role": "proposer", **self.client.usage.to_dict()}})
        parent = request.parent
        improvements = self.client.chat(
            reviser_messages(reference, self.hardware, request.rules, parent, request.pool[:RECENT_FOR_REVISER]),
            rng=rng)
        reply = self.client.chat(tuner_messages(parent, improvements, request.rules), rng=rng)
        try:
            edited = apply_edits(parent.source, reply)
        except ExtractionError as e:
            raise ProposalError(f"the model's edits were unusable: {e}") from e
        if not edited.applied:
            raise ProposalError(f"none of the model's edits matched the kernel ({edited.feedback()})")
        first = next((line[2:].strip() for line in improvements.splitlines() if line.strip().startswith("- ")), "")
        description = f"LLM edit: {first[:120] or 'refinement'}"
        if edited.unmatched:
            description += f" ({len(edited.unmatched)} edit(s) did not match)"
        return Proposal(source=edited.source, description=description,
                        meta={"llm": {"role": "tuner", "applied": edited.applied, "unmatched": edited.unmatched,
                                      **self.client.usage.to_dict()}})


def _idea(reply: str, default: str) -> str:
    match = re.search(r"^\s*Idea:\s*(.+)$", reply, re.MULTILINE)
    return f"LLM: {match.group(1).strip()[:160]}" if match else default


class SeededProposer:
    """The built-in proposer for the first ``seeds`` branches from the root (when it supports the module),
    the LLM for everything else. Which branch a request opens comes with the request, so a resumed search
    decides exactly as the uninterrupted one."""

    name = "llm"

    def __init__(self, builtin: Proposer, llm: LLMProposer, seeds: int = 2) -> None:
        self.builtin, self.llm, self.seeds = builtin, llm, seeds

    @property
    def client(self) -> LLMClient:
        return self.llm.client

    def propose(self, request: ProposalRequest) -> Proposal:
        if request.parent is None and request.branch < self.seeds:
            try:
                return self.builtin.propose(request)
            except ProposalError:
                pass                                # unsupported module: the LLM writes this one
        return self.llm.propose(request)


