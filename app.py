"""CineCap Studio web app: ``python app.py`` (Hugging Face Spaces runs this file as is).

Reads its settings from the environment (ui/settings.py: CINECAP_DATA_DIR, DATABASE_URL, …),
migrates the store, and serves on 0.0.0.0:7860 unless ``--host/--port`` say otherwise.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import NoReturn


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the CineCap Studio web app.")
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"))
    # A text default goes through type=int: a bad GRADIO_SERVER_PORT is a usage error, exit 2.
    parser.add_argument("--port", type=int, default=os.environ.get("GRADIO_SERVER_PORT", "7860"))
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from cinecap.errors import CinecapError
    from ui.settings import Settings

    try:
        # Before the app's imports (Gradio's alone is seconds): a bad setting stops at once.
        settings = Settings.from_env()
    except CinecapError as e:  # a setting with a bad value (InputError)
        _fail(e)
    from db.store import Store
    from ui import zerogpu
    from ui.app import build_app, launch_options, serve
    from ui.jobs import resume_rounds

    try:
        settings.log()
        store = Store(settings.database_url, settings.data_dir)
        demo = build_app(settings, store)
        # Rounds left queued or under way (a restart): a worker takes them up (docs/app.md).
        resume_rounds(settings, store, demo.app_context.jobs)
    except CinecapError as e:  # the store, a backend
        _fail(e)
    # The example clips are captioned in the background, so the first visitor's click is served
    # from the cache; the page does not wait for it (ui/usecases/examples.py). Missing detector
    # files are fetched first, in the same background (CINECAP_FETCH_MODELS), so the captions
    # cached ahead are made with them.
    from ui import model_files
    from ui.usecases import examples

    ctx = demo.app_context
    settings = ctx.settings  # with the page's folder the app chose
    model_files.fetch_on_start(settings, then=lambda: examples.warm_in_background(
        ctx.backends, settings, cache=ctx.examples,
        skip=lambda name: zerogpu.lent_per_request(settings, name)))
    # Serves until SIGINT/SIGTERM, then stops within a few seconds (closing the store).
    serve(demo, store, server_name=args.host, server_port=args.port,
          **launch_options(settings, store, demo=demo))


def _fail(e) -> NoReturn:
    print(f"error: {e.message}", file=sys.stderr)
    raise SystemExit(e.exit_code) from None


if __name__ == "__main__":
    main()
