"""The app's settings, declared once as a dataclass that validates itself; read from env vars."""
from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from db.engine import redact_url
from db.location import data_dir_from_env, database_url_from_env
from db.roles import ROLES

log = logging.getLogger(__name__)

#: Container formats the upload accepts (checked by extension first, then by decoding the header).
VIDEO_EXTENSIONS: tuple[str, ...] = (".mp4", ".mov", ".m4v", ".mkv", ".webm", ".avi")
AUTH_MODES = ("auto", "none", "local", "oauth")


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    try:
        return int(raw) if raw else default
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from None


@dataclass
class Settings:
    """Everything the app needs to know about where it runs. ``Settings.from_env()`` reads:

    CINECAP_DATA_DIR (data dir, default ./data), DATABASE_URL (default: SQLite in the data dir),
    CINECAP_MAX_UPLOAD_MB (default 500), CINECAP_MAX_DURATION_S (600), CINECAP_CAPTIONER
    (default captioner, "anchors"), CINECAP_CAPTIONERS (comma list offered; default: all
    registered), CINECAP_AUTH (auto | none | local | oauth), CINECAP_ANONYMOUS_ROLE (role of a
    visitor when nobody signs in; viewer), CINECAP_OAUTH_ROLES ("alice:admin,bob:annotator" for
    Hugging Face accounts; others get viewer), CINECAP_CONCURRENCY (captioning jobs at once, 1).
    """

    data_dir: Path = field(default_factory=lambda: Path("data"))
    database_url: str = ""  # empty: sqlite:///<data_dir>/cinecap.sqlite3
    max_upload_mb: int = 500
    max_duration_s: float = 600.0
    default_captioner: str = "anchors"
    captioners: tuple[str, ...] = ()  # empty: every registered captioner that is available
    auth: str = "auto"  # auto: local accounts when any exist, else none
    anonymous_role: str = "viewer"
    oauth_roles: dict[str, str] = field(default_factory=dict)
    caption_concurrency: int = 1
    judge: str = "rules"

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir)
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir.resolve() / 'cinecap.sqlite3'}"
        if self.max_upload_mb <= 0:
            raise ValueError("max_upload_mb must be positive")
        if self.max_duration_s <= 0:
            raise ValueError("max_duration_s must be positive")
        if self.auth not in AUTH_MODES:
            raise ValueError(f"auth must be one of {', '.join(AUTH_MODES)}, not {self.auth!r}")
        if self.anonymous_role not in ROLES:
            raise ValueError(f"anonymous_role must be one of {', '.join(ROLES)}")
        for name, role in self.oauth_roles.items():
            if role not in ROLES:
                raise ValueError(f"role {role!r} for {name!r} is not one of {', '.join(ROLES)}")
        if self.caption_concurrency < 1:
            raise ValueError("caption_concurrency must be at least 1")

    @property
    def max_upload_bytes(self) -> int:
        return self.max_upload_mb * 1024 * 1024

    @classmethod
    def from_env(cls) -> "Settings":
        data_dir = data_dir_from_env()
        roles = {}
        for item in filter(None, (os.environ.get("CINECAP_OAUTH_ROLES") or "").split(",")):
            name, _, role = item.partition(":")
            roles[name.strip()] = role.strip()
        offered = tuple(filter(None, (c.strip() for c in
                                      (os.environ.get("CINECAP_CAPTIONERS") or "").split(","))))
        auth = os.environ.get("CINECAP_AUTH") or ("oauth" if os.environ.get("SPACE_ID") and
                                                  os.environ.get("OAUTH_CLIENT_ID") else "auto")
        return cls(data_dir=data_dir, database_url=database_url_from_env(data_dir),
                   max_upload_mb=_env_int("CINECAP_MAX_UPLOAD_MB", 500),
                   max_duration_s=float(os.environ.get("CINECAP_MAX_DURATION_S") or 600),
                   default_captioner=os.environ.get("CINECAP_CAPTIONER") or "anchors",
                   captioners=offered, auth=auth,
                   anonymous_role=os.environ.get("CINECAP_ANONYMOUS_ROLE") or "viewer",
                   oauth_roles=roles,
                   caption_concurrency=_env_int("CINECAP_CONCURRENCY", 1))

    def log(self) -> None:
        safe = asdict(self)
        safe["database_url"] = redact_url(self.database_url)
        log.info("settings: %s", safe)

