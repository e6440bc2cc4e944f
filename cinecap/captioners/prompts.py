"""The released CineCap prompts, and the optional block of anchors' evidence given as hints.

The system and user prompts are the ones the released inference script passes to
CineCap-GRPO-8B (GitHub ``Hectormxy/CineCap``, ``Infer/run_cinecap_infer.sh``): the model was
trained on them, so they are the default for every model captioner. The aspect order is the
released prompt's, not that of ``taxonomy.ASPECTS`` (docs/spec/method.md).
"""
from __future__ import annotations

from typing import Any, Iterable

from cinecap.statements import Statement, format_cot_line

SYSTEM_PROMPT = "You are a video cinematography expert."

#: The aspects in the order the released user prompt names them.
PROMPT_ASPECTS = ("Camera Movement", "Depth of Field", "Camera Angle", "Subject Orientation",
                  "Shot Size", "Composition", "Special Shots")

USER_PROMPT = (
    "Describe the cinematic aspects in the video. \n"
    f" Cinematic aspects include: {', '.join(PROMPT_ASPECTS)}. \n"
    " You should firstly watch the video and get visual evidence in the <think> block and then "
    "output the dense caption in the <answer> block."
)

HINTS_HEADER = (
    "Measurements from the pixels (optical flow, face detection, sharpness), which may be wrong; "
    "check them against the video:"
)


def hints_block(statements: Iterable[Statement], max_lines: int = 40) -> str:
    """The anchors' statements as CoT-style lines, to append to the user prompt as hints.

    Empty when there is nothing to say, so a prompt with hints on and no evidence equals the
    released prompt.
    """
    lines = [format_cot_line(s) for s in statements][:max_lines]
    if not lines:
        return ""
    return HINTS_HEADER + "\n" + "\n".join(f"- {ln}" for ln in lines)


def anchors_hints(clip: Any, warnings: list[str]) -> str:
    """The hints block from the CPU ``anchors`` captioner's statements for ``clip``.

    Hints are optional: when the anchors fail, the reason goes to ``warnings`` and the caption is
    still made, without them.
    """
    from cinecap.captioners import get_captioner

    try:
        return hints_block(get_captioner("anchors").caption(clip).statements)
    except Exception as e:  # noqa: BLE001 - any failure only costs the hints, and is reported
        warnings.append(f"no anchors' hints: {e}")
        return ""


def user_prompt(hints: str = "", template: str | None = None) -> str:
    """The user turn's text: the released prompt (or ``template``), then the hints if any."""
    text = template if template is not None else USER_PROMPT
    return f"{text}\n\n{hints}" if hints else text


def chat_messages(video: Any, hints: str = "", system: str | None = None,
                  template: str | None = None) -> list[dict[str, Any]]:
    """The released conversation: system turn, then a user turn with the video and the prompt.

    ``video`` is whatever the consumer expects in the video part (a path, frames, or a
    placeholder when the frames are passed to the processor separately).
    """
    return [
        {"role": "system", "content": SYSTEM_PROMPT if system is None else system},
        {"role": "user", "content": [
            {"type": "video", "video": video},
            {"type": "text", "text": user_prompt(hints, template)},
        ]},
    ]
