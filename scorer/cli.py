"""The ``scarto`` command: score hand records and add up matches (RECORD.md's contract), review
a fully recorded hand (``analyse``, docs/REVIEW.md), print a match sheet (``pdf``, without Flask:
scorer.sheets.render), rate a club's players (``ratings``), deal a duplicate deal set (``deals``),
rank duplicate sessions (``duplicate``, docs/DUPLICATE.md) and serve the app (``serve``).

Exit status: 2 when any file could not be read, else 1 when any record has
problems, else 0. A file that cannot be read gets one line on standard error
naming the file and the reason; the other files are still processed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import stat
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from .engine.cards import CODES
from .engine.errors import ScartoError
from .engine.limits import MAX_REVIEW_POSITIONS, MAX_UPLOAD_BYTES
from .engine.numbers import fraction_text as show
from .engine.records import loads, parse_hand, parse_match
from .engine.rulesets import DEALS
from .engine.scoring import HandResult, score_hand

# What only one command uses is imported by that command: ``scarto score`` starts without the
# solver, the standings, the duplicate ranking or the club files (half the command's start-up).
if TYPE_CHECKING:
    from .engine.analysis import Analysis
    from .engine.club_files import ClubFile
    from .engine.deals import Board
    from .engine.duplicate import Ranking
    from .engine.ratings import RatedPlayer
    from .engine.standings import Standings

MAX_FILE_BYTES = MAX_UPLOAD_BYTES  # what the app exports, the command reads (docs/LIMITS.md)

T = TypeVar("T")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="scarto", description="Score Scarto hands and matches.")
    commands = parser.add_subparsers(dest="command", required=True)
    score = commands.add_parser("score", help="check and score scarto-hand/1 records")
    score.add_argument("--json", action="store_true", help="one scarto-result/1 object per line")
    score.add_argument("files", nargs="+", metavar="FILE", help="hand record files; - for standard input")
    score.set_defaults(run=_score)
    match = commands.add_parser("match", help="standings and settlement of a scarto-match/1 file")
    match.add_argument("--json", action="store_true", help="print scarto-standings/1")
    match.add_argument("file", metavar="FILE")
    match.set_defaults(run=_match)
    review = commands.add_parser("analyse", help="what each card cost its player, every hand known (docs/REVIEW.md)")
    review.add_argument("--from-trick", type=int, required=True, metavar="T", dest="from_trick",
                        help="the first trick to weigh (from 1); the earlier, the longer the search")
    review.add_argument("--json", action="store_true", help="print scarto-analysis/1")
    review.add_argument("--node-limit", type=int, default=MAX_REVIEW_POSITIONS, metavar="N", dest="node_limit",
                        help=f"positions the search may visit (default {MAX_REVIEW_POSITIONS:,}: some two minutes)")
    review.add_argument("file", metavar="FILE", help="a full scarto-hand/1 record (tricks); - for standard input")
    review.set_defaults(run=_analyse)
    pdf = commands.add_parser("pdf", help="print the match sheet of a scarto-match/1 file as PDF")
    pdf.add_argument("file", metavar="FILE")
    pdf.add_argument("-o", "--output", required=True, metavar="OUT.pdf")
    pdf.set_defaults(run=_pdf)
    deals = commands.add_parser("deals", help="the boards of a duplicate deal set (scarto-deals/1)")
    deals.add_argument("--seed", required=True, help="the deal set's seed: the same seed, the same boards")
    deals.add_argument("--boards", required=True, type=int, metavar="N", help="how many boards, from board 1")
    deals.add_argument("--deal", default="three", choices=sorted(DEALS), help="three (default), four or piccolo")
    deals.add_argument("--json", action="store_true", help="print one scarto-deals/1 object")
    deals.set_defaults(run=_deals)
    duplicate = commands.add_parser("duplicate", help="rank a duplicate session (scarto-duplicate/1 files)")
    duplicate.add_argument("--json", action="store_true", help="print one scarto-duplicate-ranking/1 object")
    duplicate.add_argument("files", nargs="+", metavar="FILE",
                           help="session files; several files of one deal set rank as one tournament")
    duplicate.set_defaults(run=_duplicate)
    ratings = commands.add_parser("ratings", help="every roster player's rating from a scarto-club/1 file")
    ratings.add_argument("--json", action="store_true", help="print scarto-ratings/1")
    ratings.add_argument("file", metavar="CLUB.json")
    ratings.set_defaults(run=_ratings)
    serve = commands.add_parser("serve", help="run the web app (waitress), from a checkout or an installed package")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: the local network)")
    serve.add_argument("--port", type=int, default=5000)
    serve.add_argument("--instance", default="instance", metavar="DIR",
                       help="folder of the database and the secret key (made if missing; default ./instance)")
    serve.set_defaults(run=_serve)
    return parser


def _read(name: str) -> Any:
    """The JSON value of a file (or standard input for ``-``); ScartoError if unusable."""
    try:
        if name == "-":
            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        else:
            with open(name, "rb") as handle:
                asked = _read_size(handle.fileno())
                data = handle.read(asked)
                if len(data) == asked < MAX_FILE_BYTES + 1:  # it grew, or said no size (/proc): read on
                    data += handle.read(MAX_FILE_BYTES + 1 - asked)
    except OSError as exc:
        raise ScartoError(f"cannot read the file ({exc.strerror or exc})") from exc
    if len(data) > MAX_FILE_BYTES:
        raise ScartoError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB; not a hand record")
    return loads(data)


def _read_size(descriptor: int) -> int:
    """How much to ask a file for: read(n) makes a buffer of n bytes first, and a 16 MB buffer for a
    3 KB record cost more than reading and parsing it. A pipe (``<(...)``) has no size: the limit. One
    byte more than the size, so that a file that has more (one still being written, or a file of /proc
    that says it is empty) is seen to, and read on."""
    status = os.fstat(descriptor)
    size = status.st_size if stat.S_ISREG(status.st_mode) else MAX_FILE_BYTES
    return min(size, MAX_FILE_BYTES) + 1


def _parsed(name: str, read: Callable[[Any], T]) -> T | None:
    """``read`` applied to the file's JSON value, or None once what is wrong is told on standard error
    (the command then exits 2): a file that cannot be read, or a record the engine refuses."""
    try:
        return read(_read(name))
    except ScartoError as exc:
        _complain(name, exc)
    except RecursionError:
        _complain(name, ScartoError("nested too deeply"))
    return None


def _complain(name: str, exc: ScartoError) -> None:
    """One line on standard error, even when a name in the record holds a line break."""
    line = f"scarto: {name}: {exc}".replace("\r", "\\r").replace("\n", "\\n")
    print(line, file=sys.stderr)


def _score(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files:
        try:
            result = score_hand(parse_hand(_read(name)))
        except ScartoError as exc:
            _complain(name, exc)
            status = 2
            continue
        except RecursionError:
            _complain(name, ScartoError("nested too deeply to be a hand record"))
            status = 2
            continue
        if result.problems and status == 0:
            status = 1
        if args.json:
            print(json.dumps(result.to_dict(file=name), ensure_ascii=False), flush=False)
        else:
            _print_result(name, result, sys.stdout)
    return status


def _match(args: argparse.Namespace) -> int:
    from .engine.standings import standings

    match = _parsed(args.file, parse_match)
    if match is None:
        return 2
    table = standings(match)
    if args.json:
        print(json.dumps(table.to_dict(), ensure_ascii=False))
    else:
        _print_standings(table, sys.stdout)
    return 1 if any(line.result.problems for line in table.lines) else 0


def _analyse(args: argparse.Namespace) -> int:
    """A full record weighed from a trick on; a record the review cannot weigh, or a search past its
    limit, is told like a read error (exit 2)."""
    from .engine.analysis import analyse

    review = _parsed(args.file, lambda value: analyse(parse_hand(value), args.from_trick,
                                                      node_limit=args.node_limit))
    if review is None:
        return 2
    if args.json:
        print(json.dumps(review.to_dict(), ensure_ascii=False))
    else:
        _print_analysis(args.file, review, sys.stdout)
    return 0


def _pdf(args: argparse.Namespace) -> int:
    match = _parsed(args.file, parse_match)
    if match is None:
        return 2
    try:
        # WeasyPrint is imported only when a PDF is made; imported by name so that the
        # core type-checks without the app's dependencies
        pdf_module = importlib.import_module(".sheets.render", __package__)
    except ImportError:
        print("scarto: PDF output needs the app's dependencies (make install)", file=sys.stderr)
        return 2
    pdf: bytes = pdf_module.match_sheet_pdf(match)
    try:
        with open(args.output, "wb") as handle:
            handle.write(pdf)
    except OSError as exc:
        print(f"scarto: {args.output}: cannot write ({exc.strerror or exc})", file=sys.stderr)
        return 2
    return 0


def _deals(args: argparse.Namespace) -> int:
    from .engine.deals import deal_set, deals_json, read_seed

    try:
        seed = read_seed(args.seed, "--seed")
        boards = deal_set(seed, args.boards, args.deal)
    except ScartoError as exc:
        print(f"scarto: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(deals_json(seed, args.deal, boards), ensure_ascii=False))
    else:
        _print_boards(seed, args.deal, boards, sys.stdout)
    return 0


def _duplicate(args: argparse.Namespace) -> int:
    from .engine.duplicate import merge, parse_duplicate, rank, ranking_to_dict

    sessions = []
    for name in args.files:
        session = _parsed(name, parse_duplicate)
        if session is None:
            return 2
        sessions.append(session)
    try:
        ranking = rank(merge(sessions))
    except ScartoError as exc:
        _complain(args.files[-1], exc)
        return 2
    if args.json:
        print(json.dumps(ranking_to_dict(ranking), ensure_ascii=False))
    else:
        _print_ranking(ranking, sys.stdout)
    return 1 if ranking.unscored else 0


def _ratings(args: argparse.Namespace) -> int:
    """The club file's ratings, highest first (docs/RATINGS.md); no database: the file is read as the app
    reads it on import, its hands judged, and the ratings computed afresh."""
    club = _parsed(args.file, _club_file)
    if club is None:
        return 2
    from . import rater  # openskill, imported only when ratings are asked for
    from .engine.ratings import file_summaries, rated_players, ratings_document

    keyed = [(match, [seat.casefold() for seat in seated]) for match, seated in club.matches]
    summaries, seats = file_summaries(keyed, club.results)
    players = rated_players(rater.club_ratings(summaries, seats), _names(club))
    if args.json:
        print(json.dumps(ratings_document(players, rater.DEFAULT.method), ensure_ascii=False))
    else:
        _print_ratings(players, sys.stdout)
    errors = any(result.errors for results in club.results for result in results)
    return 1 if errors else 0


def _club_file(value: Any) -> ClubFile:
    """A whole club's file read as the app reads it (scorer.engine.club_files: no database, no SQLite); a
    part of a file written in parts is refused: the ratings need every match, and the roster of part 1."""
    from .engine.club_files import parse_club

    club = parse_club(value)
    if club.part is not None and club.part.of > 1:
        raise ScartoError(f"part {club.part.number} of {club.part.of} of a club's file; rate the whole club: "
                          "open part 1 in the app, add the others, and export it whole or rate it there")
    return club


def _names(club: ClubFile) -> dict[str, str]:
    """Each roster key (a name in any case) to the roster's name: the roster entry's, or, for a name a
    match adds, the name as its first match wrote it (as the app's import adds it)."""
    names: dict[str, str] = {}
    for _match, seated in club.matches:
        for seat in seated:
            names.setdefault(seat.casefold(), seat)
    names.update((name.casefold(), name) for name, _short in club.players)
    return names


def _serve(args: argparse.Namespace) -> int:
    """The app on waitress with ``make run``'s settings (scorer.serve), the database in ``--instance``."""
    instance = os.path.abspath(args.instance)
    try:
        os.makedirs(instance, exist_ok=True)
    except OSError as exc:
        print(f"scarto: {args.instance}: cannot make the instance folder ({exc.strerror or exc})", file=sys.stderr)
        return 2
    os.environ.update({"HOST": args.host, "PORT": str(args.port), "SCARTO_INSTANCE": instance})
    try:
        serve_module = importlib.import_module(".serve", __package__)
    except ImportError:
        print("scarto: serving needs the app's dependencies (make install)", file=sys.stderr)
        return 2
    print(f"Serving on http://{args.host}:{args.port}/ (database and key in {instance}; Ctrl-C stops)",
          flush=True)
    serve_module.main()
    return 0


# --- readable output -------------------------------------------------------------


def _print_result(name: str, result: HandResult, out: TextIO) -> None:
    record = result.record
    out.write(f"{name}  ({record.ruleset.preset}, {record.form}, dealer {record.dealer})\n")
    if result.counts is not None:
        width = max(len(p) for p in record.players)
        bonus = record.ruleset.ultimo  # the ultimo house rule adds a column
        out.write(f"  {'player':<{width}}  {'points':>7}" + (f"  {'bonus':>7}" if bonus else "") + f"  {'score':>7}\n")
        for c in result.counts:
            extra = f"  {show(c.bonus):>7}" if bonus else ""
            out.write(f"  {c.name:<{width}}  {show(c.card_points):>7}{extra}  {show(c.score):>7}\n")
    for problem in result.problems:
        out.write(f"  {problem.severity}: {problem.message}\n")
    if not result.problems:
        out.write("  no problems\n")


def _print_analysis(name: str, review: Analysis, out: TextIO) -> None:
    players = review.record.players
    width = max(6, *(len(p) for p in players))
    out.write(f"{name}  (from trick {review.from_trick}; every hand known, the others against each player)\n")
    out.write(f"  {'player':<{width}}  {'par':>7}  {'given up':>8}\n")
    for player, par, lost in zip(players, review.par, review.given_up(), strict=True):
        if par is None:
            continue
        out.write(f"  {player:<{width}}  {show(par):>7}  {show(lost):>8}\n")
    costly = [p for p in review.plays if p.lost]
    for play in costly:
        best = " ".join(CODES[c] for c in play.best)
        out.write(f"  trick {play.trick}: {players[play.seat]} played {CODES[play.card]}, gave up {show(play.lost)}"
                  f" (best: {best})\n")
    if not costly:
        out.write("  every card played was a best card\n")


def _print_standings(table: Standings, out: TextIO) -> None:
    players = table.players
    width = max(6, *(len(p) for p in players))
    title = table.match.title or "Match"
    out.write(f"{title}\n")
    out.write("  hand  dealer" + " " * (width - 6) + "".join(f"  {p:>{width}}" for p in players) + "\n")
    for line in table.lines:
        scores = line.scores
        cells = "".join(f"  {show(scores[p]) if p in scores else '-':>{width}}" for p in players)
        out.write(f"  {line.number:>4}  {line.dealer:<{width}}{cells}\n")
        for problem in line.result.problems:
            out.write(f"        {problem.severity}: {problem.message}\n")
    out.write("  total " + " " * width + "".join(f"  {show(t):>{width}}" for t in table.totals) + "\n")
    state = "finished; winner " + " and ".join(table.leaders) if table.finished else f"next dealer {table.next_dealer}"
    out.write(f"  {state}\n")
    for t in table.settlement:
        what = f"{show(t.points)} points" if t.points is not None else f"{t.stakes} stake"
        money = f" = {t.amount} {table.match.stake.currency}" if t.amount is not None and table.match.stake else ""
        out.write(f"  {t.payer} pays {t.payee} {what}{money}\n")


def _print_boards(seed: str, deal: str, boards: Sequence[Board], out: TextIO) -> None:
    out.write(f"deal set {seed!r}, {deal} deal, {len(boards)} boards\n")
    for board in boards:
        out.write(f"board {board.number}  (seat {board.dealer} deals)\n")
        for seat, hand in enumerate(board.hands, start=1):
            out.write(f"  seat {seat}: {' '.join(CODES[c] for c in hand)}\n")
        out.write(f"  talon:  {' '.join(CODES[c] for c in board.talon)}\n")


def _print_ranking(ranking: Ranking, out: TextIO) -> None:
    from .engine.duplicate import percent_text

    session = ranking.session
    out.write(f"deal set {session.seed!r}, {session.deal} deal, scored by {session.scoring}\n")
    width = max([6, *(len(_entrant(p.name, p.club)) for p in ranking.players)])
    for p in ranking.players:
        value = f"{percent_text(p.percent)} %" if session.scoring == "matchpoints" else show(p.difference)
        out.write(f"  {p.rank:>3}  {_entrant(p.name, p.club):<{width}}  {value:>9}  {p.boards} boards\n")
    for r, t, b in ranking.unscored:
        out.write(f"  round {r}, table {t}, board {b}: the record has errors and scores nothing\n")


def _entrant(name: str, club: str | None) -> str:
    return f"{name} ({club})" if club else name


def _print_ratings(players: Sequence[RatedPlayer], out: TextIO) -> None:
    if not players:
        out.write("no player has a counted match\n")
        return
    width = max(6, *(len(p.name) for p in players))
    out.write(f"  {'player':<{width}}  {'rating':>6}  {'matches':>7}\n")
    for p in players:
        note = "  provisional" if p.provisional else ""
        out.write(f"  {p.name:<{width}}  {p.rating:>6}  {p.matches:>7}{note}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
