"""The application's use cases, Gradio-free: one module per area, plain functions over the store
(``db``), the library (``cinecap``) and the app's parts (``ui.settings``, ``ui.backends``).

- :mod:`ui.usecases.accounts` — who is asking (local, OAuth, anonymous), signing in (throttled),
  Hugging Face roles from the configuration, and managing accounts (``python -m ui users``);
- :mod:`ui.usecases.caption` — check an upload, caption it, store it, judge it, export it;
- :mod:`ui.usecases.review` — the review queue, server-side drafts and their actions, the edit
  form, saving gold pairs, re-applying after a conflict (the edit model: :mod:`ui.usecases.edits`);
- :mod:`ui.usecases.gold` — reviewer decisions, a gold pair against its model caption, agreement,
  the history as text;
- :mod:`ui.usecases.preview` — a browser-playable copy of a clip for the page, and the page
  folders (by role and owner) every file the page shows is put in (docs/security.md);
- :mod:`ui.usecases.limits` — rate limits (captions per user, failed sign-ins), text a database
  can store, ids it can hold;
- :mod:`ui.usecases.datasets` — datasets out of the store, one function per format (the gold
  pairs as ``cinecap-gold-pairs/1`` JSONL, the data of a training round);
- :mod:`ui.usecases.rounds` — training rounds: what there is to train on, the launch form,
  launching, following and cancelling a round; :mod:`ui.usecases.round_job` — the job the
  worker runs (``ui.jobs``): train in a process of its own, report, score, end the round;
- :mod:`ui.usecases.versions` — model versions: promote, discard, roll back, and the ``vlm``
  captioner serving the version marked serving.

Each use case takes the user (a ``db.records.UserRecord`` the caller resolved) and is the one place
its role is checked (``require_role``); the store keeps its own guard on writes. They raise domain
errors (``cinecap.errors``, ``db.errors``) that each edge translates once: the tabs (``ui.tabs``)
show a message, the CLI (``ui.cli``) prints ``error: …`` and exits with the error's code.
Importing this package, or any module in it, never imports Gradio (tests/test_imports.py).
"""
