"""Spatio-temporal anchors: evidence from pixels on the CPU (optional small detector weights).

``analyze(path, progress=None, config=None, detectors=None) -> Analysis``; ``Analysis.to_dict()`` is the
``python -m cinecap analyze --json`` contract. Modules: cuts (PySceneDetect), motion (tracked
background → camera-movement intervals), subject (Haar faces → scale, orientation), detectors
(YOLOX-Nano and YuNet, optional model files), subjects (their tracks → shot size, composition,
orientation), focus (depth of
field, rack focus), angle (dutch, high/low from lines), composition (subject position), overlays
(evidence images a person can look at).
"""
from cinecap.anchors.analysis import AnchorsConfig, Analysis, Finding, analyze

__all__ = ["AnchorsConfig", "Analysis", "Finding", "analyze"]
