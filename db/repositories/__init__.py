"""One repository per area of the store, each a class over the shared :class:`db.sessions.Sessions`
that returns records (``db.records``), never ORM rows or dicts of rows.

- ``users`` — :class:`~db.repositories.users.UserRepository` (``store.users``)
- ``clips`` — :class:`~db.repositories.clips.ClipRepository` (``store.clips``: clips and captions)
- ``review`` — :class:`~db.repositories.review.ReviewRepository` (``store.review``: the queue,
  gold pairs, reviewer decisions, the edit history)
- ``drafts`` — :class:`~db.repositories.drafts.DraftRepository` (``store.drafts``: annotators'
  unsaved review drafts, one per user and clip, reachable only by their owner)
- ``judge_results`` — :class:`~db.repositories.judge_results.JudgeResultRepository`
  (``store.judge_results``)
- ``versions`` — :class:`~db.repositories.versions.VersionRepository` (``store.versions``:
  managed model versions, promoting, rolling back) and
  :class:`~db.repositories.versions.RoundRepository` (``store.rounds``: training rounds, their
  progress lines, cancelling)
- ``bench_runs`` — :class:`~db.repositories.bench_runs.BenchRunRepository` (``store.bench_runs``:
  the benches the store knows, benchmark runs, their per-clip results)

Method names follow one rule: ``add``/``save``/``set_…``/``decide`` write; ``get(key)`` returns a
record or raises ``NotFound``; ``find(key)`` returns a record or ``None``; ``list()`` and plural
nouns return lists. A repository that keeps more than one kind of record names the kind
(``clips.add_caption``, ``review.get_gold_pair``).
"""
