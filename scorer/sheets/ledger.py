"""The match sheet's hands as a ledger: fixed-width lines, one a hand, grouped in rounds.

Why text lines and not a table: WeasyPrint lays out and styles every table cell
as a box of its own, and a 12-hand sheet has some 150 of them; set in a monospaced
font, a hand is one line of text whose columns line up by construction, and the
sheet renders several times faster (bench/bench_pdf.py). The columns are those of
the paper sheet: for each player the card points, the hand score and the running
total, with a mark at the dealer's points.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..engine.numbers import fraction_text
from ..engine.standings import HandLine, Standings
from ..engine.validation import Problem

DEALER_MARK = "•"
BREACH_MARK = "*"
SEPARATOR = " │"
"""Between the players' columns (a box-drawing line, so it joins from line to line)."""
NO_COUNT = "–"
"""Shown for the points and score of a hand that could not be counted."""


@dataclass(frozen=True)
class LedgerLine:
    """One hand: its fixed-width line and what the sheet says under or about it."""

    number: int
    text: str
    problems: tuple[Problem, ...]
    counted: bool
    """False for a hand recorded after the end of the match (struck through on the sheet)."""
    scored: bool = True
    """False for a record that could not be counted: its points and score read NO_COUNT."""


@dataclass(frozen=True)
class Segment:
    """A run of a round that is set the same way: hand lines, a hand's problems, or uncounted hands."""

    kind: str
    """"lines", "problems" or "after_end"."""
    text: str = ""
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class Round:
    """As many hands as there are players: each deals once."""

    lines: tuple[LedgerLine, ...]

    @property
    def plain(self) -> bool:
        """No problems and nothing uncounted: the whole round is one block of text."""
        return all(line.counted and not line.problems for line in self.lines)

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)

    def segments(self) -> list[Segment]:
        """The round cut where its setting changes: after a hand with problems, around uncounted hands."""
        out: list[Segment] = []
        run: list[str] = []
        run_kind = "lines"
        for line in self.lines:
            kind = "lines" if line.counted else "after_end"
            if run and kind != run_kind:
                out.append(Segment(run_kind, "\n".join(run)))
                run = []
            run_kind = kind
            run.append(line.text)
            if line.problems:
                out.append(Segment(run_kind, "\n".join(run)))
                out.append(Segment("problems", problems=line.problems))
                run = []
        if run:
            out.append(Segment(run_kind, "\n".join(run)))
        return out


@dataclass(frozen=True)
class Ledger:
    """The two heading lines (names, column labels) and the hands in rounds."""

    names: str
    labels: str
    rounds: tuple[Round, ...]
    width: int
    """Characters in the widest line, to choose a type size that fits the page."""

    @property
    def lines(self) -> list[LedgerLine]:
        return [line for round_ in self.rounds for line in round_.lines]

    def blocks(self) -> list[str | Round]:
        """What the sheet sets as one block each: runs of plain rounds as one text, other rounds whole.

        Every block costs the renderer a box to style and lay out, so consecutive
        rounds without problems share one (a page may then break inside it, between
        two hands' lines; a round with problems stays on one page).
        """
        out: list[str | Round] = []
        run: list[str] = []
        for round_ in self.rounds:
            if round_.plain:
                run.append(round_.text)
                continue
            if run:
                out.append("\n".join(run))
                run = []
            out.append(round_)
        if run:
            out.append("\n".join(run))
        return out


def ledger(table: Standings, labels: Sequence[str] = ("pts", "score", "total")) -> Ledger:
    """Lay the hands of a match out in columns; ``labels`` are the three column headings, translated."""
    players = table.players
    cells = [_cells(line, len(players)) for line in table.lines]
    widths = [max([_width(labels[k])] + [_width(cell[k]) for row in cells for cell in row]) + 2 for k in range(3)]
    widths[0] += len(DEALER_MARK)
    number_width = max([1] + [len(f"{line.number}{BREACH_MARK}") for line in table.lines])
    block = sum(widths)
    names = " " * number_width + "".join(SEPARATOR + _centre(" ".join(name.split()), block) for name in players)
    heading = "#".rjust(number_width) + "".join(
        SEPARATOR + "".join(_rjust(label, w) for label, w in zip(labels, widths, strict=True)) for _ in players)
    lines = [
        LedgerLine(line.number, _line(line, players, row, widths, number_width), line.result.problems, line.counted,
                   line.result.counts is not None)
        for line, row in zip(table.lines, cells, strict=True)
    ]
    size = len(players)
    rounds = tuple(Round(tuple(lines[i:i + size])) for i in range(0, len(lines), size))
    # every line is as wide as the heading, by construction
    return Ledger(names, heading, rounds, number_width + len(players) * (len(SEPARATOR) + block))


def _cells(line: HandLine, seats: int) -> list[tuple[str, str, str]]:
    counts = line.result.counts
    return [
        (fraction_text(counts[seat].card_points) if counts else NO_COUNT,
         _signed(counts[seat].score) if counts else NO_COUNT,
         fraction_text(line.totals[seat]))
        for seat in range(seats)
    ]


def _signed(score: Fraction) -> str:
    """A hand score with its sign, as players write it: +3, -10, 0."""
    return ("+" if score > 0 else "") + fraction_text(score)


def _line(line: HandLine, players: Sequence[str], row: list[tuple[str, str, str]], widths: list[int],
          number_width: int) -> str:
    number = f"{line.number}{BREACH_MARK if line.result.problems else ''}"
    out = [_rjust(number, number_width)]
    for player, (points, score, total) in zip(players, row, strict=True):
        mark = DEALER_MARK if player == line.dealer else ""
        out.append(SEPARATOR + _rjust(mark + points, widths[0]) + _rjust(score, widths[1]) + _rjust(total, widths[2]))
    return "".join(out)


def _width(text: str) -> int:
    """Columns a text takes in a monospaced font: wide East Asian characters two, combining marks none."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _rjust(text: str, width: int) -> str:
    return " " * max(0, width - _width(text)) + text


def _centre(name: str, width: int) -> str:
    """A name centred over its columns, cut with an ellipsis when longer (the sheet's heading has it whole)."""
    room = width - 1
    if _width(name) > room:
        while _width(name) > room - 1:
            name = name[:-1]
        name += "…"
    left = (width - _width(name)) // 2
    return " " * left + name + " " * (width - left - _width(name))
