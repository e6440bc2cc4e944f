"""Judge protocols: the named, versioned choices a score depends on (docs/protocol.md).

A judge score is only comparable with another made the same way. Three choices of the judging
itself are named here and recorded with every judgement, every bench result and (through the bench
results file) every leaderboard row:

- **prompt**: which judge prompt the ``llm`` judge sends (:data:`PROMPTS`): ``benchmark-7`` (the
  release's benchmark judge: seven aspects, rules 1–9, thinking first), ``training-6`` (the
  release's training judge: six aspects, generic rules, strict JSON), or ``cinecap`` (the
  project's own wording, captions quoted as data). Each prompt has a versioned id
  (``benchmark-7-v1``), the judge's ``version``;
- **counting**: how its answer becomes counts (:data:`COUNTINGS`): ``released`` (the judge's
  reported counts, list lengths only where a count is missing, a missing aspect counts as zeros,
  a malformed answer is asked again; with ``benchmark-7`` the clip's scores are the judge's own
  reported ones, as the released evaluation reads them) or ``lists`` (counts are the lengths of the
  statement lists; an answer whose counts disagree with its lists, that lists more matches than
  statements, that misses an aspect, or that lists no GT statement for a GT caption that is not
  empty, is a failed judgement: the hardened choice for the app and for GRPO rewards);
- **judged text**: what of a model's output the judge reads (:data:`JUDGED_TEXTS`): ``answer``
  (the caption as the release extracts it, :func:`cinecap.statements.released_answer`) or ``raw``
  (the whole output, ``<think>`` included, as the committed evaluation script sends it).

Presets (:data:`PRESETS`) name the combinations that matter: ``released-benchmark`` (the default
of ``cinecap bench``), ``hardened-training`` (the default of the GRPO reward), and so on.

The F1 the project prints is its own definition (:data:`F1_DEFINITION`): the released code
computes none.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from cinecap.errors import InputError

#: The judge prompts (ids and texts in :mod:`cinecap.judge.llm_prompt`).
PROMPTS = ("benchmark-7", "training-6", "cinecap")
COUNTINGS = ("released", "lists")
JUDGED_TEXTS = ("answer", "raw")

#: The F1 of every score this project prints, labelled as its own: the harmonic mean of the mean
#: comprehensiveness and the mean accuracy over the judged clips. The released code computes none.
F1_DEFINITION = "cinecap-hm-of-means"
#: How per-clip scores are averaged over a benchmark (cinecap/judge/scores.py): as released.
AGGREGATION = "released"

#: The keys of a bench results file's top-level "protocol" object, in order (docs/protocol.md).
#: Every value is a string; rows whose objects differ in any key are not comparable.
PROTOCOL_KEYS = ("judge", "judge_version", "judge_model", "prompt", "counting", "judged_text",
                 "answer_block", "f1", "aggregation", "aspects", "sampling", "decoding",
                 "truncated")


@dataclass(frozen=True)
class JudgeProtocol:
    """One judging protocol: prompt × counting × judged text."""

    prompt: str = field(default="cinecap", metadata={
        "help": "judge prompt: benchmark-7 (released benchmark judge), training-6 (released "
                "training judge) or cinecap (the project's, captions quoted as data)",
        "choices": PROMPTS})
    counting: str = field(default="lists", metadata={
        "help": "released (reported counts, list fallback, lenient aspects, retry on malformed) "
                "or lists (counts are list lengths; inconsistent answers fail)",
        "choices": COUNTINGS})
    judged_text: str = field(default="answer", metadata={
        "help": "answer (the <answer> text, extracted as released) or raw (the whole output, "
                "<think> included)", "choices": JUDGED_TEXTS})

    def __post_init__(self) -> None:
        for name, choices in (("prompt", PROMPTS), ("counting", COUNTINGS),
                              ("judged_text", JUDGED_TEXTS)):
            value = getattr(self, name)
            if value not in choices:
                raise InputError(f"judge {name} must be one of {', '.join(choices)}, "
                                 f"got {value!r}")

    @property
    def name(self) -> str:
        """``prompt/counting/judged_text``, e.g. ``benchmark-7/released/raw``."""
        return f"{self.prompt}/{self.counting}/{self.judged_text}"

    def preset(self) -> str | None:
        """The preset name of this combination, if it has one."""
        for name, p in PRESETS.items():
            if p == self:
                return name
        return None

    def to_dict(self) -> dict[str, str]:
        return {"prompt": self.prompt, "counting": self.counting, "judged_text": self.judged_text}


#: Named combinations. ``released-benchmark``: what the committed evaluation does (the default of
#: ``cinecap bench``); ``released-training``: what the released reward does; ``hardened-training``:
#: the released training prompt with ``lists`` counting (the default of the GRPO reward);
#: ``hardened-benchmark``: the benchmark prompt, ``lists`` counting, the ``<answer>`` only; ``app``:
#: the project's prompt with ``lists`` counting (the ``llm`` judge's own default, used by the app).
PRESETS: dict[str, JudgeProtocol] = {
    "released-benchmark": JudgeProtocol("benchmark-7", "released", "raw"),
    "released-training": JudgeProtocol("training-6", "released", "answer"),
    "hardened-training": JudgeProtocol("training-6", "lists", "answer"),
    "hardened-benchmark": JudgeProtocol("benchmark-7", "lists", "answer"),
    "app": JudgeProtocol("cinecap", "lists", "answer"),
}


def protocol(spec: "str | JudgeProtocol | Mapping[str, Any] | None" = None) -> JudgeProtocol:
    """A protocol from a preset name, a ``prompt/counting[/judged_text]`` name, a mapping of its
    fields, or None (the ``app`` preset). Unknown names are InputErrors that list the known ones."""
    if spec is None:
        return PRESETS["app"]
    if isinstance(spec, JudgeProtocol):
        return spec
    if isinstance(spec, Mapping):
        unknown = sorted(set(spec) - {"prompt", "counting", "judged_text"})
        if unknown:
            raise InputError(f"a judge protocol has no field {unknown[0]!r}; its fields are "
                             f"prompt, counting, judged_text")
        return JudgeProtocol(**dict(spec))
    if not isinstance(spec, str):
        raise InputError(f"a judge protocol is a name, got {type(spec).__name__}")
    text = spec.strip()
    if text in PRESETS:
        return PRESETS[text]
    parts = text.split("/")
    if 2 <= len(parts) <= 3 and parts[0] in PROMPTS:
        return JudgeProtocol(*parts)
    raise InputError(f"unknown judge protocol {spec!r}; known: {', '.join(PRESETS)}, or "
                     f"PROMPT/COUNTING[/JUDGED_TEXT] with prompt {' | '.join(PROMPTS)}, counting "
                     f"{' | '.join(COUNTINGS)}, judged text {' | '.join(JUDGED_TEXTS)}")


def differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The keys of two "protocol" objects (bench results) whose values differ, in
    :data:`PROTOCOL_KEYS` order then any others: empty when the two scores are comparable.

    >>> differences({"judge": "llm", "counting": "lists"}, {"judge": "llm", "counting": "released"})
    ['counting']
    """
    keys = list(PROTOCOL_KEYS) + sorted((set(a) | set(b)) - set(PROTOCOL_KEYS))
    return [k for k in keys if (k in a or k in b) and a.get(k) != b.get(k)]


__all__ = ["AGGREGATION", "COUNTINGS", "F1_DEFINITION", "JUDGED_TEXTS", "JudgeProtocol", "PRESETS",
           "PROMPTS", "PROTOCOL_KEYS", "differences", "protocol"]
