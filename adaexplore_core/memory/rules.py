"""The memory of Triton validity rules: one-sentence "You cannot ..." rules learned from recurring compile
and runtime failures, kept across editor restarts.

Rules live in a JSON-only diskcache (``adaexplore_core.jsonstore``), one row per namespace — the environment
fingerprint (GPU architecture, Triton version), since what fails depends on both. Adding a rule that
repeats one already there (same normalized text, or similar enough; optionally confirmed by an LLM) raises
that rule's score instead; rules at or above the injection threshold go into prompts, ranked by relevance
to the task (the ops it uses, the failure kinds seen) rather than as one global list. Writes are
read-modify-write inside a SQLite transaction, so two editors can learn at once. A seed set of well-known
Triton rules, written by the project, is always there.
"""
from __future__ import annotations

import difflib
import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..jsonstore import open_json_cache

EXPORT_VERSION = 1
SIMILARITY = 0.85           # SequenceMatcher ratio of normalized texts above which two rules are one
INJECT_THRESHOLD = 2        # a learned rule must have recurred this often to reach a prompt
SEED_SCORE = INJECT_THRESHOLD


@dataclass
class Rule:
    text: str
    score: int = 1
    ops: list[str] = field(default_factory=list)        # torch/triton ops the rule is about
    kinds: list[str] = field(default_factory=list)      # failure kinds (compile, runtime, ...)
    source: str = "learned"                             # learned | seed | imported
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)

    @classmethod
    def from_dict(cls, data: Any) -> "Rule":
        """A rule from JSON; ValueError for anything that is not one."""
        if not isinstance(data, dict):
            raise ValueError(f"a rule must be an object, not {type(data).__name__}")
        known = {k: data[k] for k in ("text", "score", "ops", "kinds", "source", "created", "updated") if k in data}
        if not isinstance(known.get("text"), str) or not known["text"].strip():
            raise ValueError("a rule needs a non-empty text")
        if not isinstance(known.get("score", 1), int) or isinstance(known.get("score"), bool):
            raise ValueError(f"a rule's score must be a whole number: {known.get('score')!r}")
        for key in ("ops", "kinds"):
            if not isinstance(known.get(key, []), list) or not all(isinstance(x, str) for x in known.get(key, [])):
                raise ValueError(f"a rule's {key} must be a list of strings")
        for key in ("created", "updated"):
            if not isinstance(known.get(key, 0.0), (int, float)):
                raise ValueError(f"a rule's {key} must be a number")
        if not isinstance(known.get("source", ""), str):
            raise ValueError("a rule's source must be a string")
        return cls(**known)


SEED_RULES = [
    Rule("You cannot use Python lists, dicts or other Python objects inside a @triton.jit kernel; only scalars, "
         "pointers and tl tensors.", ops=["triton"], kinds=["compile"], source="seed", score=SEED_SCORE),
    Rule("You cannot give tl.arange a size that is not a power of two or not a tl.constexpr.",
         ops=["tl.arange"], kinds=["compile"], source="seed", score=SEED_SCORE),
    Rule("You cannot index a tl tensor with [i] or slice it; use masks, tl.where and pointer arithmetic instead.",
         ops=["triton"], kinds=["compile"], source="seed", score=SEED_SCORE),
    Rule("You cannot call tl.dot on blocks smaller than 16 in any dimension or on 1-D tensors.",
         ops=["tl.dot", "matmul", "linear", "bmm", "mm"], kinds=["compile"], source="seed", score=SEED_SCORE),
    Rule("You cannot load or store past the end of a tensor without a mask; out-of-bounds accesses corrupt "
         "memory or crash.", ops=["tl.load", "tl.store"], kinds=["runtime"], source="seed", score=SEED_SCORE),
    Rule("You cannot pass a non-contiguous tensor to a kernel that assumes contiguous strides; call "
         ".contiguous() or pass the strides.", ops=["transpose", "permute", "view"], kinds=["correctness"],
         source="seed", score=SEED_SCORE),
    Rule("You cannot use a Python if or for on a tensor value inside a kernel; branch with tl.where and loop "
         "with range over scalars or constexprs.", ops=["triton"], kinds=["compile"], source="seed",
         score=SEED_SCORE),
    Rule("You cannot use math module functions or torch functions inside a kernel; use tl.exp, tl.log, "
         "tl.sqrt, tl.math.erf and similar.", ops=["gelu", "exp", "log", "erf", "tanh"], kinds=["compile"],
         source="seed", score=SEED_SCORE),
    Rule("You cannot accumulate fp16 or bf16 sums in their own precision; accumulate in tl.float32 and cast "
         "when storing.", ops=["sum", "mean", "softmax", "layer_norm", "matmul"], kinds=["correctness"],
         source="seed", score=SEED_SCORE),
    Rule("You cannot reduce with tl.sum or tl.max over an axis a masked load padded with 0 without choosing "
         "the padding value for that reduction (-inf for max, 0 for sum).", ops=["amax", "max", "softmax",
                                                                                   "logsumexp"],
         kinds=["correctness"], source="seed", score=SEED_SCORE),
    Rule("You cannot launch a kernel with a grid of 0 or with more than 65535 programs along axis 1 or 2.",
         ops=["triton"], kinds=["runtime"], source="seed", score=SEED_SCORE),
    Rule("You cannot call tl.dot with input_precision='tf32' (or the default on fp32) and still match fp32 "
         "results; use input_precision='ieee'.", ops=["tl.dot", "matmul", "linear", "bmm"],
         kinds=["correctness"], source="seed", score=SEED_SCORE),
]


def normalize(text: str) -> str:
    """Lower case, code spans and punctuation dropped, spaces collapsed: the text two rules are compared by."""
    text = text.lower().replace("`", "")
    text = re.sub(r"[^a-z0-9_.\s]", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def similar(a: str, b: str) -> bool:
    na, nb = normalize(a), normalize(b)
    return na == nb or difflib.SequenceMatcher(None, na, nb).ratio() >= SIMILARITY


def ops_of(source: str) -> set[str]:
    """The torch / functional / nn / tl names a reference or kernel uses (for relevance ranking)."""
    names = set(re.findall(r"\b(?:torch\.nn\.functional|torch\.nn|nn\.functional|torch|F|nn|tl)\.([A-Za-z_]\w*)",
                           source))
    lowered = {n.lower() for n in names}
    if re.search(r"@triton\.jit", source):
        lowered.add("triton")
    lowered |= {f"tl.{n}" for n in re.findall(r"\btl\.([A-Za-z_]+)", source)}
    return lowered | {re.sub(r"\d+d$", "", n) for n in lowered}      # conv2d -> conv, batchnorm1d -> batchnorm


class RuleMemory:
    """Rules per namespace in ``directory``. ``duplicate_check(a, b) -> bool`` (e.g. an LLM) is asked about
    pairs that are textually close but below the similarity threshold."""

    def __init__(self, directory: Path, namespace: str,
                 duplicate_check: Callable[[str, str], bool] | None = None) -> None:
        self.directory = Path(directory)
        self.namespace = namespace
        self.duplicate_check = duplicate_check
        self._cache = open_json_cache(self.directory / "rules")

    def close(self) -> None:
        self._cache.close()

    # reading
    def _key(self, namespace: str | None = None) -> str:
        return f"rules:{namespace or self.namespace}"

    def _load(self, namespace: str | None = None) -> list[Rule]:
        raw = self._cache.get(self._key(namespace))
        rules = []
        for item in raw if isinstance(raw, list) else []:
            try:
                rules.append(Rule.from_dict(item))
            except (TypeError, ValueError):
                continue                       # a damaged entry: skipped, the rest stays usable
        return rules

    def rules(self, include_seeds: bool = True) -> list[Rule]:
        """Every rule of this namespace (seeds first unless a learned one duplicates them), by score."""
        learned = self._load()
        seeds = [s for s in SEED_RULES if include_seeds and not any(similar(s.text, r.text) for r in learned)]
        return sorted(seeds + learned, key=lambda r: (-r.score, r.created))

    def relevant(self, task_ops: set[str], kinds: set[str] | None = None, limit: int = 10,
                 threshold: int = INJECT_THRESHOLD) -> list[Rule]:
        """Rules for a prompt: score >= threshold, ranked by how many of the task's ops and the recent
        failure kinds they concern, then by score."""
        kinds = kinds or set()

        def relevance(rule: Rule) -> tuple[int, int]:
            overlap = len({o.lower() for o in rule.ops} & task_ops) * 2 + len(set(rule.kinds) & kinds)
            return overlap, rule.score

        chosen = [r for r in self.rules() if r.score >= threshold]
        return sorted(chosen, key=relevance, reverse=True)[:limit]

    # writing
    def add(self, text: str, ops: set[str] | list[str] = (), kinds: set[str] | list[str] = (),
            source: str = "learned", score: int = 1) -> tuple[Rule, bool]:
        """Record a rule; (the rule as stored, whether it is new). A repeat raises the existing rule's score
        and merges its ops and kinds."""
        text = " ".join(text.split())
        if not text:
            raise ValueError("empty rule")
        same_as = None                     # asked outside the write lock: the model may take seconds
        if self.duplicate_check is not None:
            current = self._load()
            if not any(similar(r.text, text) for r in current):
                close = [r for r in current if difflib.SequenceMatcher(None, normalize(r.text),
                                                                       normalize(text)).ratio() >= 0.5]
                same_as = next((r.text for r in close if self.duplicate_check(r.text, text)), None)
        with self._cache.transact():
            rules = self._load()
            match = next((r for r in rules if similar(r.text, text)), None)
            if match is None and same_as is not None:
                match = next((r for r in rules if r.text == same_as), None)
            if match is not None:
                match.score += score
                match.ops = sorted(set(match.ops) | set(ops))
                match.kinds = sorted(set(match.kinds) | set(kinds))
                match.updated = time.time()
                rule, new = match, False
            else:
                seed = next((s for s in SEED_RULES if similar(s.text, text)), None)
                rule = Rule(text=text, score=score + (seed.score if seed else 0), ops=sorted(set(ops)),
                            kinds=sorted(set(kinds)), source=source)
                rules.append(rule)
                new = True
            self._cache.set(self._key(), [asdict(r) for r in rules])
        return rule, new

    def clear(self) -> int:
        """Forget this namespace's learned rules (seeds stay); how many were removed."""
        with self._cache.transact():
            count = len(self._load())
            self._cache.delete(self._key())
        return count

    # teams
    def export(self) -> dict[str, Any]:
        return {"version": EXPORT_VERSION, "namespace": self.namespace,
                "rules": [asdict(r) for r in self._load()]}

    def import_rules(self, data: Any) -> tuple[int, int]:
        """Merge an export (scores add up); (new rules, merged repeats). Bad input raises ValueError."""
        if not isinstance(data, dict) or data.get("version") != EXPORT_VERSION or not isinstance(
                data.get("rules"), list):
            raise ValueError(f"not an AdaExplore rules export (expected version {EXPORT_VERSION} with a rules list)")
        added = merged = 0
        for item in data["rules"]:
            rule = Rule.from_dict(item)
            _, new = self.add(rule.text, rule.ops, rule.kinds, source="imported", score=max(1, int(rule.score)))
            added += new
            merged += not new
        return added, merged


def load_export(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read {path}: {e}") from e
