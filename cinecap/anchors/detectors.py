"""Pretrained subject detectors: YOLOX-Nano (people, animals, vehicles; onnxruntime) and YuNet
(faces with five landmarks; OpenCV's ``cv2.FaceDetectorYN``).

Both are optional. The model files never enter the repository (issue 22): ``find_model`` looks
for them where the project keeps them, ``load_detectors`` loads each once per process, and the
analysis takes the result as an optional input — without it, it runs on the Haar cascades and
HOG as before and says what is missing. The contracts (letterbox, channel order, output rows,
grid decode) are those of ``../shared/models/PROVENANCE.md``.
"""
from __future__ import annotations

import functools
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

#: COCO-80 in the model's class order (person = 0).
COCO = ("person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat",
        "traffic light", "fire hydrant", "stop sign", "parking meter", "bench", "bird", "cat",
        "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe", "backpack",
        "umbrella", "handbag", "tie", "suitcase", "frisbee", "skis", "snowboard", "sports ball",
        "kite", "baseball bat", "baseball glove", "skateboard", "surfboard", "tennis racket",
        "bottle", "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple",
        "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair",
        "couch", "potted plant", "bed", "dining table", "toilet", "tv", "laptop", "mouse",
        "remote", "keyboard", "cell phone", "microwave", "oven", "toaster", "sink",
        "refrigerator", "book", "clock", "vase", "scissors", "teddy bear", "hair drier",
        "toothbrush")
PEOPLE = {"person"}
ANIMALS = {"bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe"}
VEHICLES = {"bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat"}
#: What can be a shot's subject; props (a cup, a chair) are not.
SUBJECT_CLASSES = PEOPLE | ANIMALS | VEHICLES

#: The files the detectors need, under the names ``cinecap.pretrained`` resolves.
MODEL_FILES = {"yolox_nano": "yolox_nano.onnx", "yunet": "face_detection_yunet_2023mar.onnx"}
HOW_TO_GET = "get it with `cinecap models fetch`"


def kind_of(label: str) -> str:
    """person / animal / vehicle for a subject class; object for a prop (a bottle, a cup), which
    is a shot's subject only where no person, animal or vehicle is in view."""
    return ("person" if label in PEOPLE else "animal" if label in ANIMALS
            else "vehicle" if label in VEHICLES else "object")


@dataclass
class Detection:
    """One box, in frame fractions (x, y = top-left)."""

    label: str
    x: float
    y: float
    w: float
    h: float
    score: float
    source: str = "yolox"  # "face": a person stood in for by a face YOLOX saw no body around

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    @property
    def box(self) -> tuple[float, float, float, float]:
        return (self.x, self.y, self.w, self.h)

    def to_dict(self) -> dict:
        return {"label": self.label, "box": [round(v, 4) for v in self.box],
                "score": round(self.score, 3), "source": self.source}


@dataclass
class FaceMark:
    """One YuNet face: box and five landmarks (frame fractions), and its score.

    Landmarks as YuNet orders them: the subject's right eye (on the image's left for a frontal
    face), left eye, nose tip, right and left mouth corners."""

    x: float
    y: float
    w: float
    h: float
    score: float
    landmarks: tuple[tuple[float, float], ...] = ()

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def yaw(self) -> float:
        """Where the nose tip sits between the eyes: 0 midway, ±1 over one eye, beyond ±1 outside
        them (a turned head). Positive: the nose is towards the image's right — the subject looks
        towards the image's right (its own left)."""
        (rx, _), (lx, _), (nx, _) = self.landmarks[:3]
        mid, half = (rx + lx) / 2, abs(lx - rx) / 2
        return float((nx - mid) / max(half, 1e-6))

    def to_dict(self) -> dict:
        return {"box": [round(v, 4) for v in (self.x, self.y, self.w, self.h)],
                "score": round(self.score, 3), "yaw": round(self.yaw, 3),
                "landmarks": [[round(a, 4), round(b, 4)] for a, b in self.landmarks]}


@dataclass(frozen=True)
class DetectorConfig:
    """Thresholds of the two detectors."""

    min_score: float = field(default=0.35, metadata={
        "help": "YOLOX box score (objectness x class) a subject must reach"})
    nms: float = field(default=0.45, metadata={"help": "YOLOX class-wise NMS overlap"})
    face_score: float = field(default=0.7, metadata={
        "help": "YuNet face score (lower gives false faces on motion-blurred frames)"})
    face_side: int = field(default=416, metadata={
        "help": "YuNet sees the frame at this long side at least (small faces need pixels)"})
    face_gate: float = field(default=0.2, metadata={
        "help": "YuNet looks only at frames where YOLOX's person score reaches this somewhere "
                "(below min_score: a person it nearly sees counts); every face found on the dev "
                "and example clips came with >= 0.72, frames without a person box peak <= 0.30 "
                "(docs/anchors.md); 0 runs YuNet on every checked frame"})


#: The input's declared shape [1, 3, 416, 416] as the file encodes it (protobuf dims).
_INPUT_DIMS = bytes([0x0A, 0x02, 0x08, 0x01, 0x0A, 0x02, 0x08, 0x03,
                     0x0A, 0x03, 0x08, 0xA0, 0x03, 0x0A, 0x03, 0x08, 0xA0, 0x03])


def _padded(n: int, most: int) -> int:
    """``n`` px rounded up to YOLOX's coarsest stride (32), within 128..``most``."""
    return min(most, max(128, -(-n // 32) * 32))


def _input_dims(h: int, w: int) -> bytes:
    """``_INPUT_DIMS`` declaring h x w instead (128..416: two-byte varints, so the message
    keeps its length)."""
    assert 128 <= h <= 416 and 128 <= w <= 416
    return _INPUT_DIMS[:11] + bytes([0x80 | (h & 0x7F), h >> 7, 0x0A, 0x03, 0x08,
                                     0x80 | (w & 0x7F), w >> 7])


class ObjectDetector:
    """YOLOX-Nano on onnxruntime. ``detect(bgr)`` → boxes of any COCO class (``classes``: only
    those), strongest first; props count too, as what fills the frame when no subject does."""

    size = 416

    def __init__(self, path: Path):
        self.path = Path(path)
        self._bytes = self.path.read_bytes()
        self.session = self._session(self.size, self.size)  # fail here, at load time
        self.input = self.session.get_inputs()[0].name
        self._sessions: dict[tuple[int, int], tuple] = {}
        self._lock = threading.Lock()

    def _session(self, h: int, w: int):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        # One thread, no spinning: the analysis runs beside the app's other work on few cores,
        # and a spinning pool costs CPU for nothing between keyframes.
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        data = self._bytes
        if (h, w) != (self.size, self.size):
            # The network is fully convolutional: only the declared input size fixes 416 x 416
            # (the export's Reshapes are -1). Declaring the letterboxed size instead spares the
            # grey padding (over half of a 2.35:1 frame's input); the declared output size then
            # no longer matches, which onnxruntime only warns about, so warnings are off here.
            data = data.replace(_INPUT_DIMS, _input_dims(h, w), 1)
            opts.log_severity_level = 3
        return ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])

    def _for_shape(self, h: int, w: int):
        """(session, grid, stride) for an input of ``h`` x ``w`` (multiples of 32, at most 416);
        the full 416 x 416 session where the file's input declaration is not the expected one."""
        with self._lock:
            got = self._sessions.get((h, w))
            if got is None:
                sess = self.session
                if _INPUT_DIMS in self._bytes and (h, w) != (self.size, self.size):
                    try:
                        sess = self._session(h, w)
                    except Exception as e:  # pragma: no cover - an export with fixed reshapes
                        log.warning("YOLOX at %dx%d failed (%s); using 416x416", w, h, e)
                        h = w = self.size
                else:
                    h = w = self.size
                grids, strides = [], []
                for s in (8, 16, 32):
                    gy, gx = np.mgrid[0:h // s, 0:w // s]
                    grids.append(np.stack([gx.ravel(), gy.ravel()], 1))
                    strides.append(np.full((gx.size, 1), s))
                got = (sess, (h, w), np.concatenate(grids).astype(np.float32),
                       np.concatenate(strides).astype(np.float32))
                self._sessions[(h, w)] = got
            return got

    def raw(self, bgr: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
        """The network's rows for ``bgr`` (one per anchor: box offsets, objectness, 80 class
        scores), the letterbox's scale and each anchor's grid cell and stride."""
        import cv2

        h, w = bgr.shape[:2]
        r = min(self.size / h, self.size / w)
        nw, nh = int(round(w * r)), int(round(h * r))
        # The letterbox is cut to the image rounded up to the coarsest stride (32).
        sess, (ph, pw), grid, stride = self._for_shape(_padded(nh, self.size), _padded(nw, self.size))
        pad = np.full((ph, pw, 3), 114, np.uint8)
        pad[:nh, :nw] = cv2.resize(bgr, (nw, nh), interpolation=cv2.INTER_LINEAR)
        blob = pad.transpose(2, 0, 1)[None].astype(np.float32)
        return sess.run(None, {self.input: blob})[0][0], r, grid, stride

    def detect(self, bgr: np.ndarray, cfg: DetectorConfig,
               classes: set[str] | None = None) -> list[Detection]:
        return self.detect_with_peak(bgr, cfg, classes)[0]

    def detect_with_peak(self, bgr: np.ndarray, cfg: DetectorConfig,
                         classes: set[str] | None = None) -> tuple[list[Detection], float]:
        """``detect``, and the highest person score anywhere in the frame (over every anchor,
        before the threshold): whether a face search there can find anything."""
        import cv2

        h, w = bgr.shape[:2]
        out, r, grid, stride = self.raw(bgr)
        cls = np.argmax(out[:, 5:], 1)
        score = out[:, 4] * out[np.arange(len(out)), 5 + cls]
        person = float((out[:, 4] * out[:, 5 + COCO.index("person")]).max())
        keep = np.flatnonzero(score >= cfg.min_score)
        if not len(keep):
            return [], person
        # Boxes only for the anchors kept (element-wise: the same numbers as for all of them).
        out, grid, stride = out[keep], grid[keep], stride[keep]
        xy = (out[:, :2] + grid) * stride
        wh = np.exp(np.minimum(out[:, 2:4], 10.0)) * stride
        xy, wh, cls, score = xy / r, wh / r, cls[keep], score[keep]
        boxes = np.concatenate([xy - wh / 2, wh], 1)
        idx = cv2.dnn.NMSBoxesBatched(boxes.tolist(), score.tolist(), cls.tolist(),
                                      cfg.min_score, cfg.nms)
        dets = []
        for i in np.ravel(idx).tolist() if len(idx) else []:
            label = COCO[int(cls[i])]
            if classes is not None and label not in classes:
                continue
            x, y, bw, bh = (float(v) for v in boxes[i])  # plain floats: they end up in JSON
            x0, y0 = max(0.0, x), max(0.0, y)
            x1, y1 = min(float(w), x + bw), min(float(h), y + bh)
            if x1 - x0 < 2 or y1 - y0 < 2:
                continue
            dets.append(Detection(label, x0 / w, y0 / h, (x1 - x0) / w, (y1 - y0) / h,
                                  float(score[i])))
        return sorted(dets, key=lambda d: -d.score), person


class FaceDetector:
    """YuNet through ``cv2.FaceDetectorYN``; one instance per thread (it keeps its input size)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        self._make()  # fail here, at load time, on a file OpenCV cannot read

    def _make(self, role: str = "frames"):
        """This thread's detector for whole frames, or for head crops (``role`` "heads"): a new
        input shape makes OpenCV set the network up again (~2 ms), so the frames' detector
        keeps the clip's one shape while the crops' sizes vary on their own."""
        import cv2

        det = getattr(self._local, role, None)
        if det is None:
            det = cv2.FaceDetectorYN.create(str(self.path), "", (320, 320), 0.5, 0.3, 50)
            setattr(self._local, role, det)
        return det

    def detect(self, bgr: np.ndarray, cfg: DetectorConfig) -> list[FaceMark]:
        import cv2

        h, w = bgr.shape[:2]
        k = max(1.0, cfg.face_side / max(h, w))
        img = bgr if k == 1.0 else cv2.resize(bgr, (int(round(w * k)), int(round(h * k))),
                                              interpolation=cv2.INTER_LINEAR)
        det = self._make()
        det.setInputSize((img.shape[1], img.shape[0]))
        det.setScoreThreshold(cfg.face_score)
        _, rows = det.detect(img)
        if rows is None:
            return []
        H, W = img.shape[:2]
        out = []
        for r in rows:
            x, y, bw, bh = (float(v) for v in r[:4])
            marks = tuple((float(r[4 + 2 * j]) / W, float(r[5 + 2 * j]) / H) for j in range(5))
            x0, y0 = max(0.0, x), max(0.0, y)
            out.append(FaceMark(x0 / W, y0 / H, (min(W, x + bw) - x0) / W,
                                (min(H, y + bh) - y0) / H, float(r[14]), marks))
        return sorted(out, key=lambda f: -f.score)

    def detect_heads(self, bgr: np.ndarray, people: list[Detection], found: list[FaceMark],
                     cfg: DetectorConfig, most: int = 2) -> list[FaceMark]:
        """Faces searched again in the head region of up to ``most`` people whose face was not
        found on the whole frame and would be small there: the region is enlarged first (YuNet
        misses faces of under ~15 px). Returned in whole-frame fractions."""
        import cv2

        h, w = bgr.shape[:2]
        out: list[FaceMark] = []
        for d in [p for p in people if p.label == "person"][:most]:
            if any(d.x <= f.cx <= d.x + d.w and d.y - 0.1 * d.h <= f.y <= d.y + 0.5 * d.h
                   for f in found):
                continue
            x0, x1 = max(0.0, d.x - 0.1 * d.w), min(1.0, d.x + 1.1 * d.w)
            y0, y1 = max(0.0, d.y - 0.05 * d.h), min(1.0, d.y + 0.45 * d.h)
            px0, px1, py0, py1 = int(x0 * w), int(np.ceil(x1 * w)), int(y0 * h), int(np.ceil(y1 * h))
            if px1 - px0 < 8 or py1 - py0 < 8:
                continue
            k = min(4.0, 160.0 / max(px1 - px0, py1 - py0))
            if k <= 1.2:
                continue  # large enough: the whole-frame search already saw it
            crop = cv2.resize(bgr[py0:py1, px0:px1], None, fx=k, fy=k,
                              interpolation=cv2.INTER_CUBIC)
            det = self._make("heads")
            det.setInputSize((crop.shape[1], crop.shape[0]))
            det.setScoreThreshold(cfg.face_score)
            _, rows = det.detect(crop)
            if rows is None:
                continue
            r = max(rows, key=lambda r: r[14])
            cw, ch = (px1 - px0) / w, (py1 - py0) / h
            sx, sy = cw / crop.shape[1], ch / crop.shape[0]
            marks = tuple((px0 / w + float(r[4 + 2 * j]) * sx, py0 / h + float(r[5 + 2 * j]) * sy)
                          for j in range(5))
            out.append(FaceMark(px0 / w + float(r[0]) * sx, py0 / h + float(r[1]) * sy,
                                float(r[2]) * sx, float(r[3]) * sy, float(r[14]), marks))
        return out


@dataclass
class Detectors:
    """What the analysis can use: either detector may be None; ``missing`` says which files were
    not found and how to get them, one line each."""

    objects: ObjectDetector | None = None
    faces: FaceDetector | None = None
    missing: list[str] = field(default_factory=list)
    config: DetectorConfig = field(default_factory=DetectorConfig)

    @property
    def any(self) -> bool:
        return self.objects is not None or self.faces is not None

    def names(self) -> dict:
        return {"objects": self.objects.path.name if self.objects else None,
                "faces": self.faces.path.name if self.faces else None,
                "missing": list(self.missing)}


@functools.lru_cache(maxsize=16)
def _fingerprint(path: str, size: int, mtime: float) -> str:
    from cinecap.files import sha256_file

    return sha256_file(Path(path))


def model_fingerprints(d: Detectors) -> dict[str, str | None]:
    """Each model file's SHA-256 (None where it is missing): what a caption made with these
    detectors depends on."""
    out: dict[str, str | None] = {}
    for name, det in (("yolox_nano", d.objects), ("yunet", d.faces)):
        if det is None:
            out[name] = None
            continue
        st = det.path.stat()
        out[name] = _fingerprint(str(det.path), st.st_size, st.st_mtime)
    return out


def find_model(name: str) -> Path | None:
    """The verified file for ``name`` (a key of MODEL_FILES) where ``cinecap.pretrained`` finds
    it (a configured path, the user's cache, the team's copy beside the checkout), else None;
    a file whose checksum does not match raises ChecksumError."""
    from cinecap import pretrained

    return pretrained.resolve(name)


@functools.lru_cache(maxsize=8)
def _object_detector(path: str) -> ObjectDetector:
    return ObjectDetector(Path(path))


@functools.lru_cache(maxsize=8)
def _face_detector(path: str) -> FaceDetector:
    return FaceDetector(Path(path))


def load_detectors(yolox: str | Path | None = "auto", yunet: str | Path | None = "auto",
                   config: DetectorConfig | None = None) -> Detectors:
    """The detectors, each loaded once per process. ``"auto"`` finds the file (``find_model``);
    None leaves that detector out (on purpose: not reported missing); a path that is not a file
    is reported missing; a file whose SHA-256 is not the official one is refused (reported with
    ``cinecap.pretrained``'s message). A file the runtime cannot load is reported too, never
    raised: the analysis then runs without that detector."""
    out = Detectors(config=config or DetectorConfig())
    for name, given, loader, slot in (("yolox_nano", yolox, _object_detector, "objects"),
                                      ("yunet", yunet, _face_detector, "faces")):
        if given is None:
            continue
        from cinecap import pretrained
        from cinecap.errors import ChecksumError

        try:
            path = find_model(name) if given == "auto" else Path(given)
            if path is not None and path.is_file():
                pretrained.verify(name, path)
        except ChecksumError as e:  # not the official bytes: refused, by name
            out.missing.append(str(e))
            continue
        if path is None or not Path(path).is_file():
            out.missing.append(f"{MODEL_FILES[name]} not found ({HOW_TO_GET})")
            continue
        try:
            setattr(out, slot, loader(str(Path(path).resolve())))
        except ImportError as e:
            out.missing.append(f"{MODEL_FILES[name]}: its runtime is not installed ({e.name}); "
                               f"pip install -r requirements.txt")
        except Exception as e:  # a damaged file: say so by name, analyse without it
            log.warning("could not load %s: %s", path, e)
            out.missing.append(f"{MODEL_FILES[name]} could not be loaded ({str(e)[:120]}); "
                               f"{HOW_TO_GET}")
    return out


__all__ = ["ANIMALS", "COCO", "Detection", "DetectorConfig", "Detectors", "FaceDetector",
           "FaceMark", "MODEL_FILES", "ObjectDetector", "PEOPLE", "SUBJECT_CLASSES", "VEHICLES",
           "find_model", "kind_of", "load_detectors", "model_fingerprints"]
