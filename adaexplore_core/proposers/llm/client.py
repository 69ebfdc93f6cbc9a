"""Chat completions from any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, SGLang) through the
``openai`` client: timeouts, retries with exponential backoff on 429 / 5xx / connection errors, a limit on
concurrent requests, and token counts. Errors that retrying cannot fix (a wrong key, an unknown model, a
dead endpoint after the retries) raise ``LLMError`` with one clear sentence.

The API key comes from the caller or ``OPENAI_API_KEY``; it lives only in this process (judge workers get a
scrubbed environment).
"""
from __future__ import annotations

import os
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..base import ProposerUnavailable

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_RETRIES = 4
DEFAULT_CONCURRENCY = 4
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 30.0


class LLMError(ProposerUnavailable):
    """The endpoint cannot answer; the message says why and what to check."""


@dataclass
class LLMConfig:
    model: str
    base_url: str | None = None        # None: OPENAI_BASE_URL, else the OpenAI API
    api_key: str | None = None         # None: OPENAI_API_KEY (local servers accept any placeholder)
    timeout_s: float = DEFAULT_TIMEOUT_S
    retries: int = DEFAULT_RETRIES
    concurrency: int = DEFAULT_CONCURRENCY
    temperature: float | None = None
    max_tokens: int | None = None
    price_per_million: tuple[float, float] | None = None   # (prompt, completion) USD, when known
    backoff_base_s: float = BACKOFF_BASE_S

    def resolved_base_url(self) -> str | None:
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or None

    def resolved_key(self) -> str:
        key = self.api_key or os.environ.get("OPENAI_API_KEY")
        if key:
            return key
        if self.resolved_base_url():
            return "not-needed"                # local servers (vLLM, Ollama, SGLang) ignore the key
        raise LLMError("no API key: set OPENAI_API_KEY (or point --base-url at a local OpenAI-compatible server)")


@dataclass
class Usage:
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    seconds: float = 0.0
    cost_usd: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "retries": self.retries,
                "seconds": round(self.seconds, 3), "cost_usd": self.cost_usd}


class LLMClient:
    def __init__(self, config: LLMConfig) -> None:
        if not config.model:
            raise LLMError("no model: pass --model (the name the endpoint serves, e.g. gpt-5-mini or "
                           "Qwen/Qwen2.5-Coder-32B-Instruct)")
        try:
            import openai
        except ImportError as e:
            raise LLMError("the LLM proposer needs the openai package: pip install 'adaexplore[llm]'") from e
        self.config = config
        self._openai = openai
        self._client = openai.OpenAI(base_url=config.resolved_base_url(), api_key=config.resolved_key(),
                                     timeout=config.timeout_s, max_retries=0)
        self._slots = threading.BoundedSemaphore(max(1, config.concurrency))
        self.usage = Usage()

    def chat(self, messages: list[dict[str, str]], *, rng: random.Random | None = None) -> str:
        """The assistant's reply text; retried with backoff on rate limits, server errors and timeouts."""
        o = self._openai
        retryable = (o.RateLimitError, o.InternalServerError, o.APIConnectionError, o.APITimeoutError)
        rng = rng or random.Random()
        attempt = 0
        while True:
            started = time.monotonic()
            try:
                with self._slots:
                    kwargs: dict[str, Any] = {"model": self.config.model, "messages": messages}
                    if self.config.temperature is not None:
                        kwargs["temperature"] = self.config.temperature
                    if self.config.max_tokens is not None:
                        kwargs["max_tokens"] = self.config.max_tokens
                    response = self._client.chat.completions.create(**kwargs)
                self._count(response, time.monotonic() - started)
                return _text_of(response)
            except retryable as e:
                if attempt >= self.config.retries:
                    raise LLMError(f"the endpoint {self._where()} failed {attempt + 1} times "
                                   f"(last: {_describe(e)})") from e
                with self.usage.lock:
                    self.usage.retries += 1
                time.sleep(_backoff(attempt, e, rng, self.config.backoff_base_s))
                attempt += 1
            except o.AuthenticationError as e:
                raise LLMError(f"the endpoint {self._where()} refused the API key ({_describe(e)}); check "
                               "OPENAI_API_KEY") from e
            except o.NotFoundError as e:
                raise LLMError(f"the endpoint {self._where()} does not serve model {self.config.model!r} or has no "
                               f"chat completions route ({_describe(e)})") from e
            except o.APIStatusError as e:
                raise LLMError(f"the endpoint {self._where()} answered HTTP {e.status_code} ({_describe(e)})") from e
            except (o.APIError, ValueError, TypeError, AttributeError) as e:
                raise LLMError(f"the endpoint {self._where()} sent a reply that is not a chat completion "
                               f"({type(e).__name__}: {str(e)[:200]})") from e

    def _count(self, response: Any, seconds: float) -> None:
        usage = getattr(response, "usage", None)
        prompt = getattr(usage, "prompt_tokens", 0) or 0
        completion = getattr(usage, "completion_tokens", 0) or 0
        with self.usage.lock:
            self.usage.requests += 1
            self.usage.prompt_tokens += prompt
            self.usage.completion_tokens += completion
            self.usage.seconds += seconds
            price = self.config.price_per_million
            if price is not None:
                self.usage.cost_usd = (self.usage.prompt_tokens * price[0]
                                       + self.usage.completion_tokens * price[1]) / 1e6

    def _where(self) -> str:
        return self.config.resolved_base_url() or "OpenAI"


def _text_of(response: Any) -> str:
    choices = getattr(response, "choices", None)
    if not choices:
        raise ValueError("no choices in the reply")
    content = choices[0].message.content
    return content if isinstance(content, str) else ""     # a refusal or an empty reply: the proposal fails


def _backoff(attempt: int, error: Exception, rng: random.Random, base_s: float = BACKOFF_BASE_S) -> float:
    """Exponential backoff with jitter; a Retry-After header (seconds) is honoured up to BACKOFF_MAX_S."""
    response = getattr(error, "response", None)
    header = response.headers.get("retry-after") if response is not None and response.headers else None
    if header:
        try:
            return min(max(float(header), 0.0), BACKOFF_MAX_S)
        except ValueError:
            pass
    return min(base_s * (2 ** attempt), BACKOFF_MAX_S) * (0.5 + rng.random() / 2)


def _describe(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:200] if text else ''}"
