"""model versions and rounds

Training rounds as background jobs (``rounds``, their progress lines in ``round_events``) and
managed model versions: ``model_versions`` gains a status, its base, its directory, its parent,
the round that made it, the version it replaced when promoted and its held-out scores; at most
one version is serving (a partial unique index).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02 10:00:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'rounds',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('stage', sa.String(length=10), nullable=False),
        sa.Column('status', sa.String(length=20), nullable=False),
        sa.Column('config', sa.JSON(), nullable=False),
        sa.Column('data', sa.JSON(), nullable=False),
        sa.Column('created_by', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('cancel_requested', sa.Boolean(), nullable=False),
        sa.Column('worker', sa.String(length=200), nullable=False),
        sa.Column('step', sa.Integer(), nullable=False),
        sa.Column('max_steps', sa.Integer(), nullable=True),
        sa.Column('error', sa.Text(), nullable=False),
        sa.Column('log', sa.Text(), nullable=False),
        sa.Column('comparison', sa.JSON(), nullable=False),
        sa.CheckConstraint("status IN ('queued','running','benchmarking','done','failed',"
                           "'cancelled')", name='ck_rounds_status'),
        sa.CheckConstraint("stage IN ('sft','grpo')", name='ck_rounds_stage'),
        sa.ForeignKeyConstraint(['created_by'], ['users.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_table(
        'round_events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('round_id', sa.Integer(), nullable=False),
        sa.Column('event', sa.JSON(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('round_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_round_events_round_id'), ['round_id'], unique=False)

    with op.batch_alter_table('model_versions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('status', sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column('base', sa.String(length=500), nullable=True))
        batch_op.add_column(sa.Column('path', sa.String(length=1000), nullable=True))
        batch_op.add_column(sa.Column('parent_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('round_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('previous_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('scores', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('promoted_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_foreign_key('fk_model_versions_parent', 'model_versions', ['parent_id'],
                                    ['id'], ondelete='SET NULL')
        batch_op.create_foreign_key('fk_model_versions_round', 'rounds', ['round_id'], ['id'],
                                    ondelete='SET NULL')
        batch_op.create_foreign_key('fk_model_versions_previous', 'model_versions',
                                    ['previous_id'], ['id'], ondelete='SET NULL')
        batch_op.create_check_constraint(
            'ck_model_versions_status',
            "status IS NULL OR status IN ('training','failed','ready','serving','retired')")
        batch_op.create_index('uq_model_versions_one_serving', ['status'], unique=True,
                              sqlite_where=sa.text("status = 'serving'"),
                              postgresql_where=sa.text("status = 'serving'"))


def downgrade() -> None:
    with op.batch_alter_table('model_versions', schema=None) as batch_op:
        batch_op.drop_index('uq_model_versions_one_serving')
        batch_op.drop_constraint('ck_model_versions_status', type_='check')
        batch_op.drop_constraint('fk_model_versions_previous', type_='foreignkey')
        batch_op.drop_constraint('fk_model_versions_round', type_='foreignkey')
        batch_op.drop_constraint('fk_model_versions_parent', type_='foreignkey')
        for column in ('promoted_at', 'scores', 'previous_id', 'round_id', 'parent_id', 'path',
                       'base', 'status'):
            batch_op.drop_column(column)

    with op.batch_alter_table('round_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_round_events_round_id'))
    op.drop_table('round_events')
    op.drop_table('rounds')
