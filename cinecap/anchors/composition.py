"""Composition as the CineCap judge scores it: where the subject sits across the frame."""
from __future__ import annotations

#: Upper bounds of the subject centre's x (share of the frame width) for each position.
POSITIONS = ((0.30, "left"), (0.44, "center-left"), (0.56, "center"), (0.70, "center-right"),
             (1.01, "right"))


def position_for(cx: float) -> str:
    """left / center-left / center / center-right / right for a centre x in [0, 1]."""
    for limit, name in POSITIONS:
        if cx < limit:
            return name
    return "right"


def margin(cx: float) -> float:
    """Distance (share of the width) from ``cx`` to the nearest position boundary: the larger,
    the surer the position."""
    bounds = [b for b, _ in POSITIONS[:-1]]
    return min(abs(cx - b) for b in bounds)


__all__ = ["POSITIONS", "margin", "position_for"]
