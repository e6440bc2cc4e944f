"""What an ``anchors`` caption is worth, said where one is shown: ``cinecap captioners``,
``cinecap caption`` and the app's Caption tab (as the rules judge's limits are beside its scores).

The figures are the first runs of the fresh held-out sets in docs/anchors.md ("Where issue 22
stands": each set scored once, on clips nobody had tuned the rules to, before anything was fixed
for them); ``tests/test_captioner_limits.py`` reads them back from that table, so the text cannot
drift from it. Kept apart from ``anchors.py``: this text decides nothing the captioner states.
"""
from __future__ import annotations

#: The fresh held-out sets whose first runs the ranges cover, and their clips in all.
FRESH_SETS, FRESH_CLIPS = ("heldout2", "heldout3", "heldout4", "heldout5"), 32
#: Their first runs: precision (statements right) and recall (gold statements stated), percent.
PRECISION_LOW, PRECISION_HIGH = 42, 63
RECALL_LOW, RECALL_HIGH = 27, 29

ANCHORS_LIMITS = (
    "The anchors captioner is rules over pixels: on footage it was not developed on (first runs "
    f"of {len(FRESH_SETS)} fresh held-out sets, {FRESH_CLIPS} clips; docs/anchors.md) "
    f"{PRECISION_LOW}–{PRECISION_HIGH} % of its statements were right and it stated "
    f"{RECALL_LOW}–{RECALL_HIGH} % of what careful annotators wrote. Check each statement "
    "against its evidence; the vlm captioner runs a trained CineCap model (docs/models.md).")

#: The same in a few words, for a status line.
ANCHORS_LIMITS_SHORT = (f"anchors captions: {PRECISION_LOW}–{PRECISION_HIGH} % of statements "
                        "right on footage they were not developed on (docs/anchors.md)")


def captioner_limits(name: str | None, short: bool = False) -> str | None:
    """The limits of the captioner ``name`` as one sentence (``short``: a few words, for a
    status line); None where none are measured."""
    if name != "anchors":
        return None
    return ANCHORS_LIMITS_SHORT if short else ANCHORS_LIMITS


__all__ = ["ANCHORS_LIMITS", "ANCHORS_LIMITS_SHORT", "captioner_limits"]
