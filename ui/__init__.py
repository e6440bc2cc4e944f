"""The application: the web app, its use cases and its own command line.

- :mod:`ui.usecases` — the use cases (Gradio-free), the one place each role is checked;
- :mod:`ui.tabs` — the page's tabs (the only Gradio code), on one small tab protocol;
- :mod:`ui.app` — :func:`ui.app.build_app` builds the page from its parts (settings, store,
  captioners, judges): no globals;
- :mod:`ui.cli` — ``python -m ui`` (accounts today);
- :mod:`ui.settings`, :mod:`ui.backends`, :mod:`ui.context` — the app's settings, its captioners
  and judges, and the bundle of both with the store that handlers receive.
"""
