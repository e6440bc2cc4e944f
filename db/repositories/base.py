"""What every repository holds: the store's sessions and its data directory."""
from __future__ import annotations

from pathlib import Path

from db.sessions import Sessions


class Repository:
    def __init__(self, sessions: Sessions, data_dir: Path):
        self.sessions = sessions
        self.data_dir = data_dir
