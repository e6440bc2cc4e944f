"""Training: dataset building, SFT and GRPO rounds (the tiny offline model lives in ``cinecap.testing``).

Heavy modules (torch, transformers) are imported by the submodules that need them, never here.
"""
