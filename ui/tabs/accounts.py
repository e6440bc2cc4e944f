"""Accounts tab (admins): the accounts and their roles, add a local account, change a role —
the same use cases as ``python -m ui users`` (``ui.usecases.accounts``)."""
from __future__ import annotations

from typing import Any

import gradio as gr

from ui.context import AppContext
from ui.tabs.base import Tab, shown_errors
from ui.tabs.tables import USER_HEADERS, escaped, user_rows
from ui.usecases import accounts


class AccountsTab(Tab):
    id = "accounts"
    title = "Accounts"
    min_role = "admin"

    def build(self, ctx: AppContext) -> list:
        users = gr.Dataframe(headers=USER_HEADERS, label="Accounts", interactive=False,
                             elem_id="accounts-table")
        with gr.Row():
            with gr.Column():
                gr.Markdown("**Add a local account**")
                name = gr.Textbox(label="Name", elem_id="accounts-name")
                role = gr.Dropdown(list(accounts.ROLES), value="annotator", label="Role",
                                   elem_id="accounts-role")
                password = gr.Textbox(label="Password", type="password",
                                      info=f"at least {accounts.MIN_PASSWORD_LENGTH} characters",
                                      elem_id="accounts-password")
                add = gr.Button("Add account", variant="primary", elem_id="accounts-add")
            with gr.Column():
                gr.Markdown("**Change a role**")
                who = gr.Textbox(label="Account name", elem_id="accounts-who")
                new_role = gr.Dropdown(list(accounts.ROLES), value="annotator", label="New role",
                                       elem_id="accounts-new-role")
                set_role = gr.Button("Set role", elem_id="accounts-set-role")
        message = gr.Markdown(elem_id="accounts-message")

        @shown_errors
        def on_add(n, r, pw, request: gr.Request):
            actor = ctx.user(request)
            u = accounts.add_user(ctx.store, actor, n, r, pw)
            return (f"Added {escaped(u.name)} ({u.role}).", "",
                    user_rows(accounts.list_users(ctx.store, actor)))

        @shown_errors
        def on_set_role(n, r, request: gr.Request):
            actor = ctx.user(request)
            u = accounts.set_role(ctx.store, actor, (n or "").strip(), r)
            return (f"{escaped(u.name)} is now {u.role}.",
                    user_rows(accounts.list_users(ctx.store, actor)))

        add.click(on_add, [name, role, password], [message, password, users],
                  api_visibility="private")
        set_role.click(on_set_role, [who, new_role], [message, users], api_visibility="private")
        return [users]

    def on_show(self, ctx: AppContext, user: Any) -> list:
        return [user_rows(accounts.list_users(ctx.store, user))]
