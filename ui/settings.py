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
WORKER_MODES = ("auto", "external")
FETCH_MODES = ("auto", "never")


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    try:
        return int(raw) if raw else default
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from None


def _env_float(name: str, default: float | None) -> float | None:
    raw = os.environ.get(name)
    try:
        return float(raw) if raw else default
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None


def _env_bool(name: str, default: bool) -> bool:
    raw = (os.environ.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 1 or 0 (true/false, yes/no, on/off), got {raw!r}")


def parse_roles(items) -> dict[str, str]:
    """``name:role`` items (blank ones and ``#`` comments skipped) as a dict."""
    roles = {}
    for item in items:
        item = item.strip()
        if not item or item.startswith("#"):
            continue
        name, _, role = item.partition(":")
        roles[name.strip()] = role.strip()
    return roles


@dataclass
class Settings:
    """Everything the app needs to know about where it runs. ``Settings.from_env()`` reads:

    CINECAP_DATA_DIR (data dir, default ./data), DATABASE_URL (default: SQLite in the data dir),
    CINECAP_MAX_UPLOAD_MB (default 500), CINECAP_MAX_DURATION_S (600), CINECAP_CAPTIONER
    (default captioner, "anchors"), CINECAP_CAPTIONERS (comma list offered; default: all
    registered), CINECAP_AUTH (auto | none | local | oauth), CINECAP_ANONYMOUS_ROLE (role of a
    visitor when nobody signs in; viewer), CINECAP_OAUTH_ROLES ("alice:admin,bob:annotator" for
    Hugging Face accounts; others get viewer), CINECAP_OAUTH_ROLES_FILE (a file of such lines,
    re-read while the app runs), CINECAP_CONCURRENCY (captioning jobs at once, 1),
    CINECAP_MAX_PIXEL_RATE / CINECAP_MAX_TOTAL_PIXELS (decoding cost of an upload; default: the
    library's ``VideoLimits``), CINECAP_CAPTIONS_PER_HOUR (per user, 60; 0: no limit),
    CINECAP_LOGIN_MAX_FAILURES (failed sign-ins per account, 5),
    CINECAP_LOGIN_MAX_FAILURES_PER_ADDRESS (per client address, 20) within
    CINECAP_LOGIN_WINDOW_S (900 s), CINECAP_OAUTH_REFRESH_S (how often the roles file is looked
    at, 60 s), CINECAP_EXAMPLES (offer the example clips, 1; 0 turns them off),
    SPACES_ZERO_GPU (set by Hugging Face on ZeroGPU hardware) and CINECAP_ZEROGPU_DURATION_S
    (the longest GPU call of one caption there, 120). Training rounds (docs/app.md, "Train
    tab"): CINECAP_MODEL (the vlm captioner's checkpoint, the rounds' base on a GPU), CINECAP_ROUNDS_BASE (``tiny``, or a checkpoint;
    default: CINECAP_MODEL on a GPU, the tiny offline model without one),
    CINECAP_ACCELERATE_CONFIG / CINECAP_ACCELERATE_PROCESSES (run rounds under ``accelerate
    launch``), CINECAP_WORKER (``auto``: the app starts a worker when a round is queued and none
    runs; ``external``: you run ``python -m ui worker``), CINECAP_ROUND_STALE_S (a round under way
    whose worker said nothing for this long is failed, 120 s), CINECAP_WORKER_IDLE_EXIT_S (a
    worker the app started stops once idle this long, 300 s). CINECAP_FETCH_MODELS (``auto``:
    detector files that are missing are fetched in the background on start; ``never``).
    ``page_dir`` is not read from the environment: the app sets it.
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
    max_pixel_rate: float | None = None  # None: cinecap.video.VideoLimits' default
    max_total_pixels: float | None = None
    captions_per_hour: int = 60  # per user (an anonymous visitor: per browser); 0: no limit
    login_max_failures: int = 5  # failed sign-ins per account within login_window_s
    login_max_failures_per_address: int = 20  # per client address within login_window_s
    login_window_s: float = 900.0
    oauth_roles_file: Path | None = None  # "name:role" lines, re-read while the app runs
    oauth_refresh_s: float = 60.0  # how often the roles file is looked at again
    examples: bool = True  # offer the example clips (ui/usecases/examples.py) on the Caption tab
    zerogpu: bool = False  # on a ZeroGPU Space (SPACES_ZERO_GPU): GPU captioners via ui/zerogpu.py
    zerogpu_duration_s: int = 120  # the longest GPU call one caption may take there
    #: Where the page's files are put for the browser to fetch (the app sets it: a folder inside
    #: Gradio's cache that only ui.serving serves, role- and owner-checked). None: a temp folder.
    page_dir: Path | None = None
    model: str = ""  # CINECAP_MODEL: the vlm captioner's checkpoint (hub id or directory)
    #: The checkpoint training rounds start from: "" (auto: ``model`` on a GPU, the tiny offline
    #: model without one), "tiny", or a hub id / directory.
    rounds_base: str = ""
    accelerate_config: Path | None = None  # rounds run under `accelerate launch --config_file`
    accelerate_processes: int | None = None  # --num_processes for accelerate launch
    worker: str = "auto"  # auto: start `python -m ui worker` when a round is queued; external
    round_stale_s: float = 120.0  # a round under way with no heartbeat this long has failed
    worker_idle_exit_s: float = 300.0  # a worker the app started stops after this long idle
    #: auto: fetch missing detector files in the background on start (ui/model_files.py); never
    fetch_models: str = "auto"

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir).expanduser().resolve()  # see db.location
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir / 'cinecap.sqlite3'}"
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
        for name in ("max_pixel_rate", "max_total_pixels"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be positive")
        for name in ("captions_per_hour", "login_max_failures", "login_max_failures_per_address"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 (no limit) or more")
        if not (self.login_window_s > 0 and self.oauth_refresh_s > 0):
            raise ValueError("login_window_s and oauth_refresh_s must be positive")
        if self.oauth_roles_file is not None:
            self.oauth_roles_file = Path(self.oauth_roles_file)
        if self.page_dir is not None:
            self.page_dir = Path(self.page_dir)
        if self.zerogpu_duration_s <= 0:
            raise ValueError("zerogpu_duration_s must be positive")
        if self.worker not in WORKER_MODES:
            raise ValueError(f"worker must be one of {', '.join(WORKER_MODES)}, not "
                             f"{self.worker!r}")
        if self.accelerate_config is not None:
            self.accelerate_config = Path(self.accelerate_config)
        if self.accelerate_processes is not None and self.accelerate_processes < 1:
            raise ValueError("accelerate_processes must be at least 1")
        if not (self.round_stale_s > 0 and self.worker_idle_exit_s > 0):
            raise ValueError("round_stale_s and worker_idle_exit_s must be positive")
        if self.fetch_models not in FETCH_MODES:
            raise ValueError(f"fetch_models (CINECAP_FETCH_MODELS) must be one of "
                             f"{', '.join(FETCH_MODES)}, not {self.fetch_models!r}")

    @property
    def max_upload_bytes(self) -> int:
        return self.max_upload_mb * 1024 * 1024

    @classmethod
    def from_env(cls) -> "Settings":
        data_dir = data_dir_from_env()
        roles = parse_roles((os.environ.get("CINECAP_OAUTH_ROLES") or "").split(","))
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
                   caption_concurrency=_env_int("CINECAP_CONCURRENCY", 1),
                   max_pixel_rate=_env_float("CINECAP_MAX_PIXEL_RATE", None),
                   max_total_pixels=_env_float("CINECAP_MAX_TOTAL_PIXELS", None),
                   captions_per_hour=_env_int("CINECAP_CAPTIONS_PER_HOUR", 60),
                   login_max_failures=_env_int("CINECAP_LOGIN_MAX_FAILURES", 5),
                   login_max_failures_per_address=_env_int(
                       "CINECAP_LOGIN_MAX_FAILURES_PER_ADDRESS", 20),
                   login_window_s=_env_float("CINECAP_LOGIN_WINDOW_S", 900.0),
                   oauth_roles_file=os.environ.get("CINECAP_OAUTH_ROLES_FILE") or None,
                   oauth_refresh_s=_env_float("CINECAP_OAUTH_REFRESH_S", 60.0),
                   examples=_env_bool("CINECAP_EXAMPLES", True),
                   zerogpu=_env_bool("SPACES_ZERO_GPU", False),
                   zerogpu_duration_s=_env_int("CINECAP_ZEROGPU_DURATION_S", 120),
                   model=os.environ.get("CINECAP_MODEL") or "",
                   rounds_base=os.environ.get("CINECAP_ROUNDS_BASE") or "",
                   accelerate_config=os.environ.get("CINECAP_ACCELERATE_CONFIG") or None,
                   accelerate_processes=(_env_int("CINECAP_ACCELERATE_PROCESSES", 0) or None),
                   worker=os.environ.get("CINECAP_WORKER") or "auto",
                   round_stale_s=_env_float("CINECAP_ROUND_STALE_S", 120.0),
                   worker_idle_exit_s=_env_float("CINECAP_WORKER_IDLE_EXIT_S", 300.0),
                   fetch_models=(os.environ.get("CINECAP_FETCH_MODELS") or "auto").strip().lower())

    def log(self) -> None:
        safe = asdict(self)
        safe["database_url"] = redact_url(self.database_url)
        log.info("settings: %s", safe)

