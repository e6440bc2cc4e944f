"""CineCap: cinematographic captioning grounded in spatio-temporal anchors (arXiv 2606.24636).

The library under CineCap Studio: the film vocabulary (``taxonomy``), atomic statements
(``statements``), video input (``video``), evidence from pixels (``anchors``), captioners,
judges, the GRPO reward, training and benchmarks. Heavy dependencies (torch, transformers, cv2)
are imported only by the modules that need them.
"""
__version__ = "0.1.0"
