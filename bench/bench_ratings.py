"""How well ratings find the stronger players: simulated clubs whose players' strength is known.

Each simulated club has nine players of evenly spread strength (0 to 1, in a shuffled order). A
player of strength ``s`` plays each card with a simple sound policy with probability ``s``
(follow with the most valuable card that takes the trick, else throw the least valuable) and a
random legal card otherwise (scorer.engine.simulation plays the hands by the rules; every hand
is scored by the engine). Each match seats three of the nine, drawn at random, for six hands
with the deal rotating; a club plays 300 matches, so each player sits in about 100.

Three readings of the same history, each computed only from the matches before the one predicted:

- **ratings** (the app's): one rating update a match from its final places (scorer.rater);
- **ratings by hand**: the same model, one update for each hand from the hand's places;
- **points per hand** (the baseline, the club table's figure): each player's total over hands.

Reported on test clubs (seeds never used for tuning): the Spearman correlation between the true
strengths and each reading once the players have sat in 10, 30 and 100 matches on average, and
the log-loss of the match's winner predicted before it is played (ratings: Plackett-Luce's own
probability of finishing first; points per hand: a softmax whose temperature is fitted on the
tuning clubs). The model's parameters (``beta``, ``tau``) are chosen on tuning clubs, by that
log-loss. Then the cost of rating a club of 200 matches and 3,000 hands from its summaries, and of
serving its ``ratings.json``.

Run: ``.venv/bin/python bench/bench_ratings.py`` (``--write`` records the figures in bench/RESULTS.md
under "## Ratings"); under a minute on an idle machine, about a minute and a half at a load of 8.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results import replace_section  # noqa: E402
from scorer.engine import simulation as sim  # noqa: E402
from scorer.engine.cards import VALUE, CardIndex  # noqa: E402
from scorer.engine.clubs import HandSummary, MatchSummary, _places  # noqa: E402
from scorer.engine.ratings import SHOWN_K, Skill, match_update, shown  # noqa: E402
from scorer.engine.rulesets import find_ruleset  # noqa: E402
from scorer.engine.scoring import score_hand  # noqa: E402
from scorer.rater import BETA, DEFAULT, TAU, OpenSkill, club_ratings  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
COMMAND = ".venv/bin/python bench/bench_ratings.py --write"
PLAYERS, SEATS, HANDS, MATCHES = 9, 3, 6, 300
CHECKPOINTS = (10, 30, 100)
TUNING_SEEDS, TEST_SEEDS = (101, 102), (1, 2, 3)
RULES = find_ruleset("classic")
GRID = [(beta, tau) for beta in (BETA / 2, BETA, BETA * 3 / 2, BETA * 2) for tau in (0.0, TAU)]
SEATINGS = ("mixed", "by ranking")


def sound(legal: Sequence[CardIndex], trick: Sequence[CardIndex]) -> CardIndex:
    """Take the trick with the most valuable card that takes it; else throw the least valuable card."""
    if trick:
        seats = list(range(len(trick) + 1))
        takes = [c for c in legal if sim.trick_winner(RULES, [*trick, c], seats) == len(trick)]
        if takes:
            return min(takes, key=lambda c: (-VALUE[c], sim.power(RULES, c)))
    return min(legal, key=lambda c: (VALUE[c], sim.power(RULES, c)))


@dataclass(frozen=True)
class Club:
    strength: tuple[float, ...]
    matches: tuple[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]], ...]
    """Each match: the players seated, and each hand's scores (in thirds, integers) by seat."""


def tables(seating: str, rng: random.Random, totals: Sequence[int], hands: Sequence[int]) -> list[tuple[int, ...]]:
    """A round's tables: three drawn at random (``mixed``), or the club table's order cut into threes, as a
    night seats by ranking (``by ranking``: the strong meet the strong)."""
    players = list(range(PLAYERS))
    rng.shuffle(players)
    if seating == "by ranking":
        players.sort(key=lambda p: -totals[p] / max(1, hands[p]))
    return [tuple(players[i:i + SEATS]) for i in range(0, PLAYERS, SEATS)]


def simulate(seed: int, seating: str) -> Club:
    rng = random.Random(seed)
    strength = [i / (PLAYERS - 1) for i in range(PLAYERS)]
    rng.shuffle(strength)
    matches: list[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]] = []
    totals, played = [0] * PLAYERS, [0] * PLAYERS
    round_: list[tuple[int, ...]] = []
    for _ in range(MATCHES):
        if not round_:
            round_ = tables(seating, rng, totals, played)
        seated = round_.pop(0)

        def policy(seat: int, legal: Sequence[CardIndex], trick: Sequence[CardIndex], r: random.Random,
                   seated: tuple[int, ...] = seated) -> CardIndex:
            good = r.random() < strength[seated[seat]]
            return sound(legal, trick) if good else sim.random_policy(seat, legal, trick, r)

        first = rng.randrange(SEATS)
        hands = []
        for number in range(HANDS):
            record = sim.play_hand(RULES, sim.deal(RULES, rng), rng, dealer=(first + number) % SEATS, policy=policy)
            scores = score_hand(sim.points_form(record)).scores()
            hands.append(tuple(int(scores[name] * 3) for name in record.players))
        matches.append((seated, tuple(hands)))
        for seat, player in enumerate(seated):
            totals[player] += sum(h[seat] for h in hands)
            played[player] += HANDS
    return Club(tuple(strength), tuple(matches))


def summaries(club: Club) -> tuple[list[MatchSummary], dict[int, tuple[int, ...]]]:
    out = [MatchSummary(i, f"2026-01-01T{i:05d}", tuple(map(str, seated)), 3,
                        tuple(HandSummary(0, h) for h in hands), True)
           for i, (seated, hands) in enumerate(club.matches, start=1)]
    return out, {i: seated for i, (seated, _hands) in enumerate(club.matches, start=1)}


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    def ranks(values: Sequence[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out

    return statistics.correlation(ranks(xs), ranks(ys))


def first_place_chance(skills: Sequence[Skill], beta: float) -> list[float]:
    """Plackett-Luce's probability of each player finishing first (Weng-Lin's ``c`` as the scale)."""
    c = math.sqrt(sum(s.sigma ** 2 + beta ** 2 for s in skills))
    weights = [math.exp(s.mu / c) for s in skills]
    return [w / sum(weights) for w in weights]


def softmax(values: Sequence[float], temperature: float) -> list[float]:
    top = max(values)
    weights = [math.exp((v - top) / temperature) for v in values]
    return [w / sum(weights) for w in weights]


@dataclass
class Run:
    """One reading of one club: the log-loss of each match's winner, and the order at each checkpoint."""

    losses: list[float]
    orders: dict[int, list[float]]
    sigmas: dict[int, float]


def winners(places: Sequence[int]) -> list[int]:
    return [seat for seat, place in enumerate(places) if place == 1]


def checkpoint_at(match: int) -> int | None:
    """The checkpoint (average matches a player) reached after this many matches of the club."""
    for average in CHECKPOINTS:
        if match == average * PLAYERS // SEATS:
            return average
    return None


def rate_club(club: Club, model: OpenSkill, *, by_hand: bool = False) -> Run:
    skills = {p: model.prior() for p in range(PLAYERS)}
    run = Run([], {}, {})
    for number, (seated, hands) in enumerate(club.matches, start=1):
        places = _places([sum(h[s] for h in hands) for s in range(SEATS)])
        chance = first_place_chance([skills[p] for p in seated], model.beta)
        run.losses.append(-math.log(sum(chance[s] for s in winners(places))))
        for result in ([_places(h) for h in hands] if by_hand else [places]):
            after = match_update([skills[p] for p in seated], result, model)
            skills.update(zip(seated, after, strict=True))
        average = checkpoint_at(number)
        if average is not None:
            run.orders[average] = [shown(skills[p], model.beta) + skills[p].mu * 1e-9 for p in range(PLAYERS)]
            run.sigmas[average] = statistics.median(s.sigma for s in skills.values())
    return run


def points_club(club: Club, temperature: float) -> Run:
    totals, hands_played = [0] * PLAYERS, [0] * PLAYERS
    run = Run([], {}, {})
    for number, (seated, hands) in enumerate(club.matches, start=1):
        places = _places([sum(h[s] for h in hands) for s in range(SEATS)])
        per_hand = [totals[p] / hands_played[p] / 3 if hands_played[p] else 0.0 for p in seated]
        chance = softmax(per_hand, temperature)
        run.losses.append(-math.log(sum(chance[s] for s in winners(places))))
        for seat, player in enumerate(seated):
            totals[player] += sum(h[seat] for h in hands)
            hands_played[player] += len(hands)
        average = checkpoint_at(number)
        if average is not None:
            run.orders[average] = [totals[p] / max(1, hands_played[p]) for p in range(PLAYERS)]
    return run


def figures(clubs: Sequence[Club], runs: Sequence[Run]) -> tuple[dict[int, float], float]:
    """Mean Spearman at each checkpoint, and the mean log-loss, over the clubs."""
    rho = {a: statistics.fmean(spearman(c.strength, r.orders[a]) for c, r in zip(clubs, runs, strict=True))
           for a in CHECKPOINTS}
    return rho, statistics.fmean(loss for r in runs for loss in r.losses)


def tune(clubs: Sequence[Club], *, by_hand: bool) -> tuple[OpenSkill, list[tuple[float, float, float]]]:
    """The parameters of least log-loss on the tuning clubs, and the grid's figures."""
    grid = []
    for beta, tau in GRID:
        model = OpenSkill(beta=beta, tau=tau)
        grid.append((beta, tau, figures(clubs, [rate_club(c, model, by_hand=by_hand) for c in clubs])[1]))
    beta, tau, _loss = min(grid, key=lambda row: row[2])
    return OpenSkill(beta=beta, tau=tau), grid


def temperature_for(clubs: Sequence[Club]) -> float:
    """The softmax temperature (points a hand) that predicts the tuning clubs' winners best from points per hand."""
    return min((0.5, 1, 2, 3, 4, 6, 8, 12), key=lambda t: figures(clubs, [points_club(c, t) for c in clubs])[1])


def cost() -> dict[str, tuple[float, float]]:
    """Milliseconds to rate a club of 200 matches and 3,000 hands (eight players) from its summaries,
    median and slowest of 15 runs each: afresh, and through the club's ratings cache when nothing
    changed, when the latest match's places changed and when the oldest's did."""
    rng = random.Random(7)
    club, seats = [], {}
    for number in range(1, 201):
        hands = []
        for _ in range(15):
            a, b = rng.randint(-90, 90), rng.randint(-90, 90)
            hands.append(HandSummary(0, (a, b, -a - b)))
        club.append(MatchSummary(number, f"2026-01-01T{number:05d}", ("a", "b", "c"), 3, tuple(hands), True))
        seats[number] = tuple(rng.sample(range(8), 3))

    def turned(summary: MatchSummary) -> MatchSummary:  # the same match, its places turned round
        hands = tuple(HandSummary(0, tuple(reversed(h.scores))) for h in summary.hands)
        return MatchSummary(summary.match_id, summary.date, summary.players, 3, hands, True)

    def timed(run: Callable[[int], object]) -> tuple[float, float]:
        run(-1)
        times = []
        for attempt in range(15):
            began = time.perf_counter()
            run(attempt)
            times.append((time.perf_counter() - began) * 1000)
        return statistics.median(times), max(times)

    variants = {"latest": [club, [*club[:-1], turned(club[-1])]], "oldest": [club, [turned(club[0]), *club[1:]]]}
    return {
        "afresh": timed(lambda _n: club_ratings(club, seats)),
        "cached, nothing changed": timed(lambda _n: club_ratings(club, seats, club="bench")),
        "cached, the latest match's places changed": timed(
            lambda n: club_ratings(variants["latest"][n % 2], seats, club="bench-latest")),
        "cached, the oldest match's places changed": timed(
            lambda n: club_ratings(variants["oldest"][n % 2], seats, club="bench-oldest")),
    }


def route() -> dict[str, tuple[float, float]]:
    """Server time of ``GET ratings.json`` beside ``players.json`` (which reads the same summaries), median and
    p95 of 30 requests after warm-ups, on bench/bench_clubs.py's stored club of 200 matches and 3,000 hands."""
    import tempfile

    from bench.bench_clubs import build, measure, p95

    with tempfile.TemporaryDirectory() as folder:
        app, pages, _cold = build(folder)
        client = app.test_client()  # type: ignore[attr-defined]
        urls = {"ratings.json": pages["players.json"].replace("players.json", "ratings.json"),
                "players.json": pages["players.json"]}
        out = {}
        for name, url in urls.items():
            times = measure(client, url, 30)
            out[name] = (statistics.median(times), p95(times))
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    began = time.perf_counter()
    tuning = [simulate(seed, seating) for seating in SEATINGS for seed in TUNING_SEEDS]
    tests = {seating: [simulate(seed, seating) for seed in TEST_SEEDS] for seating in SEATINGS}
    simulated = time.perf_counter() - began
    model, grid = tune(tuning, by_hand=False)
    hand_model, hand_grid = tune(tuning, by_hand=True)
    temperature = temperature_for(tuning)
    rows = []
    for seating, test in tests.items():
        readings = {
            "ratings (the app's: a match's final places)": [rate_club(c, DEFAULT) for c in test],
            "ratings, the best parameters of the tuning clubs": [rate_club(c, model) for c in test],
            "ratings by hand (each hand's places), the best parameters for it": [
                rate_club(c, hand_model, by_hand=True) for c in test],
            "points per hand (the club table)": [points_club(c, temperature) for c in test],
        }
        rows += [(seating, name, *figures(test, runs)) for name, runs in readings.items()]
    app_runs = [rate_club(c, DEFAULT) for test in tests.values() for c in test]
    sigma = {a: statistics.fmean(r.sigmas[a] for r in app_runs) for a in CHECKPOINTS}
    costs = cost()
    served = route()
    text = section(rows, grid, hand_grid, model, hand_model, temperature, sigma, costs, served, load,
                   time.perf_counter() - began, simulated)
    print(text)
    if args.write:
        replace_section(RESULTS, "## Ratings", text)


def section(rows: list[tuple[str, str, dict[int, float], float]], grid: list[tuple[float, float, float]],
            hand_grid: list[tuple[float, float, float]], model: OpenSkill, hand_model: OpenSkill, temperature: float,
            sigma: dict[int, float], costs: dict[str, tuple[float, float]],
            served: dict[str, tuple[float, float]], load: float, took: float,
            simulated: float) -> str:
    today = datetime.date.today().isoformat()
    return "\n".join([
        "## Ratings",
        "",
        f"`{COMMAND}` ({today}; {took:.0f} s, of it {simulated:.0f} s simulating): "
        f"{len(TEST_SEEDS)} test clubs and {len(TUNING_SEEDS)} tuning clubs for each seating,",
        f"each of {PLAYERS} players of known strength (0 to 1: the chance of playing each card with a sound "
        f"policy rather than at random), {MATCHES} matches of {SEATS} players, {HANDS} hands a match, every "
        "hand played by the rules and scored by the engine; in rounds of three tables, seated at random "
        "(mixed) or by the club table's order (by ranking: the strong meet the strong);",
        f"Python {platform.python_version()}; load average {load:.1f} on {os.cpu_count()} cores.",
        "",
        "| seating | reading | Spearman at 10 matches | at 30 | at 100 | log-loss of the winner |",
        "|---|---|---|---|---|---|",
        *[f"| {seating} | {name} | {rho[10]:.2f} | {rho[30]:.2f} | {rho[100]:.2f} | {loss:.3f} |"
          for seating, name, rho, loss in rows],
        f"| | (no information: a third each) | | | | {math.log(3):.3f} |",
        "",
        "Spearman: the correlation of each reading's order with the true order, once the players have sat in "
        "that many matches on average (mean over the test clubs; the ratings ordered by the shown number). "
        "Log-loss: of the winner of every match of the test clubs, predicted from the matches before it "
        "(lower is better); points per hand through a softmax of temperature "
        f"{temperature:g} points, the best on the tuning clubs.",
        "",
        "Parameters tried on the tuning clubs (log-loss of the winner, both seatings):",
        "",
        "| beta | tau | by match | by hand |",
        "|---|---|---|---|",
        *[f"| {beta:.3f} | {tau:.4f} | {loss:.4f} | {hand[2]:.4f} |"
          for (beta, tau, loss), hand in zip(grid, hand_grid, strict=True)],
        "",
        f"Best on the tuning clubs: by match beta {model.beta:.3f}, tau {model.tau:.4f}; by hand beta "
        f"{hand_model.beta:.3f}, tau {hand_model.tau:.4f}. The app's: beta {DEFAULT.beta:.3f}, tau "
        f"{DEFAULT.tau:.4f} (docs/RATINGS.md says why).",
        f"Median sigma of the players at 10, 30 and 100 matches: {sigma[10]:.2f}, {sigma[30]:.2f}, "
        f"{sigma[100]:.2f} (the shown number's conservative part is {SHOWN_K:g} sigma).",
        "",
        "Cost of rating a club of 200 matches and 3,000 hands from its summaries (15 runs each; one model "
        "update a match rated, the ratings cache keeping the beliefs every 16 matches):",
        "",
        "| rated | median | slowest |",
        "|---|---|---|",
        *[f"| {name} | {median:.1f} ms | {slowest:.1f} ms |" for name, (median, slowest) in costs.items()],
        "",
        "Served (bench/bench_clubs.py's stored club of 200 matches and 3,000 hands, Flask's test client, 30 "
        "requests after warm-ups; ``players.json`` reads the same summaries without rating them):",
        "",
        "| route | median | p95 |",
        "|---|---|---|",
        *[f"| {name} | {median:.1f} ms | {high:.1f} ms |" for name, (median, high) in served.items()],
        "",
    ])


if __name__ == "__main__":
    main()
