"""Helpers for tests, benchmarks and offline demos: synthetic clips filmed by a virtual camera, a
tiny random Qwen-VL checkpoint built offline, clips written on the fly (``clips``), small real
captioners (``captioners``) and a scripted OpenAI-compatible server on loopback
(``openai_server``) — the one place both the tests and the benchmarks take them from.

Nothing in the library imports this package at module level: ``synthetic`` needs scikit-image (a
test-only dependency), and ``tiny`` is used by the ``tiny-model`` command and the tests.
"""
