"""``python -m tests.support.serve_app DATA_DIR PORT STARTED``: the app served the way ``python
app.py`` serves it (``ui.app.serve``: until SIGINT/SIGTERM), with a captioner that starts, writes
the file STARTED, and then takes an hour — the caption in flight when the signal comes."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from cinecap.captioners.base import Captioner


class HourLongCaptioner(Captioner):
    name = "hour"
    started = Path(sys.argv[3]) if len(sys.argv) > 3 else None

    def caption(self, clip, progress=None):
        if self.started is not None:
            self.started.write_text("captioning")
        time.sleep(3600)
        raise RuntimeError("unreachable")


def main() -> None:
    from db.store import Store
    from ui.app import build_app, launch_options, serve
    from ui.backends import Backends
    from ui.settings import Settings

    data, port = Path(sys.argv[1]), int(sys.argv[2])
    settings = Settings(data_dir=data, default_captioner="hour")
    store = Store(settings.database_url, data)
    demo = build_app(settings, store, Backends(captioners={"hour": HourLongCaptioner}))
    print("serving", flush=True)
    # A second of grace, not app.py's five: the hour-long caption is the handler still running,
    # so the stop waits out the whole grace (what the test checks is that it stops at all).
    serve(demo, store, grace_s=1.0, server_name="127.0.0.1", server_port=port, quiet=True,
          **launch_options(settings, store, demo=demo))


if __name__ == "__main__":
    main()
