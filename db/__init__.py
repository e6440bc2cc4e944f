"""The store behind the web app: clips, captions, statements, edit history, gold pairs, judge
results, users and roles. SQLAlchemy 2 on a SQLite file by default, PostgreSQL by ``DATABASE_URL``.

``db`` imports ``cinecap`` and never Gradio or ``ui``.
"""
from db.errors import NotFound, PermissionDenied, StoreConflict
from db.roles import ROLES, has_role
from db.store import Store

__all__ = ["NotFound", "PermissionDenied", "ROLES", "Store", "StoreConflict", "has_role"]
