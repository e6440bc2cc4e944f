"""cinecap.pretrained: the one resolver of the detector files, checked byte for byte, and fetch.

Real copies of the team's files (``shared/models`` beside the checkout, read only) in real temp
folders; downloads from a real ``http.server`` on 127.0.0.1. Nothing leaves the machine.
"""
from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from cinecap import pretrained
from cinecap.errors import ChecksumError, InputError, ModelFetchError, UnavailableError
from cinecap.files import sha256_file
from tests.support.model_files import (MODEL_VARIABLES, FolderServer, copy_model_files,
                                       no_model_files, require_shared, write_changed)

YUNET = pretrained.MODELS["yunet"]


@pytest.fixture
def env(tmp_path, monkeypatch):
    """No detector file anywhere to begin with; the cache and home inside tmp."""
    for k in MODEL_VARIABLES:
        monkeypatch.delenv(k, raising=False)
    values = no_model_files(tmp_path)
    for k, v in values.items():
        monkeypatch.setenv(k, v)
    return values


def test_the_registry_is_the_provenance_table_and_the_teams_files():
    folder = require_shared(*pretrained.MODELS)
    table = (folder / "PROVENANCE.md").read_text(encoding="utf-8")
    for m in pretrained.MODELS.values():
        row = next(line for line in table.splitlines() if line.startswith(f"| `{m.filename}`"))
        assert f"{m.size:,}" in row and m.sha256 in row and m.licence in row, row
        assert m.url.startswith("https://github.com/") and m.url.endswith("/" + m.filename)
        path = folder / m.filename
        assert path.stat().st_size == m.size and sha256_file(path) == m.sha256
    assert pretrained.DEFAULT_NAMES == ("yolox_nano", "yunet")
    assert pretrained.MODELS["movenet"].optional  # needs ai-edge-litert, which we do not install
    # The team's folder is shared/models next to the repository root.
    root = Path(__file__).resolve().parents[1]
    assert pretrained.SHARED_DIR == root.parent / "shared" / "models"


def test_search_order_configured_then_cache_then_beside_the_checkout(env, tmp_path, monkeypatch):
    configured = tmp_path / "configured"
    given = tmp_path / "given"
    cache = pretrained.cache_dir()
    assert cache == tmp_path / "xdg-cache" / "cinecap" / "models"
    shared = tmp_path / "checkout-side" / "shared" / "models"
    monkeypatch.setattr(pretrained, "SHARED_DIR", shared)
    monkeypatch.setenv("CINECAP_MODELS_DIR", str(configured))
    monkeypatch.delenv("CINECAP_MODELS_SHARED")
    for folder in (configured, given, cache, shared):
        copy_model_files(folder, "yunet")

    assert pretrained.resolve("yunet") == configured / YUNET.filename
    assert pretrained.resolve("yunet", given) == given / YUNET.filename  # the caller's path wins
    assert pretrained.resolve("yunet", given / YUNET.filename) == given / YUNET.filename
    (configured / YUNET.filename).unlink()
    assert pretrained.resolve("yunet") == cache / YUNET.filename
    (cache / YUNET.filename).unlink()
    assert pretrained.resolve("yunet") == shared / YUNET.filename
    monkeypatch.setenv("CINECAP_MODELS_SHARED", "0")  # the tests' switch for "missing"
    assert pretrained.resolve("yunet") is None
    monkeypatch.setenv("CINECAP_MODELS_SHARED", "1")
    (shared / YUNET.filename).unlink()
    assert pretrained.resolve("yunet") is None
    assert pretrained.search_path("yunet") == [configured / YUNET.filename,
                                               cache / YUNET.filename, shared / YUNET.filename]


def test_the_cache_defaults_to_home(env, tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert pretrained.cache_dir() == tmp_path / "home" / ".cache" / "cinecap" / "models"


def test_a_file_with_one_byte_changed_is_refused_with_what_to_do(env, tmp_path, monkeypatch):
    good = copy_model_files(tmp_path / "good", "yunet") / YUNET.filename
    bad = write_changed(pretrained.cache_dir() / YUNET.filename, good)
    found = sha256_file(bad)
    monkeypatch.setattr(pretrained, "SHARED_DIR", tmp_path / "good")
    monkeypatch.setenv("CINECAP_MODELS_SHARED", "1")  # a good copy later in the order
    with pytest.raises(ChecksumError) as e:
        pretrained.resolve("yunet")
    msg = e.value.message
    assert YUNET.filename in msg and str(bad.parent) in msg
    assert YUNET.sha256 in msg and found in msg
    assert "cinecap models fetch yunet" in msg
    assert isinstance(e.value, UnavailableError) and e.value.exit_code == 4
    # Never silently skipped for the good copy further on, and reported the same each time.
    with pytest.raises(ChecksumError):
        pretrained.resolve("yunet")
    assert pretrained.state("yunet") == (None, "mismatch")
    assert pretrained.missing() == ["yolox_nano", "yunet"]
    line = pretrained.status_line()
    assert "face_detection_yunet_2023mar.onnx fails its checksum" in line
    assert str(tmp_path) not in line  # shown to visitors: no server path


def test_each_file_is_hashed_once_per_process_until_it_changes(env, tmp_path, monkeypatch):
    calls = []

    def counting(path, *a, **kw):
        calls.append(str(path))
        return sha256_file(path, *a, **kw)

    monkeypatch.setattr(pretrained, "sha256_file", counting)
    folder = copy_model_files(tmp_path / "m", "yunet")
    for _ in range(3):
        assert pretrained.resolve("yunet", folder) == folder / YUNET.filename
    assert len(calls) == 1
    write_changed(folder / YUNET.filename, folder / YUNET.filename)  # rewritten in place
    with pytest.raises(ChecksumError):
        pretrained.resolve("yunet", folder)
    assert len(calls) == 2


def test_unknown_names_and_urls_are_input_errors(env):
    with pytest.raises(InputError, match="unknown model file 'yunett'.*Did you mean 'yunet'"):
        pretrained.resolve("yunett")
    with pytest.raises(InputError, match="only http"):
        pretrained.fetch("yunet", url="file:///etc/passwd")


def test_missing_and_the_status_line(env, tmp_path, monkeypatch):
    assert pretrained.missing() == ["yolox_nano", "yunet"]
    line = pretrained.status_line()
    assert line == ("Detector files: yolox_nano.onnx and face_detection_yunet_2023mar.onnx are "
                    "missing; the analysis runs without them. Get them with "
                    "`cinecap models fetch`.")
    copy_model_files(tmp_path / "no-models", "yolox_nano")  # the configured folder
    assert pretrained.missing() == ["yunet"]
    assert pretrained.status_line().startswith(
        "Detector file: face_detection_yunet_2023mar.onnx is missing; the analysis runs "
        "without it.")
    copy_model_files(tmp_path / "no-models", "yunet")
    assert pretrained.missing() == [] and pretrained.status_line() is None
    assert pretrained.missing(("movenet",)) == ["movenet"]  # optional: asked for by name only


def test_fetch_from_a_local_mirror_verifies_and_reports_progress(env, tmp_path, monkeypatch):
    served = copy_model_files(tmp_path / "served", "yunet", "yolox_nano")
    seen: list[tuple[float, str]] = []
    with FolderServer(served) as srv:
        monkeypatch.setenv("CINECAP_MODELS_URL_BASE", srv.url + "/")
        path = pretrained.fetch("yolox_nano", progress=lambda f, m: seen.append((f, m)))
        assert srv.requests == ["/yolox_nano.onnx"]
        # An explicit URL wins over the mirror.
        other = pretrained.fetch("yunet", dest=tmp_path / "elsewhere",
                                 url=f"{srv.url}/{YUNET.filename}")
    assert path == pretrained.cache_dir() / "yolox_nano.onnx"
    assert sha256_file(path) == pretrained.MODELS["yolox_nano"].sha256
    assert other == tmp_path / "elsewhere" / YUNET.filename and sha256_file(other) == YUNET.sha256
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert sorted(p.name for p in path.parent.iterdir()) == ["yolox_nano.onnx"]  # no temp left
    fractions = [f for f, _ in seen]
    assert len(fractions) >= 5 and fractions == sorted(fractions) and fractions[-1] == 1.0
    assert "verified" in seen[-1][1] and all("yolox_nano.onnx" in m for _, m in seen)
    assert pretrained.resolve("yolox_nano") == path
    # Fetching again keeps the verified copy and asks no server.
    assert pretrained.fetch("yolox_nano", url="http://127.0.0.1:9/never") == path


def test_a_mirror_serving_wrong_bytes_is_refused_and_nothing_is_kept(env, tmp_path):
    good = copy_model_files(tmp_path / "good", "yunet", "yolox_nano")
    served = tmp_path / "served"
    write_changed(served / YUNET.filename, good / YUNET.filename, at=10)
    (served / "yolox_nano.onnx").write_bytes((good / YUNET.filename).read_bytes())  # too short
    (served / "long").mkdir()
    (served / "long" / YUNET.filename).write_bytes(  # too long: stopped before it fills a disk
        (good / "yolox_nano.onnx").read_bytes())
    with FolderServer(served) as srv:
        for name, url in (("yunet", f"{srv.url}/{YUNET.filename}"),
                          ("yolox_nano", f"{srv.url}/yolox_nano.onnx"),
                          ("yunet", f"{srv.url}/long/{YUNET.filename}")):
            with pytest.raises(ChecksumError) as e:
                pretrained.fetch(name, url=url)
            msg = e.value.message
            assert pretrained.MODELS[name].filename in msg and "refused" in msg
            assert pretrained.MODELS[name].sha256 in msg
    cache = pretrained.cache_dir()
    assert not cache.exists() or list(cache.iterdir()) == []
    assert pretrained.resolve("yunet") is None


def test_fetch_replaces_a_cached_copy_that_fails_its_checksum(env, tmp_path):
    good = copy_model_files(tmp_path / "served", "yunet")
    write_changed(pretrained.cache_dir() / YUNET.filename, good / YUNET.filename)
    with FolderServer(good) as srv:
        path = pretrained.fetch("yunet", url=f"{srv.url}/{YUNET.filename}")
    assert sha256_file(path) == YUNET.sha256 and pretrained.resolve("yunet") == path


def test_a_404_or_no_server_is_one_clear_error(env, tmp_path):
    (tmp_path / "served").mkdir()
    with FolderServer(tmp_path / "served") as srv:
        with pytest.raises(ModelFetchError) as e:
            pretrained.fetch("yunet", url=f"{srv.url}/{YUNET.filename}")
        port = srv.httpd.server_address[1]
    msg = e.value.message
    assert re.fullmatch(rf"could not download model file {re.escape(YUNET.filename)} from "
                        rf"http://127\.0\.0\.1:{port}/\S+: HTTP 404 .+", msg), msg
    assert e.value.exit_code == 4 and "\n" not in msg
    # The 404's answer (which holds the socket) is closed, not left to the garbage collector,
    # whose "unclosed socket" warning lands in whatever code runs then (one did in a CI run).
    assert e.value.__cause__.fp.closed
    with pytest.raises(ModelFetchError, match="could not download model file .*refused"):
        pretrained.fetch("yunet", url=f"http://127.0.0.1:{port}/{YUNET.filename}")  # closed now
    cache = pretrained.cache_dir()
    assert not cache.exists() or list(cache.iterdir()) == []
