"""Sheets: what the engine's results look like on paper (ledger, charts, words, PDF).

HTML and CSS in, PDF out: nothing here knows Flask or builds the app. The web layer
renders a sheet's template through Flask; ``render`` does it through plain Jinja for
the ``scarto pdf`` command.
"""
