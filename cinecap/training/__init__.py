"""Training rounds: gold pairs → SFT on atomic chain of thought → GRPO on video → a model version.

- :mod:`cinecap.training.config` — ``SFTConfig`` / ``GRPOConfig``: the settings, their help, flags
- :mod:`cinecap.training.data` — the gold-pair JSONL contract, split by clip, data hash, targets
- :mod:`cinecap.training.modeling` — loading a base, LoRA / full, video inputs, saving
- :mod:`cinecap.training.sft` — ``run_sft`` (TRL's SFTTrainer with a video collator)
- :mod:`cinecap.training.grpo` — ``run_grpo`` (our GRPO loop on accelerate)
- :mod:`cinecap.training.rewards` — judge + ``cinecap.reward``; the judge protocol plug-in point
- :mod:`cinecap.training.version` — the model version directory, events, the COMPLETE marker
- :mod:`cinecap.training.swift_export` — data, reward plugin and commands for ms-swift

The tiny offline model lives in ``cinecap.testing``. Heavy modules (torch, transformers, trl) are
imported by the functions that need them, never at import time. docs/training.md tells the story.
"""
