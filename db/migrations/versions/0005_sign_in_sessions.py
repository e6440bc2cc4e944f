"""sign-in sessions and failed sign-ins

- ``sign_in_sessions``: a signed-in browser's session (the hash of its cookie's token), bound to
  the account's id, with an expiry; it survives an app restart and is revoked by signing out.
- ``sign_in_failures``: failed sign-ins by name typed and client address (the throttle's delay).

Revision ID: 0005_sign_in
Revises: 0004
Create Date: 2026-12-01 08:30:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0005_sign_in'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('sign_in_sessions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('token_sha256', sa.String(length=64), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_sha256')
    )
    op.create_index(op.f('ix_sign_in_sessions_user_id'), 'sign_in_sessions', ['user_id'],
                    unique=False)
    op.create_index(op.f('ix_sign_in_sessions_expires_at'), 'sign_in_sessions', ['expires_at'],
                    unique=False)
    op.create_table('sign_in_failures',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('account', sa.String(length=100), nullable=False),
    sa.Column('address', sa.String(length=64), nullable=True),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_sign_in_failures_account'), 'sign_in_failures', ['account'],
                    unique=False)
    op.create_index(op.f('ix_sign_in_failures_address'), 'sign_in_failures', ['address'],
                    unique=False)
    op.create_index(op.f('ix_sign_in_failures_at'), 'sign_in_failures', ['at'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_sign_in_failures_at'), table_name='sign_in_failures')
    op.drop_index(op.f('ix_sign_in_failures_address'), table_name='sign_in_failures')
    op.drop_index(op.f('ix_sign_in_failures_account'), table_name='sign_in_failures')
    op.drop_table('sign_in_failures')
    op.drop_index(op.f('ix_sign_in_sessions_expires_at'), table_name='sign_in_sessions')
    op.drop_index(op.f('ix_sign_in_sessions_user_id'), table_name='sign_in_sessions')
    op.drop_table('sign_in_sessions')
