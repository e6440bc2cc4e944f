"""The page: one module per tab, each a :class:`ui.tabs.base.Tab` (the only Gradio code in the app).

A tab builds its components, and its handlers resolve the user of the request and call a use case
(``ui.usecases``); they never reach the store themselves. ``ui.app`` lists the tabs in ``TABS``:
adding a tab is one module here plus one line there. Tables are formatted in
:mod:`ui.tabs.tables`, the timeline drawn in :mod:`ui.tabs.timeline`.
"""
