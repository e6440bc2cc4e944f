"""bench runs

- ``benches``: bench files the store knows by content hash (run, imported, exported here, or
  declared by an uploader); results on an unknown bench are refused.
- ``bench_runs``: one benchmark run (model, version, round, captioner and options, judge and its
  whole protocol object, bench file and hash, scores in both averaging conventions); ``running``
  until finished, so an interrupted run can be resumed.
- ``bench_items``: a run's per-clip results (gold caption, caption or error, F1, the row as the
  results file has it).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 12:00:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('bench_runs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('source', sa.String(length=20), nullable=False),
    sa.Column('bench_sha256', sa.String(length=64), nullable=False),
    sa.Column('bench_name', sa.String(length=300), nullable=False),
    sa.Column('items', sa.Integer(), nullable=False),
    sa.Column('model', sa.String(length=200), nullable=False),
    sa.Column('model_family', sa.String(length=100), nullable=False),
    sa.Column('model_version', sa.String(length=200), nullable=False),
    sa.Column('round', sa.Integer(), nullable=True),
    sa.Column('captioner', sa.String(length=100), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('judge', sa.String(length=100), nullable=False),
    sa.Column('judge_version', sa.String(length=100), nullable=False),
    sa.Column('protocol', sa.JSON(), nullable=False),
    sa.Column('protocol_key', sa.String(length=64), nullable=False),
    sa.Column('aspects', sa.JSON(), nullable=False),
    sa.Column('scores', sa.JSON(), nullable=True),
    sa.Column('f1', sa.Float(), nullable=True),
    sa.Column('comprehensiveness', sa.Float(), nullable=True),
    sa.Column('accuracy', sa.Float(), nullable=True),
    sa.Column('judged', sa.Integer(), nullable=False),
    sa.Column('failed', sa.Integer(), nullable=False),
    sa.Column('failed_captions', sa.Integer(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('results_sha256', sa.String(length=64), nullable=True),
    sa.Column('run_date', sa.String(length=40), nullable=False),
    sa.Column('created_by', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("source IN ('run','upload','cli')", name='ck_bench_runs_source'),
    sa.CheckConstraint("status IN ('running','done')", name='ck_bench_runs_status'),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('results_sha256')
    )
    with op.batch_alter_table('bench_runs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_bench_runs_bench_sha256'), ['bench_sha256'], unique=False)
        batch_op.create_index(batch_op.f('ix_bench_runs_protocol_key'), ['protocol_key'], unique=False)

    op.create_table('benches',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=300), nullable=False),
    sa.Column('items', sa.Integer(), nullable=True),
    sa.Column('source', sa.String(length=20), nullable=False),
    sa.Column('created_by', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("source IN ('run','import','export','declared')", name='ck_benches_source'),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('sha256')
    )
    op.create_table('bench_items',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('video', sa.String(length=1000), nullable=False),
    sa.Column('gt_caption', sa.Text(), nullable=False),
    sa.Column('caption', sa.Text(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('f1', sa.Float(), nullable=True),
    sa.Column('row', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['bench_runs.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('run_id', 'position', name='uq_bench_items_position')
    )
    with op.batch_alter_table('bench_items', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_bench_items_run_id'), ['run_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('bench_items', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_bench_items_run_id'))

    op.drop_table('bench_items')
    op.drop_table('benches')
    with op.batch_alter_table('bench_runs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_bench_runs_protocol_key'))
        batch_op.drop_index(batch_op.f('ix_bench_runs_bench_sha256'))

    op.drop_table('bench_runs')
