"""Shot cuts with a shipped detector: PySceneDetect's content detector (``scenedetect-headless``).

Fed frame by frame from our own single decoding pass (tiny BGR images built from the Y/U/V planes),
so cut detection costs no second decode. A cut at frame n means the new shot starts at n / fps.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cinecap.errors import InputError


@dataclass(frozen=True)
class CutConfig:
    """Shot-cut detection (PySceneDetect's content detector on tiny frames)."""

    threshold: float = field(default=27.0, metadata={
        "help": "content-change score of a cut (PySceneDetect's default for ContentDetector)"})
    min_shot_s: float = field(default=0.4, metadata={
        "help": "two cuts closer than this many seconds are one (flashes, dissolves)"})
    small_side: int = field(default=64, metadata={
        "help": "the long side of the images the detector sees, in pixels"})

    def __post_init__(self) -> None:
        if self.threshold <= 0 or self.min_shot_s <= 0 or self.small_side < 16:
            raise InputError("cuts config: threshold and min_shot_s must be positive, "
                             "small_side >= 16")


@dataclass
class CutDetector:
    """Streams frames into PySceneDetect's ContentDetector and keeps the cut frames and scores."""

    fps: float
    config: CutConfig = field(default_factory=CutConfig)
    cuts: list[int] = field(default_factory=list)
    scores: dict[int, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from scenedetect.detectors import ContentDetector

        self._det = ContentDetector(threshold=self.config.threshold,
                                    min_scene_len=max(1, int(round(self.config.min_shot_s * self.fps))))

    def push(self, index: int, small_bgr: np.ndarray) -> None:
        from scenedetect.common import FrameTimecode

        found = self._det.process_frame(FrameTimecode(index, self.fps), small_bgr)
        score = getattr(self._det, "_frame_score", None)
        if score is not None:
            self.scores[index] = float(score)
        self.cuts.extend(int(tc.frame_num) for tc in found)

    def cut_times(self) -> list[float]:
        return [c / self.fps for c in sorted(set(self.cuts)) if c > 0]


def shots_from_cuts(cut_times: list[float], duration: float) -> list[tuple[float, float]]:
    bounds = [0.0] + [t for t in cut_times if 0 < t < duration] + [duration]
    return [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]


__all__ = ["CutConfig", "CutDetector", "shots_from_cuts"]
