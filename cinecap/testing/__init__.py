"""Helpers for tests, benchmarks and offline demos: synthetic clips filmed by a virtual camera and a
tiny random Qwen-VL checkpoint built offline.

Nothing in the library imports this package at module level: ``synthetic`` needs scikit-image (a
test-only dependency), and ``tiny`` is used by the ``tiny-model`` command and the tests.
"""
