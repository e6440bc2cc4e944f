"""The project's domain errors. Raised in the core, translated once at the edges (CLI, UI).

Each carries an exit code for the CLI; the message is written for the person who caused it and
says what to do, never a traceback.
"""
from __future__ import annotations


class CinecapError(Exception):
    """Base class: a problem a user can act on."""

    exit_code = 1

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class InputError(CinecapError):
    """Bad input from the user: an empty caption, a malformed file, a bad option."""

    exit_code = 2


class VideoError(InputError):
    """A clip that cannot be used: not a video, unreadable, truncated, too long or too large."""

    exit_code = 3


class UnavailableError(CinecapError):
    """A backend that cannot run here (missing package, no GPU, no server configured)."""

    exit_code = 4


class ChecksumError(UnavailableError):
    """A pretrained model file whose bytes are not the official ones (cinecap.pretrained): a
    changed or truncated file found on disk, or a download that does not match. It is refused;
    the message names the file, both digests and the fix (``cinecap models fetch NAME``)."""


class ModelFetchError(UnavailableError):
    """A pretrained model file that could not be downloaded (no network, HTTP error)."""


class JudgeError(CinecapError):
    """A judge that could not produce a judgement (server down, malformed answer)."""

    exit_code = 5


class CaptionerError(CinecapError):
    """A captioner that failed on a clip (model error, refusal, empty output)."""

    exit_code = 5


class TrainingError(CinecapError):
    """A training round (SFT or GRPO, ``cinecap.training``) that could not start or failed: no
    gold pairs to train on, a dataset sample that cannot be built, a checkpoint that cannot be
    written, a loss that is no longer finite.

    The training engine raises it; its exit code (6) and its translation at the edges (the CLI's
    ``error:`` line, the app's message for a failed round job) are settled here so every caller
    handles it like the other domain errors.
    """

    exit_code = 6
