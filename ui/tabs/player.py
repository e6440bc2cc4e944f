"""The page's player hooks, shared by the Caption and Review tabs (one script in the page head).

- ``window.cinecapSeek(spec, player)``: seek the ``<video>`` inside the element ``player`` (a CSS
  selector, e.g. ``#review-video``) to a statement's interval ``spec`` ("t0 t1", seconds) and play
  it, pausing at its end. The Review tab calls it after a row is selected (:func:`seek_js`).
- Anything the page renders with ``data-seek="t0 t1"`` inside an element with
  ``data-player="<selector>"`` (the Caption tab's statement rows, timeline bars, shot headings)
  seeks that player when clicked, or on Enter / Space when focused: no round trip to the server.
- While a player plays or is moved, elements with ``data-t0``/``data-t1`` inside those
  ``data-player`` containers get the class ``cc-now`` when the current time is inside their
  interval; ``[data-moment]`` panels show only their ``[data-shot]`` figure that holds the current
  time, and ``.cc-playhead`` lines move to it (``data-span`` on the container: the clip's length).

Gradio-free: strings only. Every value the page puts in these attributes is a number written by
the server; labels are escaped where they are rendered (the templates of ``ui/templates/``).
"""
from __future__ import annotations

import json

from ui.tabs.markup import script

#: The page-head script, ``ui/static/player.js`` (it installs itself once, whichever tabs
#: include it).
HEAD = script("player.js")


def seek_js(player: str) -> str:
    """A Gradio ``js`` callback that seeks ``player`` to the "t0 t1" value it is given."""
    return (f"(s) => {{ if (window.cinecapSeek) window.cinecapSeek(s, {json.dumps(player)});"
            " return []; }")
