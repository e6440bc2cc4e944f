"""ZeroGPU wiring (ui/zerogpu.py): off a ZeroGPU Space nothing changes and ``spaces`` is never
imported; on one, the ``vlm`` captioner (and only it) runs inside a ``spaces.GPU`` function made
at build time, called with a name and a path (nothing unpicklable crosses), with the configured
duration.

What this does NOT prove: that a real ZeroGPU Space lends a GPU to it. The ``spaces`` package here
is a stand-in that records how it is used and calls the function in-process, as the real one does
off ZeroGPU (its decorator is documented as "effect-free" there); nothing here can reach a
ZeroGPU Space.
"""
from __future__ import annotations

import pickle
import sys
import types

import pytest

from cinecap.errors import InputError

from tests.support.app_captioners import ScriptedCaptioner
from ui import zerogpu
from ui.backends import Backends
from ui.settings import Settings


class LoadingCaptioner(ScriptedCaptioner):
    """Stands for ``vlm``: a model captioner that loads its weights on first ``loaded``."""

    loads = 0

    @property
    def loaded(self):
        LoadingCaptioner.loads += 1
        return True


@pytest.fixture
def spaces(monkeypatch):
    calls: list = []
    module = types.ModuleType("spaces")

    def gpu(duration=60):
        def decorate(fn):
            def wrapped(*args):
                pickle.dumps(args)  # what crosses to ZeroGPU's worker must pickle
                calls.append((duration, args))
                return pickle.loads(pickle.dumps(fn(*args)))
            return wrapped
        return decorate

    module.GPU = gpu
    monkeypatch.setitem(sys.modules, "spaces", module)
    yield calls
    zerogpu.reset()


def test_off_zerogpu_nothing_changes(small_clip, monkeypatch):
    monkeypatch.delitem(sys.modules, "spaces", raising=False)
    settings = Settings(data_dir="unused")
    backends = Backends(captioners={"vlm": LoadingCaptioner, "anchors": ScriptedCaptioner})
    assert zerogpu.prepare(settings, backends) == []
    assert "spaces" not in sys.modules
    steps = []
    result = zerogpu.caption("vlm", backends.captioner("vlm"), small_clip,
                             lambda f, m: steps.append(m))
    assert result.statements and steps == ["scripted"]  # the captioner's own progress
    assert not zerogpu.lent_per_request(settings, "vlm")


def test_on_zerogpu_only_the_vlm_captioner_runs_inside_spaces_gpu(small_clip, spaces):
    settings = Settings(data_dir="unused", zerogpu=True, zerogpu_duration_s=90)
    LoadingCaptioner.loads = 0
    backends = Backends(captioners={"vlm": LoadingCaptioner, "anchors": ScriptedCaptioner})
    assert zerogpu.prepare(settings, backends) == ["vlm"]
    assert LoadingCaptioner.loads == 1  # loaded at start-up, not inside the GPU call
    steps = []
    result = zerogpu.caption("vlm", backends.captioner("vlm"), small_clip,
                             lambda f, m: steps.append(m))
    assert spaces == [(90, ("vlm", str(small_clip)))]
    assert [s.value for s in result.statements] == ["static", "pan right", "wide shot"]
    assert steps == ["waiting for a GPU for the vlm captioner (ZeroGPU)"]
    zerogpu.caption("anchors", backends.captioner("anchors"), small_clip)
    assert len(spaces) == 1  # the CPU captioner never asks for a GPU
    assert zerogpu.lent_per_request(settings, "vlm")
    assert not zerogpu.lent_per_request(settings, "anchors")


def test_settings_read_zerogpu_from_the_environment(monkeypatch):
    monkeypatch.setenv("SPACES_ZERO_GPU", "true")
    monkeypatch.setenv("CINECAP_ZEROGPU_DURATION_S", "45")
    s = Settings.from_env()
    assert s.zerogpu and s.zerogpu_duration_s == 45
    monkeypatch.setenv("CINECAP_EXAMPLES", "maybe")
    with pytest.raises(InputError, match="CINECAP_EXAMPLES must be true or false, got 'maybe'"):
        Settings.from_env()
