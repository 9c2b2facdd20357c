"""Storage: the SQLite database (``db``) and the matches, hands and revisions in it (``store``)."""
