"""Judges: decompose captions into atomic statements per aspect, match GT and prediction, count.

Backends by name: ``rules`` (deterministic, offline, the default) and ``llm`` (any
OpenAI-compatible endpoint, the CineCap judge protocol).
"""
from cinecap.judge.base import AspectCounts, Judge, Judgement, Said, StatementView, f1, statement_view
from cinecap.judge.limits import RULES_LIMITS, judge_limits
from cinecap.registry import Registry

JUDGES: Registry[Judge] = Registry("judge")
JUDGES.register("rules", "cinecap.judge.rules:RulesJudge",
                help="deterministic, offline, built on the taxonomy (default)")
JUDGES.register("llm", "cinecap.judge.llm:LLMJudge",
                help="the CineCap judge protocol over an OpenAI-compatible endpoint")


def get_judge(name: str = "rules", **options) -> Judge:
    return JUDGES.create(name, **options)


__all__ = ["AspectCounts", "Judge", "Judgement", "JUDGES", "RULES_LIMITS", "Said", "StatementView", "f1",
           "get_judge", "judge_limits", "statement_view"]
