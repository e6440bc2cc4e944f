"""Small real captioners for the app's tests: they decode the clip's header with the real video
module and return statements like a backend would; one crashes (the "crashed captioner" case)."""
from __future__ import annotations

from pathlib import Path

from cinecap.captioners.base import CaptionResult, Captioner
from cinecap.progress import Progress
from cinecap.statements import Statement, format_reasoning, render_caption


class ScriptedCaptioner(Captioner):
    """Static then pan right over the clip's real duration, a wide shot; optional extra text."""

    name = "scripted"

    def __init__(self, text: str = "", confidence: float = 0.6):
        self.text = text
        self.confidence = confidence

    def caption(self, clip: str | Path, progress: Progress | None = None) -> CaptionResult:
        from cinecap.video import probe

        info = probe(clip)
        half = round(info.duration / 2, 2)
        sts = [Statement("Camera Movement", "static", t_start=0.0, t_end=half,
                         evidence="background corners stay still", confidence=self.confidence),
               Statement("Camera Movement", "pan right", t_start=half,
                         t_end=round(info.duration, 2), evidence="content slides left",
                         confidence=self.confidence),
               Statement("Shot Size", "wide shot", text=self.text, confidence=self.confidence)]
        if progress:
            progress(1.0, "scripted")
        return CaptionResult(render_caption(sts), format_reasoning(sts), sts, self.name,
                             meta={"version": "scripted-1"})


class CrashingCaptioner(Captioner):
    name = "crashing"

    def caption(self, clip: str | Path, progress: Progress | None = None) -> CaptionResult:
        raise RuntimeError("CUDA error: device-side assert triggered")
