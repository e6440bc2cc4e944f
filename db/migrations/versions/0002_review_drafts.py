"""review drafts, statement ids, annotator notes

- ``review_drafts``: an annotator's unsaved review of a clip, one per user and clip (the page keeps
  only its id; a reload resumes it; a save checks it belongs to whoever sends it).
- ``statements.uid``: a statement's identity across gold-pair versions (NULL on model captions,
  whose statements read as ``r<row id>``), so re-applying edits after a conflict finds the same
  statement even when someone changed any of its fields.
- ``gold_pairs.notes``: the annotator's notes to the reviewer, by statement uid.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 21:58:59.979164
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('review_drafts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('clip_id', sa.Integer(), nullable=False),
    sa.Column('clip_version', sa.Integer(), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['clip_id'], ['clips.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('user_id', 'clip_id', name='uq_review_drafts_user_clip'),
    sqlite_autoincrement=True
    )
    with op.batch_alter_table('review_drafts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_review_drafts_clip_id'), ['clip_id'], unique=False)

    with op.batch_alter_table('gold_pairs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('notes', sa.JSON(), nullable=True))

    with op.batch_alter_table('statements', schema=None) as batch_op:
        batch_op.add_column(sa.Column('uid', sa.String(length=32), nullable=True))



def downgrade() -> None:
    with op.batch_alter_table('statements', schema=None) as batch_op:
        batch_op.drop_column('uid')

    with op.batch_alter_table('gold_pairs', schema=None) as batch_op:
        batch_op.drop_column('notes')

    with op.batch_alter_table('review_drafts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_review_drafts_clip_id'))

    op.drop_table('review_drafts')
