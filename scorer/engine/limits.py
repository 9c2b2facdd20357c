"""How much of anything the app reads: one table, read by the file parser and the web layer.

Every input is bounded where it is read (a file, the API, a form, an audit link, a live
check), so no request can make work without bound. The limits are generous for a real
table (a season-long match, a long note) and are documented in docs/LIMITS.md; each
refusal says which limit and how to stay under it. Whatever the app exports fits them,
so an exported match always imports back.
"""

from __future__ import annotations

MAX_NAME = 40
"""Characters of a player's name, once read (RECORD.md): the forms, the files, the API and audit links."""
MAX_TITLE = 80
"""Characters of a match's title (the new-match form's limit too)."""
MAX_PLACE = 80
"""Characters of where the match is played."""
MAX_NOTES = 500
"""Characters of a hand's notes (the entry forms' limit too)."""
MAX_CURRENCY = 8
"""Characters of a stake's currency code (EUR, CHF, a club's own token)."""
MAX_SHORT_TEXT = 40
"""Characters of a date or a ``recorded_at`` stamp (ISO 8601 needs 25)."""
MAX_HANDS = 1000
"""Hands in one match: about four club evenings a week for a season. Past it, start a new match."""
MAX_HANDS_KEPT = 2 * MAX_HANDS
"""Hands one match keeps, its deleted ones with them (a deleted hand stays, to be brought back): so the
deleted hands' page and the match's history stay bounded too."""
MAX_END_HANDS = 500
"""Hands a match may be set to end after: two seasons of weekly evenings (files, the API, the forms)."""
MAX_END_TARGET = 10000
"""The highest target score a match may be set to end at: some hundred hands of the best scores."""
MAX_TRICKS = 40
"""Tricks in one record or one live check: more than any preset deals (26 in piccolo)."""
MAX_TRICKS_TEXT = 6000
"""Characters of the tricks typed into the full-record form or sent by a live check."""
MAX_CHECK_BYTES = 64 * 1024
"""Bytes of a live check's body (a hand's tricks as JSON take about 3 KB)."""
MAX_UPLOAD_BYTES = 16 * 1024 * 1024
"""Bytes of a request body (an upload, a pasted file, an API call). A 1,000-hand match with the
longest names and notes exports at about 9 MB (tests/test_limits.py measures it), so it imports back."""
MAX_SERVER_BODY_BYTES = 2 * MAX_UPLOAD_BYTES
"""What waitress buffers before it answers by itself: above the app's limit, so a body over
MAX_UPLOAD_BYTES still reaches the app and gets its "too large" page."""
MAX_AUDIT_LINK = 2000
"""Characters of a hand the app writes into an audit link (a full record takes about 500), so the link
fits a chat message or a QR code; a larger record is kept on the server instead."""
MAX_AUDIT_LINK_READ = 8000
"""Characters of a hand an audit link may carry when read (links made before the limit above)."""
AUDIT_KEEP_DAYS = 30
"""How long a hand kept on the server for its audit link stays there."""
MAX_AUDITS_KEPT = 10000
"""Hands kept for audit links at most; the oldest go first."""
MAX_CARDS = 80
"""Cards in one list of a record (a pile, a discard, a trick): the pack has 78."""
MAX_ROSTER = 500
"""Players on one club's roster (merged entries apart): every member and guest of a club over many
years. Checked wherever a player joins (the forms, a club file, a match or a night naming someone new),
so whatever a club exports it imports back."""
MAX_SEASONS = 200
"""Seasons of one club: four a year for fifty years."""
MAX_BEST_RESULTS = 400
"""The N of a season ranked by each player's best N matches or nights: more matches than a player sits
in a year of a match every day (championships count 5 to 40)."""
MAX_CLUB_MATCHES = 10000
"""Matches of one club: a night of twelve tables and three rounds (a match a table a round) every week
for five years. Storing one from a club file takes about 1.6 ms for six hands, so the largest club file
takes some 16 s to store (in steps: the other writers wait one step, storage/club_transfer.py); past it, the club's
next matches go to a new club."""
MAX_CLUB_FILE_HANDS = 50000
"""Hands in one club file, its matches' together: each hand costs 0.1 to 0.3 ms to store, so the largest
file is some 5 to 15 s of one request's work (stored in steps: the other writers wait one step)."""
CLUB_PART_BYTES = 12_000_000
"""Bytes of one club file the app writes: a club larger than that (or than :data:`CLUB_PART_HANDS`) is
exported in parts, each a file under the upload limit (:data:`MAX_UPLOAD_BYTES`, with room for the form
it comes in), so whatever a club exports it imports back. A match alone always fits: 1,000 hands of the
longest full records make about 10 MB."""
CLUB_PART_HANDS = 10000
"""Hands in one part of a club's file: a part is stored at 0.1 to 0.3 ms a hand, in steps, so adding the
largest part takes a few seconds (the other writers wait one step)."""

MAX_REVIEW_POSITIONS = 30_000_000
"""Positions one hand review may search (docs/REVIEW.md): some two minutes of CPU time. The last 8 tricks
of a three-player hand take 10^5 to 10^6; a review asked from an early trick is refused with the advice
to start it later, instead of running for hours."""

TEXT_LIMITS = {"title": MAX_TITLE, "place": MAX_PLACE, "notes": MAX_NOTES, "date": MAX_SHORT_TEXT,
               "recorded_at": MAX_SHORT_TEXT}
"""The text fields of the file formats and their limits, by field name."""
