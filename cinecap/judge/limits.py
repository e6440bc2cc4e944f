"""What a ``rules`` score is worth, said wherever one is shown (issue 23): the app's Caption,
Review and Leaderboard tabs, ``cinecap judge`` and ``cinecap bench``.

The figures are the first runs of the blind batches in docs/judge.md (pairs with all seven
aspects exact, on wording nobody had tuned the judge to, before anything was fixed for them);
``tests/test_judge_limits.py`` reads them back from that table, so the text cannot drift from it.
Kept apart from ``rules.py``: the rules judge's version is a hash of the code that decides what
it counts, and this text decides nothing.
"""
from __future__ import annotations

#: The blind batches the range covers: from batch 9 on, after the second round, the first runs
#: show no trend (docs/judge.md, "What seven blind rounds say").
FIRST_BATCH, LAST_BATCH = 9, 25
#: First-run agreement over those batches, percent of pairs all seven aspects exact.
FIRST_RUN_LOW, FIRST_RUN_HIGH = 28, 76
#: The latest first run: batch 25, on the judge of issue 23 (rules-52405fcb275d).
LATEST_BATCHES, LATEST = "25", 52

RULES_LIMITS = (
    "The rules judge is an offline approximation: on wording it was not tuned to, its first "
    f"runs agree with careful annotators on all seven aspects for {FIRST_RUN_LOW}–"
    f"{FIRST_RUN_HIGH} % of pairs (blind batches {FIRST_BATCH}–{LAST_BATCH}; latest "
    f"{LATEST} %, batch{'es' if '–' in LATEST_BATCHES else ''} {LATEST_BATCHES}; docs/judge.md). "
    "For reference scores use the llm "
    "judge: --judge llm with CINECAP_JUDGE_BASE_URL and CINECAP_JUDGE_MODEL set "
    "(docs/llm_judge.md).")


def judge_limits(judge: object) -> str | None:
    """The limits of the judge named ``judge`` (a name, or a judge, or a judge JSON with a
    ``"judge"`` key) as one sentence to show beside its scores; None for a judge with none to
    state (the ``llm`` judge is the reference)."""
    if isinstance(judge, dict):
        judge = judge.get("judge")
    name = judge if isinstance(judge, str) else getattr(judge, "name", None)
    return RULES_LIMITS if name == "rules" else None
