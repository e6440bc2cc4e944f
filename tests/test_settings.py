"""The app's settings (ui/settings.py): one declaration per setting gives the parsing, the checks
and the one-line error every entry point prints; settings are read-only once made."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cinecap.errors import InputError
from ui.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def test_text_becomes_each_fields_type_and_explicit_values_win(monkeypatch, tmp_path):
    monkeypatch.setenv("CINECAP_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CINECAP_MAX_UPLOAD_MB", "25")
    monkeypatch.setenv("CINECAP_MAX_PIXEL_RATE", "2.5e8")
    monkeypatch.setenv("CINECAP_EXAMPLES", "off")
    monkeypatch.setenv("CINECAP_CAPTIONERS", " anchors, ,vlm ")
    monkeypatch.setenv("CINECAP_ACCELERATE_PROCESSES", "0")
    monkeypatch.setenv("CINECAP_ACCELERATE_CONFIG", "configs/accelerate/ddp.yaml")
    monkeypatch.setenv("CINECAP_MAX_DURATION_S", "  ")  # blank: the default
    s = Settings.from_env()
    assert (s.max_upload_mb, s.max_pixel_rate, s.examples) == (25, 2.5e8, False)
    assert s.captioners == ("anchors", "vlm") and s.accelerate_processes is None
    assert s.accelerate_config == Path("configs/accelerate/ddp.yaml")
    assert s.max_duration_s == 600.0 and s.data_dir == tmp_path
    given = Settings.from_env(max_upload_mb=7, data_dir=tmp_path / "other")
    assert given.max_upload_mb == 7 and str(tmp_path / "other") in given.database_url
    monkeypatch.setenv("SPACE_ID", "me/space")
    monkeypatch.setenv("OAUTH_CLIENT_ID", "x")
    assert Settings.from_env().auth == "oauth"  # a Space with hf_oauth signs in with it
    monkeypatch.setenv("CINECAP_AUTH", "none")
    assert Settings.from_env().auth == "none"


@pytest.mark.parametrize("var, value, message", [
    ("CINECAP_MAX_UPLOAD_MB", "abc", "CINECAP_MAX_UPLOAD_MB must be an integer, got 'abc'"),
    ("CINECAP_MAX_UPLOAD_MB", "0", "max_upload_mb (CINECAP_MAX_UPLOAD_MB) must be positive, got 0"),
    ("CINECAP_LOGIN_WINDOW_S", "soon", "CINECAP_LOGIN_WINDOW_S must be a number, got 'soon'"),
    ("CINECAP_CAPTIONS_PER_HOUR", "-1", "(CINECAP_CAPTIONS_PER_HOUR) must be 0 (no limit) or more"),
    ("CINECAP_WORKER", "cron", "worker (CINECAP_WORKER) must be one of auto, external, got 'cron'"),
    ("CINECAP_OAUTH_ROLES", "al:god", "(CINECAP_OAUTH_ROLES) gives a role that is not one of"),
    ("CINECAP_ACCELERATE_PROCESSES", "-2", "(CINECAP_ACCELERATE_PROCESSES) must be 1 or more"),
    ("SPACES_ZERO_GPU", "maybe", "SPACES_ZERO_GPU must be true or false, got 'maybe'"),
])
def test_a_bad_value_is_an_input_error_naming_the_variable_and_the_value(monkeypatch, var, value,
                                                                         message):
    monkeypatch.setenv(var, value)
    with pytest.raises(InputError) as err:
        Settings.from_env()
    assert message in err.value.message and err.value.exit_code == 2


def test_settings_are_read_only_once_made_and_copies_are_checked_too():
    s = Settings(data_dir="somewhere", oauth_roles_file="roles.txt")
    assert s.data_dir == Path("somewhere").resolve() and s.oauth_roles_file == Path("roles.txt")
    with pytest.raises(dataclasses.FrozenInstanceError, match="dataclasses.replace"):
        s.max_upload_mb = 1
    assert s.max_upload_mb == 500
    assert dataclasses.replace(s, max_upload_mb=1).max_upload_mb == 1
    with pytest.raises(InputError, match="max_upload_mb .* must be positive, got -1"):
        dataclasses.replace(s, max_upload_mb=-1)
    with pytest.raises(InputError, match="caption_concurrency .* must be 1 or more"):
        Settings(caption_concurrency=0)


def _run(argv: list[str], **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SPACE_ID")}
    full.update(env)
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env=full, capture_output=True,
                          text=True, timeout=180)


@pytest.mark.parametrize("argv", [["-m", "ui", "rounds", "list"], ["app.py"]],
                         ids=["python -m ui rounds list", "python app.py"])
def test_every_entry_point_prints_one_error_line_and_exits_2(tmp_path, argv):
    out = _run(argv, CINECAP_MAX_UPLOAD_MB="abc", CINECAP_DATA_DIR=str(tmp_path))
    assert out.returncode == 2, out.stderr
    assert out.stderr.splitlines() == [
        "error: CINECAP_MAX_UPLOAD_MB must be an integer, got 'abc'"], out.stderr
    assert not list(tmp_path.iterdir())  # stopped before the store was opened
