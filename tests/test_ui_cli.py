"""``python -m ui users …`` (the app's own command line) against a real SQLite store: passwords
from stdin, never argv; the library's ``cinecap`` command has no ``users``."""
from __future__ import annotations

import io
import json
import sys

import pytest

from ui.cli import main


@pytest.fixture
def store_args(tmp_path):
    return ["users", "--data-dir", str(tmp_path), "--database-url",
            f"sqlite:///{tmp_path / 'cli.sqlite3'}"]


def run(argv, stdin: str = "", monkeypatch=None) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return main(argv)


def test_add_list_set_role_and_check_password(store_args, monkeypatch, capsys, tmp_path):
    assert run([*store_args, "add", "alice", "--role", "reviewer", "--password-stdin"],
               "a long secret\n", monkeypatch) == 0
    assert "added alice (reviewer)" in capsys.readouterr().out
    assert run([*store_args, "list", "--json"], monkeypatch=monkeypatch) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"name": "alice", "role": "reviewer", "provider": "local"}]
    assert run([*store_args, "set-role", "alice", "admin"], monkeypatch=monkeypatch) == 0
    from db.store import Store

    s = Store(f"sqlite:///{tmp_path / 'cli.sqlite3'}", tmp_path)
    assert s.users.check_password("alice", "a long secret").role == "admin"
    s.close()


def test_clear_errors_and_exit_codes(store_args, monkeypatch, capsys):
    run([*store_args, "add", "bob", "--password-stdin"], "password-one\n", monkeypatch)
    capsys.readouterr()
    assert run([*store_args, "add", "bob", "--password-stdin"], "password-two\n",
               monkeypatch) == 8
    assert "already exists" in capsys.readouterr().err
    assert run([*store_args, "add", "carol", "--password-stdin"], "short\n", monkeypatch) == 2
    assert "too short" in capsys.readouterr().err
    # No terminal and no --password-stdin: refuse rather than hang or read argv.
    assert run([*store_args, "add", "dave"], "", monkeypatch) == 2
    assert "--password-stdin" in capsys.readouterr().err
    assert run([*store_args, "set-role", "nobody", "admin"], monkeypatch=monkeypatch) == 2
    assert "no user named 'nobody'" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # there is no way to pass a password on the command line
        run([*store_args, "add", "eve", "--password", "x"], "", monkeypatch)


def test_python_m_ui_runs_and_the_library_cli_has_no_users(tmp_path, capsys):
    import os
    import subprocess
    from pathlib import Path

    from cinecap.cli import main as cinecap_main

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    out = subprocess.run([sys.executable, "-m", "ui", "users", "--data-dir", str(tmp_path),
                          "list", "--json"], cwd=root, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []
    with pytest.raises(SystemExit) as err:  # argparse: invalid choice
        cinecap_main(["users", "list"])
    assert err.value.code == 2 and "invalid choice: 'users'" in capsys.readouterr().err
