"""The Gradio web app: Caption and Review tabs over the store (``db``) and the library
(``cinecap``).

Use cases live in :mod:`ui.usecases` as plain functions; tabs only call them. Build an app with
:func:`ui.app.build_app` from its parts (settings, store, captioners, judges): no globals.
"""
