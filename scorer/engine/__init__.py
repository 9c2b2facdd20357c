"""The engine: the game of Scarto and its records, standard library only.

Cards and their names, rulesets, the ``scarto-*`` record formats, the replay and its
checks, the count in threes, standings and settlement, the audit. Nothing here imports
from the sheets, the storage or the web; they import from here.
"""
