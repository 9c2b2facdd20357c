"""Sheets: what the engine's results look like on paper (ledger, charts, PDF).

HTML and CSS in, PDF out: nothing here knows Flask or builds the app.
"""
