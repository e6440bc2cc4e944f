"""Bring a database to the newest schema with Alembic (the app and the CLI call this on start)."""
from __future__ import annotations

import logging
from pathlib import Path

from sqlalchemy import Engine

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent


def alembic_config():
    from alembic.config import Config

    cfg = Config(str(HERE / "alembic.ini"))
    cfg.set_main_option("script_location", str(HERE / "migrations"))
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    from alembic import command

    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
    log.info("database at revision %s", revision)


def downgrade(engine: Engine, revision: str = "base") -> None:
    from alembic import command

    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)
