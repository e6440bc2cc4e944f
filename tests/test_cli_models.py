"""``cinecap models [--json]``, ``cinecap models fetch`` and the anchors line of ``cinecap
captioners`` where detector files are missing: over the command line, with HOME and
XDG_CACHE_HOME in tmp (nothing touches the real cache), downloads from a loopback server."""
from __future__ import annotations

from cinecap import pretrained
from cinecap.files import sha256_file
from tests.support.cli import cli
from tests.support.model_files import (MODEL_VARIABLES, FolderServer, copy_model_files,
                                       no_model_files, write_changed)

YUNET, YOLOX = pretrained.MODELS["yunet"], pretrained.MODELS["yolox_nano"]


def test_models_json_says_where_each_file_is_and_that_it_is_verified(tmp_path):
    env = no_model_files(tmp_path)
    copy_model_files(tmp_path / "no-models", "yolox_nano")
    write_changed(tmp_path / "xdg-cache" / "cinecap" / "models" / YUNET.filename,
                  tmp_path / "no-models" / "yolox_nano.onnx")
    rows = {r["name"]: r for r in cli("models", "--json", env=env, unset=MODEL_VARIABLES,
                                      subprocess_run=True).json()}
    assert list(rows) == ["yolox_nano", "yunet", "movenet"]
    assert rows["yolox_nano"]["state"] == "found" and rows["yolox_nano"]["verified"]
    assert rows["yolox_nano"]["path"] == str(tmp_path / "no-models" / "yolox_nano.onnx")
    assert rows["yunet"]["state"] == "mismatch" and not rows["yunet"]["verified"]
    assert "cinecap models fetch yunet" in rows["yunet"]["error"]
    assert rows["movenet"]["state"] == "missing" and rows["movenet"]["optional"]
    assert rows["movenet"]["sha256"] == pretrained.MODELS["movenet"].sha256
    assert rows["yunet"]["searched"][1] == str(
        tmp_path / "xdg-cache" / "cinecap" / "models" / YUNET.filename)

    text = cli("models", env=env, unset=MODEL_VARIABLES)
    assert text.returncode == 0
    assert f"found, SHA-256 verified: {tmp_path / 'no-models' / 'yolox_nano.onnx'}" in text.stdout
    assert "refused: model file face_detection_yunet_2023mar.onnx" in text.stdout
    assert "missing (optional): get it with `cinecap models fetch movenet`" in text.stdout
    assert "fails its checksum" in text.stdout  # the status line


def test_models_fetch_downloads_the_default_files_with_progress(tmp_path):
    env = no_model_files(tmp_path)
    served = copy_model_files(tmp_path / "served", "yolox_nano", "yunet")
    with FolderServer(served) as srv:
        r = cli("models", "fetch", env={**env, "CINECAP_MODELS_URL_BASE": srv.url},
                unset=MODEL_VARIABLES, subprocess_run=True)
        assert sorted(srv.requests) == ["/face_detection_yunet_2023mar.onnx", "/yolox_nano.onnx"]
    assert r.returncode == 0, r.stderr
    cache = tmp_path / "xdg-cache" / "cinecap" / "models"
    assert sorted(p.name for p in cache.iterdir()) == sorted([YOLOX.filename, YUNET.filename])
    assert sha256_file(cache / YOLOX.filename) == YOLOX.sha256
    assert f"yunet: SHA-256 verified: {cache / YUNET.filename}" in r.stdout
    assert "[100.0%] yolox_nano.onnx: downloaded, checksum verified" in r.stderr
    assert "Traceback" not in r.stderr and "error:" not in r.stderr
    # Found now: a second run downloads nothing (no server is up).
    again = cli("models", "fetch", "yunet", env={**env, "CINECAP_MODELS_URL_BASE":
                                                 "http://127.0.0.1:9"}, unset=MODEL_VARIABLES)
    assert again.returncode == 0 and "yunet: already there, SHA-256 verified" in again.stdout


def test_models_fetch_refuses_wrong_bytes_and_reports_a_404_with_exit_4(tmp_path):
    env = no_model_files(tmp_path)
    good = copy_model_files(tmp_path / "good", "yunet")
    served = tmp_path / "served"
    write_changed(served / YUNET.filename, good / YUNET.filename)  # yolox_nano: not there (404)
    with FolderServer(served) as srv:
        r = cli("models", "fetch", "yolox_nano", "yunet",
                env={**env, "CINECAP_MODELS_URL_BASE": srv.url}, unset=MODEL_VARIABLES,
                subprocess_run=True)
    assert r.returncode == 4
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 2 and "Traceback" not in r.stderr
    assert "could not download model file yolox_nano.onnx" in errors[0] and "404" in errors[0]
    assert "face_detection_yunet_2023mar.onnx" in errors[1] and "refused" in errors[1]
    cache = tmp_path / "xdg-cache" / "cinecap" / "models"
    assert not cache.exists() or list(cache.iterdir()) == []


def test_models_fetch_an_unknown_name_is_a_usage_error(tmp_path):
    r = cli("models", "fetch", "yolo", env=no_model_files(tmp_path), unset=MODEL_VARIABLES)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().startswith("error: unknown model file 'yolo'.")
    assert r.stderr.strip().endswith("Known: yolox_nano, yunet, movenet")
    assert len(r.stderr.strip().splitlines()) == 1


def test_captioners_says_which_detector_files_are_missing_and_how_to_fetch(tmp_path):
    env = no_model_files(tmp_path)
    r = cli("captioners", env=env, unset=MODEL_VARIABLES, subprocess_run=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    anchors = lines[lines.index(next(x for x in lines if x.startswith("anchors"))) + 1]
    assert anchors.strip() == ("available; Detector files: yolox_nano.onnx and "
                               "face_detection_yunet_2023mar.onnx are missing; the analysis runs "
                               "without them. Get them with `cinecap models fetch`.")
    rows = {x["name"]: x for x in cli("captioners", "--json", env=env,
                                      unset=MODEL_VARIABLES).json()}
    assert rows["anchors"]["available"] and "cinecap models fetch" in rows["anchors"]["reason"]

    copy_model_files(tmp_path / "no-models", "yolox_nano", "yunet")
    rows = {x["name"]: x for x in cli("captioners", "--json", env=env,
                                      unset=MODEL_VARIABLES).json()}
    assert rows["anchors"]["available"] and rows["anchors"]["reason"] == ""
