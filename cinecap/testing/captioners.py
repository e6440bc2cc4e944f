"""Small real captioners for the app's tests: they decode the clip's header with the real video
module and return statements like a backend would; one crashes (the "crashed captioner" case);
one answers from a table (the bench and leaderboard tests decide what each "model" said)."""
from __future__ import annotations

from pathlib import Path

from cinecap.captioners.base import CaptionResult, Captioner
from cinecap.errors import CaptionerError
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


class FilmCaptioner(Captioner):
    """The statements of issue 9's report, over the clip's real duration: a Depth of Field row,
    a pan right with its evidence, a dutch angle, a static with "103 tracked background points
    stay still", a handheld shake. Low confidence, so its clips come first in the queue."""

    name = "film"

    def caption(self, clip: str | Path, progress: Progress | None = None) -> CaptionResult:
        from cinecap.video import probe

        end = round(probe(clip).duration, 2)
        cut = round(end * 0.4, 2)
        sts = [Statement("Depth of Field", "shallow depth of field",
                         evidence="subject 3.1x sharper than background", confidence=0.3),
               Statement("Camera Movement", "pan right", t_start=cut, t_end=end,
                         evidence="background slides left 40 px/s", confidence=0.3),
               Statement("Camera Angle", "dutch angle", evidence="horizon tilted 12°",
                         confidence=0.3),
               Statement("Camera Movement", "static", t_start=0.0, t_end=cut,
                         evidence="103 tracked background points stay still", confidence=0.3),
               Statement("Camera Movement", "handheld shake", t_start=0.0, t_end=round(cut / 2, 2),
                         evidence="jitter 2.1 px", confidence=0.3)]
        return CaptionResult(render_caption(sts), format_reasoning(sts), sts, self.name,
                             meta={"version": "film-1"})


class TableCaptioner(Captioner):
    """Answers from a table keyed on the clip's file name; raises for unknown clips. ``stop_at``:
    the clip at which a KeyboardInterrupt stops the run (an interrupted run)."""

    def __init__(self, answers: dict[str, str], name: str = "table", stop_at: str | None = None):
        self.answers, self.name, self.stop_at = answers, name, stop_at
        self.calls: list[str] = []

    def caption(self, clip, progress=None):
        name = Path(clip).name
        if name == self.stop_at:
            raise KeyboardInterrupt
        self.calls.append(name)
        if name not in self.answers:
            raise CaptionerError(f"no answer for {name}")
        return CaptionResult(self.answers[name], "", [], self.name)
