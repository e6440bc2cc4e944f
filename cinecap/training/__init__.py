"""Training: dataset building, SFT, GRPO, and the tiny offline model factory used by tests and demos.

Heavy modules (torch, transformers) are imported by the submodules that need them, never here.
"""
