"""The ``llm`` judge: the CineCap judge protocol over any OpenAI-compatible endpoint.

One chat call per (GT, prediction) pair, temperature 0, under a judging protocol
(:mod:`cinecap.judge.protocol`): one of the versioned prompts of :mod:`cinecap.judge.llm_prompt`
(``cinecap``, the default; ``benchmark-7`` and ``training-6``, the release's two), a counting
protocol that turns the answer into counts (:mod:`cinecap.judge.counting`: ``lists``, the default,
or ``released``), and the judged text (``answer``, the default: only the prediction's
``<answer>`` text is sent, extracted as released; or ``raw``). Around that call:

- a persistent cache (:mod:`cinecap.judge.cache`) so no pair is paid for twice;
- ``judge_many`` keeps ``concurrency`` requests in flight;
- the shared OpenAI-compatible client (:mod:`cinecap.openai_client`): retries on 408/409/429/5xx,
  timeouts and dropped connections, exponential backoff with jitter, Retry-After honoured;
- any call that still fails, and any answer the counting protocol refuses, gives
  ``Judgement(failed=True, error=...)``, never zero counts that look real; failures are not
  cached; with ``released`` counting a malformed answer is asked again (``max_retries`` times).

Configuration: :class:`LLMJudgeConfig` (constructor options, else the environment through
:meth:`LLMJudgeConfig.from_env`: ``CINECAP_JUDGE_BASE_URL``, ``CINECAP_JUDGE_MODEL``,
``OPENAI_API_KEY``, and optionally ``CINECAP_JUDGE_RESPONSE_FORMAT``,
``CINECAP_JUDGE_CONCURRENCY``), so ``get_judge("llm")`` works from the environment alone.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from cinecap import config as cfg
from cinecap import taxonomy as tx
from cinecap.errors import InputError, UnavailableError
from cinecap.judge import llm_prompt
from cinecap.judge.base import Judge, Judgement
from cinecap.judge.cache import JudgeCache, cache_key
from cinecap.judge.counting import Refused, read_lists, read_released
from cinecap.judge.protocol import JudgeProtocol
from cinecap.statements import released_answer
from cinecap.openai_client import ChatClient, ChatError, ChatResponse, RetryPolicy
from cinecap.registry import Availability, configured

log = logging.getLogger(__name__)

RESPONSE_FORMATS = ("auto", "json_schema", "structured_outputs", "text")
ENV_BASE_URL = "CINECAP_JUDGE_BASE_URL"
ENV_MODEL = "CINECAP_JUDGE_MODEL"
ENV_KEY = "OPENAI_API_KEY"
_OFF = ("", "0", "false", "off", "no", "none")
_ON = ("1", "true", "on", "yes", "default")


@dataclass(frozen=True)
class LLMJudgeConfig(JudgeProtocol):
    """Where and how the LLM judge calls its model, under which protocol. The protocol's fields
    (``prompt``, ``counting``, ``judged_text``; env CINECAP_JUDGE_PROMPT, CINECAP_JUDGE_COUNTING)
    are :class:`JudgeProtocol`'s own, declared and checked there once. The defaults are the
    released judge call's (temperature 0, 180 s timeout, 4 retries with backoff from 1.2 s:
    docs/spec/judge.md)."""

    base_url: str = field(default="", metadata={
        "help": f"OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (vLLM); env {ENV_BASE_URL}"})
    model: str = field(default="", metadata={
        "help": f"the judge model's name on that server; env {ENV_MODEL}"})
    api_key: str | None = field(default=None, metadata={
        "help": f"API key; env {ENV_KEY}; local servers (vLLM, Ollama, llama.cpp) accept any"})
    concurrency: int = field(default=8, metadata={
        "help": "requests in flight in judge_many; env CINECAP_JUDGE_CONCURRENCY"})
    timeout: float = field(default=180.0, metadata={
        "help": "seconds one request may take in all, the whole answer included"})
    max_retries: int = field(default=4, metadata={
        "help": "tries after the first on 408/409/429/5xx, timeouts and dropped connections"})
    backoff: float = field(default=1.2, metadata={
        "help": "first wait in seconds (doubles each retry) when the server sends no Retry-After"})
    response_format: str = field(default="auto", metadata={
        "help": "auto (the prompt's own: json_schema for cinecap, text for the released prompts), "
                "json_schema (OpenAI, vLLM), structured_outputs (vLLM >= 0.12) or text (JSON "
                "in the answer); env CINECAP_JUDGE_RESPONSE_FORMAT",
        "choices": RESPONSE_FORMATS})
    max_tokens: int | None = field(default=None, metadata={
        "help": "longest answer in tokens; None: the server's default"})
    temperature: float = field(default=0.0, metadata={"help": "sampling temperature (0: greedy)"})
    cache: str | bool | None = field(default=None, metadata={
        "help": "judgement cache: a SQLite file, or off; default: judge.sqlite in "
                "CINECAP_CACHE_DIR (else ~/.cache/cinecap)"})

    def __post_init__(self) -> None:
        if self.base_url and not str(self.base_url).startswith(("http://", "https://")):
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
        super().__post_init__()  # the protocol's fields: an InputError naming the field
        if self.max_tokens is not None and (not isinstance(self.max_tokens, int)
                                            or self.max_tokens < 1):
            raise InputError(f"llm judge max_tokens must be a positive integer, "
                             f"got {self.max_tokens!r}")
        object.__setattr__(self, "cache", _cache_option(self.cache))

    @classmethod
    def from_env(cls, **overrides: Any) -> "LLMJudgeConfig":
        """Explicit values win; None falls back to the environment, then to the defaults."""
        cfg.check_options("llm judge", cfg.option_names(cls), overrides)
        return cls(**cfg.from_env_values(cls, {
            "base_url": ENV_BASE_URL, "model": ENV_MODEL, "api_key": ENV_KEY,
            "response_format": "CINECAP_JUDGE_RESPONSE_FORMAT",
            "prompt": "CINECAP_JUDGE_PROMPT", "counting": "CINECAP_JUDGE_COUNTING",
            "concurrency": "CINECAP_JUDGE_CONCURRENCY"}, os.environ, overrides))

    @property
    def judge_protocol(self) -> JudgeProtocol:
        return JudgeProtocol(self.prompt, self.counting, self.judged_text)

    @property
    def format(self) -> str:
        """The response format in force (``auto`` resolved by the prompt)."""
        if self.response_format == "auto":
            return llm_prompt.get_prompt(self.prompt).response_format
        return self.response_format

    def missing(self) -> str:
        """Why this config reaches no model ("" when it does), and what to do."""
        missing = [n for n, v in ((f"base URL ({ENV_BASE_URL})", self.base_url),
                                  (f"model ({ENV_MODEL})", self.model)) if not v]
        if not missing:
            return ""
        return ("the llm judge needs an OpenAI-compatible endpoint; missing "
                + " and ".join(missing) + f". Example: {ENV_BASE_URL}="
                f"http://localhost:8000/v1 {ENV_MODEL}=Qwen/Qwen3-8B (vLLM), or "
                f"https://api.openai.com/v1 with {ENV_KEY}. Or use --judge rules.")

    def retry(self) -> RetryPolicy:
        return RetryPolicy(max_retries=self.max_retries, backoff=self.backoff)

    def describe(self) -> dict[str, Any]:
        """The resolved configuration for logs and result files (the key is never included)."""
        out = cfg.describe(self)
        out.pop("api_key", None)
        return out


def _cache_option(cache: Any) -> Any:
    """None/True: the default file; False: no cache; anything else: that file."""
    if isinstance(cache, str) and cache.strip().lower() in _OFF:
        return False
    if isinstance(cache, str) and cache.strip().lower() in _ON:
        return True
    if isinstance(cache, os.PathLike):
        return os.fspath(cache)
    return cache


class LLMJudge(Judge):
    """CineCap judge protocol over an OpenAI-compatible chat-completions endpoint."""

    name = "llm"
    version = llm_prompt.PROMPT_ID  # per instance: the id of the prompt in use

    config_class = LLMJudgeConfig

    def __init__(self, config: LLMJudgeConfig | None = None, **options: Any):
        """``LLMJudge(model=…, base_url=…)``: options are :class:`LLMJudgeConfig` fields; unset
        ones come from the environment. Or pass a ready ``config``."""
        if config is not None and options:
            raise InputError("give the llm judge a config or options, not both")
        self.config = config or LLMJudgeConfig.from_env(**options)
        why = self.config.missing()
        if why:
            raise UnavailableError(why)
        self.prompt = llm_prompt.get_prompt(self.config.prompt)
        self.version = self.prompt.id
        cache = self.config.cache
        if cache is False:
            self.cache: JudgeCache | None = None
        else:
            self.cache = JudgeCache(None if cache in (None, True) else Path(cache))
        self.client = ChatClient(self.config.base_url, self.config.api_key,
                                 self.config.timeout, self.config.retry(), label="llm judge")
        self._stats_lock = threading.Lock()
        self._stats = {"cache_hits": 0, "failures": 0}
        log.info("llm judge: %s, protocol %s (prompt id %s), cache %s", self.config.describe(),
                 self.config.judge_protocol.name, self.version,
                 self.cache.path if self.cache else "off")

    @property
    def model(self) -> str:
        return self.config.model

    @property
    def stats(self) -> dict[str, int]:
        """Requests sent (retries included), cache hits and failed judgements so far."""
        with self._stats_lock:
            return {"requests": self.client.requests, **self._stats}

    # ------------------------------------------------------------------------------ one pair
    def protocol(self) -> dict[str, str]:
        return self.config.judge_protocol.to_dict()

    @property
    def cache_version(self) -> str:
        """What the cache key holds of the protocol: prompt id, counting, judged text (the same
        pair judged under another protocol is another entry)."""
        return f"{self.version}/{self.config.counting}/{self.config.judged_text}"

    @property
    def default_aspects(self) -> tuple[str, ...]:
        """The aspects to ask when the caller names none: the prompt's own (the released
        prompts), else all seven."""
        return self.prompt.aspects or tx.ASPECTS

    def check_aspects(self, aspects: Sequence[str]) -> tuple[str, ...]:
        """InputError now for aspects this judge cannot judge (before a run spends anything)."""
        return self._check("", "", aspects)

    def judged_text(self, pred: str) -> str:
        """What of the prediction is sent: its ``<answer>`` text as released, or all of it."""
        return pred if self.config.judged_text == "raw" else released_answer(pred)

    def judge(self, gt: str, pred: str, aspects: Sequence[str] = tx.ASPECTS) -> Judgement:
        aspects = self._check(gt, pred, aspects)
        pred = self.judged_text(pred)
        key = cache_key(self.model, self.cache_version, aspects, gt, pred)
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
        self.prompt.asked(aspects)  # InputError for an aspect this prompt does not judge
        return aspects

    def _count(self, stat: str) -> None:
        with self._stats_lock:
            self._stats[stat] += 1

    def _cached(self, key: str) -> Judgement | None:
        if self.cache is None:
            return None
        hit = self.cache.get(key)
        if hit is not None:
            self._count("cache_hits")
        return hit

    def _request(self, gt: str, pred: str, aspects: tuple[str, ...]) -> dict[str, Any]:
        fmt = self.config.format
        asked = self.prompt.asked(aspects)
        totals = llm_prompt.BENCHMARK_7_TOTALS if self.prompt.reports_scores else ()
        kwargs: dict[str, Any] = {
            "model": self.model, "temperature": self.config.temperature,
            "messages": self.prompt.messages(gt, pred, asked, text_mode=(fmt == "text")),
        }
        if fmt == "json_schema":
            kwargs["response_format"] = llm_prompt.response_format(asked, totals)
        elif fmt == "structured_outputs":  # vLLM >= 0.12 (older: extra_body guided_json)
            kwargs["extra_body"] = {"structured_outputs": {
                "json": llm_prompt.json_schema(asked, totals)}}
        if self.config.max_tokens:
            kwargs["max_tokens"] = self.config.max_tokens
        return kwargs

    def _fail(self, aspects: Sequence[str], error: str) -> Judgement:
        return Judgement.failure(self.name, self.version, error, aspects, self.protocol())

    def _call(self, gt: str, pred: str, aspects: tuple[str, ...]) -> Judgement:
        """One judgement; with ``released`` counting a malformed answer is asked again."""
        tries = 1 + (self.config.max_retries if self.config.counting == "released" else 0)
        result = None
        for attempt in range(tries):
            try:
                response = self.client.chat(**self._request(gt, pred, aspects))
            except ChatError as e:
                return self._fail(aspects, self._error_message(e))
            result, retry = self._read(response, gt, aspects)
            if not retry:
                return result
            if attempt + 1 < tries:
                log.warning("llm judge: malformed answer (%s); asking again (%d/%d)",
                            result.error, attempt + 1, tries - 1)
                time.sleep(min(60.0, self.config.backoff * 2 ** attempt))
        assert result is not None
        if tries > 1:
            result.error = f"{result.error} (asked {tries} times)"
        return result

    def _error_message(self, e: ChatError) -> str:
        url, tries = self.config.base_url, e.attempts
        n = f"{tries} tr{'y' if tries == 1 else 'ies'}"
        if e.kind == "timeout":
            return f"no answer from {url} within {self.config.timeout:g} s ({n})"
        if e.kind == "connection":
            return f"{e.detail} ({n})"
        if e.kind == "malformed":
            return f"malformed response from {url}: {e.detail}"
        hint = ""
        if e.status == 400 and self.config.response_format != "text" and \
                any(w in e.detail.lower() for w in ("response_format", "json_schema", "schema",
                                                    "structured")):
            hint = (" (the server may not support this response format: try "
                    "response_format='text' or CINECAP_JUDGE_RESPONSE_FORMAT=text)")
        elif e.status in (401, 403):
            hint = f" (check {ENV_KEY})"
        elif e.status == 404:
            hint = f" (check the base URL and that model {self.model!r} is served there)"
        return f"server answered HTTP {e.status} after {n}: {e.detail}{hint}"

    def _read(self, response: ChatResponse, gt: str,
              aspects: tuple[str, ...]) -> tuple[Judgement, bool]:
        """(the judgement, whether to ask again) for one answer, by the counting protocol."""
        if response.refusal:
            return self._fail(aspects, f"the model refused: {str(response.refusal)[:200]}"), False
        content = response.content if isinstance(response.content, str) else ""
        try:
            if self.config.counting == "released":
                data = read_released(content, self.prompt, aspects)
            else:
                data = read_lists(content, aspects, gt)
        except Refused as e:
            return self._fail(aspects, str(e)), False
        except llm_prompt.AnswerError as e:
            why = str(e)
            if response.finish_reason == "length":
                why += " (the answer was cut off at max_tokens: raise max_tokens)"
            return self._fail(aspects, why), self.config.counting == "released"
        return Judgement(data["by_dim"], self.name, self.version, aspects=aspects,
                         protocol=self.protocol(), reported=data["reported"]).sanitized(), False

    @classmethod
    def availability(cls, **options: Any) -> Availability:
        """Whether the options and the environment configure an endpoint (no network call)."""
        return configured(lambda: LLMJudgeConfig.from_env(**options), LLMJudgeConfig.missing)
