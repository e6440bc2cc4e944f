"""Model versions: which one serves, promoting, discarding and rolling back, and the ``vlm``
captioner that serves the version marked serving.

The store is the one truth about what serves (``store.versions``); each app process follows it
(:func:`sync_serving`): before a ``vlm`` caption, on each page load of the Caption tab and right
after a promotion or a rollback. A change replaces the loaded model and frees the old one
(``Backends.serve``), without a restart, also when another process (``python -m ui versions
promote``) made it. While no managed version serves, ``vlm`` runs ``CINECAP_MODEL`` as before.
"""
from __future__ import annotations

import logging

from cinecap.captioners import Captioner
from db.records import ModelVersionRecord, UserRecord
from db.roles import require_role
from db.store import Store
from ui.backends import Backends

log = logging.getLogger(__name__)

#: The captioner that serves the managed model versions.
SERVED_CAPTIONER = "vlm"


def sync_serving(store: Store, backends: Backends) -> ModelVersionRecord | None:
    """Make the app's ``vlm`` captioner serve the version the store marks serving (one query;
    the model is swapped only when it changed). Returns that version, or None."""
    version = store.versions.find_serving()
    if version is None or SERVED_CAPTIONER not in backends.captioners:
        return version
    model, options = version.model, dict(version.options)

    def factory() -> Captioner:
        from cinecap.captioners import CAPTIONERS

        return CAPTIONERS.create(SERVED_CAPTIONER, model=model, **options)

    backends.serve(SERVED_CAPTIONER, model, factory)
    return version


def captioner_for(store: Store, backends: Backends,
                  name: str) -> tuple[Captioner, ModelVersionRecord | None]:
    """The captioner ``name`` as the app runs it now, and the managed version it serves (None
    for any other captioner, or ``vlm`` while no managed version serves)."""
    version = sync_serving(store, backends) if name == SERVED_CAPTIONER else None
    return backends.captioner(name), version


def list_versions(store: Store, user: UserRecord) -> list[ModelVersionRecord]:
    require_role(user.role, "admin", "listing the model versions")
    return store.versions.list()


def promote(store: Store, backends: Backends | None, user: UserRecord,
            version_id: int) -> ModelVersionRecord:
    """Serve ``version_id`` (ready or retired): the Caption tab and the ``vlm`` captioner use it
    from the next caption on; the version serving before is retired and remembered for
    :func:`rollback`."""
    require_role(user.role, "admin", "promoting a model version")
    version = store.versions.promote(int(version_id), user)
    log.info("%s promoted model version %s", user.name, version.label)
    if backends is not None:
        sync_serving(store, backends)
    return version


def rollback(store: Store, backends: Backends | None, user: UserRecord) -> ModelVersionRecord:
    """Serve again the version that served before the serving one; returns it."""
    require_role(user.role, "admin", "rolling back the model version")
    version = store.versions.rollback(user)
    log.info("%s rolled back to model version %s", user.name, version.label)
    if backends is not None:
        sync_serving(store, backends)
    return version


def discard(store: Store, user: UserRecord, version_id: int) -> ModelVersionRecord:
    """A ready version that will not serve: retired (its directory is kept)."""
    require_role(user.role, "admin", "discarding a model version")
    return store.versions.discard(int(version_id), user)
