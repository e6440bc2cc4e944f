"""The ``llm`` judge: the CineCap judge protocol over any OpenAI-compatible endpoint.

One chat call per (GT, prediction) pair, temperature 0, with the project's versioned prompt
(:mod:`cinecap.judge.llm_prompt`); the answer is validated against the judge schema and sanitised
(:meth:`Judgement.from_dict`). Around that call:

- a persistent cache (:mod:`cinecap.judge.cache`) so no pair is paid for twice;
- ``judge_many`` keeps ``concurrency`` requests in flight;
- retries with exponential backoff on 408/409/429/5xx, timeouts and dropped connections;
- any call that still fails gives ``Judgement(failed=True, error=...)``, never zero counts that
  look real; failures are not cached.

Configuration: constructor arguments, else the environment (``CINECAP_JUDGE_BASE_URL``,
``CINECAP_JUDGE_MODEL``, ``OPENAI_API_KEY``, and optionally ``CINECAP_JUDGE_RESPONSE_FORMAT``,
``CINECAP_JUDGE_CONCURRENCY``), so ``get_judge("llm")`` works from the environment alone.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from cinecap import taxonomy as tx
from cinecap.errors import InputError, UnavailableError
from cinecap.judge import llm_prompt
from cinecap.judge.base import Judge, Judgement
from cinecap.judge.cache import JudgeCache, cache_key

log = logging.getLogger(__name__)

RESPONSE_FORMATS = ("json_schema", "structured_outputs", "text")
#: HTTP statuses worth another try (the same set the openai client retries by itself).
RETRY_STATUSES = frozenset({408, 409, 429})
#: Longest single wait between tries, whatever backoff or Retry-After say.
MAX_WAIT_S = 60.0


@dataclass
class LLMJudgeConfig:
    """Where and how the LLM judge calls its model. Validates itself; never holds the cache."""

    base_url: str
    model: str
    api_key: str | None = None  # local servers (vLLM, Ollama, llama.cpp) accept any key
    concurrency: int = 8  # requests in flight in judge_many
    timeout: float = 180.0  # seconds per request
    max_retries: int = 4  # tries after the first
    backoff: float = 1.2  # first wait in seconds; doubles each retry
    response_format: str = "json_schema"  # | "structured_outputs" (vLLM) | "text" (<answer> JSON)
    max_tokens: int | None = None  # None: the server's default
    temperature: float = 0.0

    def __post_init__(self) -> None:
        if not self.base_url or not self.model:
            missing = [n for n, v in (("base URL (CINECAP_JUDGE_BASE_URL)", self.base_url),
                                      ("model (CINECAP_JUDGE_MODEL)", self.model)) if not v]
            raise UnavailableError(
                "the llm judge needs an OpenAI-compatible endpoint; missing "
                + " and ".join(missing) + ". Example: CINECAP_JUDGE_BASE_URL="
                "http://localhost:8000/v1 CINECAP_JUDGE_MODEL=Qwen/Qwen3-8B (vLLM), or "
                "https://api.openai.com/v1 with OPENAI_API_KEY. Or use --judge rules.")
        if not str(self.base_url).startswith(("http://", "https://")):
            raise InputError(f"judge base URL must start with http:// or https://, "
                             f"got {self.base_url!r}")
        for name, low in (("concurrency", 1), ("max_retries", 0)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise InputError(f"llm judge {name} must be an integer >= {low}, got {value!r}")
        for name in ("timeout", "backoff", "temperature"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0 \
                    or (name == "timeout" and value == 0):
                raise InputError(f"llm judge {name} must be a {'positive' if name == 'timeout' else 'non-negative'} "
                                 f"number, got {value!r}")
        if self.response_format not in RESPONSE_FORMATS:
            raise InputError(f"llm judge response_format must be one of "
                             f"{', '.join(RESPONSE_FORMATS)}; got {self.response_format!r}")
        if self.max_tokens is not None and (not isinstance(self.max_tokens, int)
                                            or self.max_tokens < 1):
            raise InputError(f"llm judge max_tokens must be a positive integer, "
                             f"got {self.max_tokens!r}")

    @classmethod
    def from_env(cls, **overrides: Any) -> "LLMJudgeConfig":
        """Explicit values win; None falls back to the environment, then to the defaults."""
        env = os.environ
        values: dict[str, Any] = {
            "base_url": env.get("CINECAP_JUDGE_BASE_URL", ""),
            "model": env.get("CINECAP_JUDGE_MODEL", ""),
            "api_key": env.get("OPENAI_API_KEY") or None,
        }
        if env.get("CINECAP_JUDGE_RESPONSE_FORMAT"):
            values["response_format"] = env["CINECAP_JUDGE_RESPONSE_FORMAT"]
        if env.get("CINECAP_JUDGE_CONCURRENCY"):
            try:
                values["concurrency"] = int(env["CINECAP_JUDGE_CONCURRENCY"])
            except ValueError:
                raise InputError("CINECAP_JUDGE_CONCURRENCY must be an integer, got "
                                 f"{env['CINECAP_JUDGE_CONCURRENCY']!r}") from None
        known = {f.name for f in fields(cls)}
        values.update({k: _coerce(k, v) for k, v in overrides.items()
                       if k in known and v is not None})
        return cls(**values)

    def describe(self) -> dict[str, Any]:
        """The resolved configuration for logs and result files (the key is never included)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "api_key"}


_INT_OPTIONS = ("concurrency", "max_retries", "max_tokens")
_FLOAT_OPTIONS = ("timeout", "backoff", "temperature")


def _coerce(name: str, value: Any) -> Any:
    """Numbers given as text (``--judge-option timeout=30``) become numbers; bad text is an error."""
    if not isinstance(value, str) or name not in _INT_OPTIONS + _FLOAT_OPTIONS:
        return value
    try:
        return int(value) if name in _INT_OPTIONS else float(value)
    except ValueError:
        kind = "an integer" if name in _INT_OPTIONS else "a number"
        raise InputError(f"llm judge {name} must be {kind}, got {value!r}") from None


def _cache_option(cache: Any) -> Any:
    if isinstance(cache, str) and cache.strip().lower() in ("", "0", "false", "off", "no", "none"):
        return False
    if isinstance(cache, str) and cache.strip().lower() in ("1", "true", "on", "yes", "default"):
        return True
    return cache


def _retry_after(error: Exception) -> float:
    response = getattr(error, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else 0.0
    except ValueError:
        return 0.0  # an HTTP date: fall back to our own backoff


class LLMJudge(Judge):
    """CineCap judge protocol over an OpenAI-compatible chat-completions endpoint."""

    name = "llm"
    version = llm_prompt.PROMPT_ID

    def __init__(self, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, concurrency: int | None = None,
                 timeout: float | None = None, max_retries: int | None = None,
                 backoff: float | None = None, cache: str | os.PathLike | bool | None = None,
                 response_format: str | None = None, max_tokens: int | None = None):
        self.config = LLMJudgeConfig.from_env(
            base_url=base_url, model=model, api_key=api_key, concurrency=concurrency,
            timeout=timeout, max_retries=max_retries, backoff=backoff,
            response_format=response_format, max_tokens=max_tokens)
        # cache: None/True → the default file, a path → that file, False → no cache.
        cache = _cache_option(cache)
        if cache is False:
            self.cache: JudgeCache | None = None
        else:
            self.cache = JudgeCache(None if cache in (None, True) else Path(cache))
        try:
            import openai
        except ImportError as e:  # pragma: no cover - openai is a pinned runtime dependency
            raise UnavailableError(f"the llm judge needs the openai package: {e}") from None
        self._openai = openai
        # Retries are ours (backoff, Retry-After, failure results), so the client makes none.
        self._client = openai.OpenAI(base_url=self.config.base_url,
                                     api_key=self.config.api_key or "not-needed",
                                     timeout=self.config.timeout, max_retries=0)
        self._sleep: Callable[[float], None] = time.sleep
        self._stats_lock = threading.Lock()
        self.stats = {"requests": 0, "cache_hits": 0, "failures": 0}
        log.info("llm judge: %s, prompt %s, cache %s", self.config.describe(), self.version,
                 self.cache.path if self.cache else "off")

    @property
    def model(self) -> str:
        return self.config.model

    # ------------------------------------------------------------------------------ one pair
    def judge(self, gt: str, pred: str, aspects: Sequence[str] = tx.ASPECTS) -> Judgement:
        aspects = self._check(gt, pred, aspects)
        key = cache_key(self.model, self.version, aspects, gt, pred)
        cached = self._cached(key)
        if cached is not None:
            return cached
        try:
            result = self._call(gt, pred, aspects)
        except Exception as e:  # noqa: BLE001 - a judge reports failures, it does not raise
            log.exception("llm judge: unexpected error")
            result = self._fail(aspects, f"unexpected error: {type(e).__name__}: {e}")
        if result.failed:
            self._count("failures")
            log.warning("llm judge failed: %s", result.error)
        elif self.cache is not None:
            self.cache.put(key, self.model, result)
        return result

    # ---------------------------------------------------------------------------------- batch
    def judge_many(self, pairs: Iterable[tuple[str, str]], aspects: Sequence[str] = tx.ASPECTS,
                   progress: Callable[[float, str], None] | None = None) -> list[Judgement]:
        """Judge a batch with ``concurrency`` requests in flight; results in input order.

        Identical pairs are judged once; cached pairs send nothing.
        """
        pairs = [tuple(p) for p in pairs]
        for p in pairs:
            if len(p) != 2:
                raise InputError(f"each pair must be (gt, pred); got {len(p)} item(s)")
        aspects = self._check("", "", aspects)
        for gt, pred in pairs:
            self._check(gt, pred, aspects)
        unique = list(dict.fromkeys(pairs))
        results: dict[tuple[str, str], Judgement] = {}
        done = 0
        lock = threading.Lock()

        def one(pair: tuple[str, str]) -> None:
            nonlocal done
            judgement = self.judge(pair[0], pair[1], aspects)
            with lock:
                results[pair] = judgement
                done += 1
                if progress:
                    progress(done / len(unique), f"judged {done}/{len(unique)} pairs")

        workers = min(self.config.concurrency, len(unique))
        if workers <= 1:
            for pair in unique:
                one(pair)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm-judge") as pool:
                for future in [pool.submit(one, pair) for pair in unique]:
                    future.result()
        return [results[p] for p in pairs]

    # -------------------------------------------------------------------------------- helpers
    def _check(self, gt: Any, pred: Any, aspects: Sequence[str]) -> tuple[str, ...]:
        for label, text in (("GT caption", gt), ("predicted caption", pred)):
            if not isinstance(text, str):
                raise InputError(f"{label} must be text, got {type(text).__name__}")
        aspects = tuple(aspects)
        if not aspects:
            raise InputError("no aspects to judge")
        for a in aspects:
            if a not in tx.ASPECTS:
                raise InputError(f"unknown aspect {a!r}; known: {', '.join(tx.ASPECTS)}")
        return aspects

    def _count(self, stat: str) -> None:
        with self._stats_lock:
            self.stats[stat] += 1

    def _cached(self, key: str) -> Judgement | None:
        if self.cache is None:
            return None
        hit = self.cache.get(key)
        if hit is not None:
            self._count("cache_hits")
        return hit

    def _request(self, gt: str, pred: str, aspects: tuple[str, ...]) -> dict[str, Any]:
        fmt = self.config.response_format
        kwargs: dict[str, Any] = {
            "model": self.model, "temperature": self.config.temperature,
            "messages": llm_prompt.build_messages(gt, pred, aspects, text_mode=(fmt == "text")),
        }
        if fmt == "json_schema":
            kwargs["response_format"] = llm_prompt.response_format(aspects)
        elif fmt == "structured_outputs":  # vLLM >= 0.12 (older: extra_body guided_json)
            kwargs["extra_body"] = {"structured_outputs": {"json": llm_prompt.json_schema(aspects)}}
        if self.config.max_tokens:
            kwargs["max_tokens"] = self.config.max_tokens
        return kwargs

    def _fail(self, aspects: Sequence[str], error: str) -> Judgement:
        return Judgement.failure(self.name, self.version, error, aspects)

    def _call(self, gt: str, pred: str, aspects: tuple[str, ...]) -> Judgement:
        openai = self._openai
        request = self._request(gt, pred, aspects)
        tries = self.config.max_retries + 1
        for attempt in range(tries):
            last = attempt == tries - 1
            try:
                self._count("requests")
                response = self._client.chat.completions.create(**request)
            except openai.APIStatusError as e:
                status = e.status_code
                if (status in RETRY_STATUSES or status >= 500) and not last:
                    self._wait(attempt, e, f"HTTP {status}")
                    continue
                return self._fail(aspects, self._status_message(e, attempt + 1))
            except openai.APITimeoutError:
                if not last:
                    self._wait(attempt, None, "timeout")
                    continue
                return self._fail(aspects, f"no answer from {self.config.base_url} within "
                                           f"{self.config.timeout:g} s ({tries} tries)")
            except openai.APIConnectionError as e:
                if not last:
                    self._wait(attempt, None, "connection error")
                    continue
                return self._fail(aspects, f"cannot reach {self.config.base_url} ({tries} "
                                           f"tries): {e.__cause__ or e}")
            except (openai.OpenAIError, ValueError, TypeError) as e:
                # A 200 whose body is not a chat completion (proxy page, truncated JSON).
                return self._fail(aspects, f"malformed response from {self.config.base_url}: "
                                           f"{type(e).__name__}: {str(e)[:200]}")
            return self._read(response, aspects)
        raise AssertionError("unreachable")  # the loop always returns

    def _wait(self, attempt: int, error: Exception | None, why: str) -> None:
        delay = min(MAX_WAIT_S, max(self.config.backoff * 2 ** attempt,
                                    _retry_after(error) if error else 0.0))
        log.info("llm judge: %s, retry %d/%d in %.2f s", why, attempt + 1,
                 self.config.max_retries, delay)
        self._sleep(delay)

    def _status_message(self, error: Exception, tries: int) -> str:
        status = getattr(error, "status_code", "?")
        detail = getattr(error, "message", "") or str(error)
        hint = ""
        if status == 400 and self.config.response_format != "text" and \
                any(w in detail.lower() for w in ("response_format", "json_schema", "schema",
                                                  "structured")):
            hint = (" (the server may not support this response format: try "
                    "response_format='text' or CINECAP_JUDGE_RESPONSE_FORMAT=text)")
        elif status in (401, 403):
            hint = " (check OPENAI_API_KEY)"
        elif status == 404:
            hint = f" (check the base URL and that model {self.model!r} is served there)"
        return f"server answered HTTP {status} after {tries} tr{'y' if tries == 1 else 'ies'}: " \
               f"{detail[:300]}{hint}"

    def _read(self, response: Any, aspects: tuple[str, ...]) -> Judgement:
        choices = getattr(response, "choices", None)
        if not choices:
            return self._fail(aspects, "the server's answer has no choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        refusal = getattr(message, "refusal", None)
        if refusal:
            return self._fail(aspects, f"the model refused: {str(refusal)[:200]}")
        content = getattr(message, "content", None)
        try:
            data = llm_prompt.parse_answer(content or "", aspects)
        except llm_prompt.AnswerError as e:
            why = str(e)
            if getattr(choice, "finish_reason", None) == "length":
                why += " (the answer was cut off at max_tokens: raise max_tokens)"
            return self._fail(aspects, why)
        return Judgement.from_dict(data, self.name, self.version, aspects)

    @classmethod
    def availability(cls) -> tuple[bool, str]:
        """Whether the environment configures an endpoint (no network call)."""
        try:
            LLMJudgeConfig.from_env()
        except (UnavailableError, InputError) as e:
            return False, e.message
        return True, ""
