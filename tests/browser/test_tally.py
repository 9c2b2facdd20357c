"""The phone's count of the hands waiting on it (static/tally.js) against the engine's.

The match page counts the hands recorded offline with the engine's numbers (scorer/engine/tally.py)
and its own arithmetic; these tests run the shared fixtures' hands and many matches through both and
fail on any difference, fractions compared exactly. Hands the phone does not count (another entry way,
points typed in a way it does not read) must be left to the server, never scored differently.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from scorer import create_app
from scorer.engine.numbers import fraction_json, fraction_text
from scorer.engine.records import parse_match
from scorer.engine.standings import standings
from scorer.engine.tally import tally_rules, tally_state
from scorer.web.hands_forms import parse_points_text
from tests.browser.handflows import new_match

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FORM_OF = {"points": "points", "captured": "cards", "honours": "honours", "tricks": "live"}
"""The entry form each record kind is recorded with on the phone."""


def fixtures() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Every shared fixture: its name, its hand record, its expected result."""
    out = []
    for path in sorted((FIXTURES / "hands").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8-sig"))
        expected = json.loads((FIXTURES / "expected" / path.name).read_text(encoding="utf-8"))
        out.append((path.stem, record, expected))
    return out


def match_of(record: dict[str, Any], hands: list[dict[str, Any]] | None = None, **settings: Any) -> Any:
    """An engine match with the hand's rules and players (and these hands and settings)."""
    return parse_match({"format": "scarto-match/1", "ruleset": record.get("ruleset", "classic"),
                        "players": record["players"], "first_dealer": record["dealer"],
                        "hands": hands or [], **settings})


def start(match: Any) -> dict[str, Any]:
    """What tally.json says of a match with no hand stored yet."""
    first = standings(match)
    return {**tally_rules(match), **tally_state(first.totals, 0, first.next_dealer, first.finished)}


@pytest.fixture()
def tally(page: Any, live_server: str) -> Any:
    """The match page with tally.js loaded, as sync.js loads it while hands wait on the phone."""
    page.goto(new_match(page, live_server))
    page.add_script_tag(url=live_server + "/static/tally.js")
    page.wait_for_function("() => !!window.ScartoTally")
    return page


def judged(page: Any, cases: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[list[Any] | None]:
    """The phone's scores (as RECORD.md writes them) for each (tally.json, waiting hand), or None."""
    return list(page.evaluate("""cases => cases.map(([d, hand]) => {
        const scores = ScartoTally.judge(d, hand);
        return scores && scores.map(ScartoTally.json);
    })""", [list(c) for c in cases]))


def test_the_phone_scores_every_fixture_hand_of_counted_points_as_the_engine(tally: Any) -> None:
    cases, wanted = [], []
    for name, record, expected in fixtures():
        if "points" not in record:
            continue
        players = record["players"]
        hand = {"form": "points", "dealer": record["dealer"], "ultimo": record.get("ultimo") or "",
                "points": [str(record["points"][p]) for p in players]}
        cases.append((start(match_of(record)), hand))
        wanted.append((name, [p["score"] for p in expected["players"]] if "players" in expected else None))
    got = judged(tally, cases)
    assert [(name, scores) for (name, _), scores in zip(wanted, got, strict=True)] == wanted
    assert len(wanted) >= 5 and any(scores is None for _, scores in wanted)  # a total that is not the pack's


def test_every_fixture_hand_counted_as_points_scores_on_the_phone_as_in_the_engine(tally: Any) -> None:
    """Every ruleset and deal the fixtures hold (three, four, piccolo, the rule sheet's, saari's, ultimo
    either way): the engine's card points typed as points give the engine's score on the phone, and the
    hand as it was recorded (cards, counting cards, tricks) is left to the server."""
    counted, as_recorded, wanted = [], [], []
    for name, record, expected in fixtures():
        kind = next(k for k in FORM_OF if k in record)
        d = start(match_of(record))
        as_recorded.append((d, {"form": FORM_OF[kind], "dealer": record["dealer"], "points": [], "ultimo": ""}))
        if "players" not in expected:
            continue
        bonus = [p["name"] for p in expected["players"] if Fraction(p.get("bonus", 0)) > 0]
        counted.append((d, {"form": "points", "dealer": record["dealer"].strip(), "ultimo": bonus[0] if bonus else "",
                            "points": [str(p["card_points"]) for p in expected["players"]]}))
        wanted.append((name, [p["score"] for p in expected["players"]]))
    got = judged(tally, counted)
    assert [(name, scores) for (name, _), scores in zip(wanted, got, strict=True)] == wanted
    left = judged(tally, as_recorded)
    assert [scores for (d, hand), scores in zip(as_recorded, left, strict=True) if hand["form"] != "points"
            ] == [None] * sum(hand["form"] != "points" for _, hand in as_recorded)
    decks = {(len(d["players"]), d["deck"], d["ultimo"]) for d, _ in counted}
    # three and four players, piccolo's smaller pack, the ultimo either way
    assert {(3, 78, False), (4, 78, False), (3, 66, False), (3, 78, True), (3, 78, "bagatto_or_fool")} <= decks


def random_hand(rng: random.Random, match: Any, dealer: str) -> dict[str, Any]:
    """A hand of counted points (thirds, adding up to the pack) with, sometimes, the ultimo."""
    deck = match.ruleset.deck_total
    cuts = sorted(Fraction(rng.randrange(0, int(deck * 3) + 1), 3) for _ in match.players[1:])
    points = [b - a for a, b in zip([Fraction(0), *cuts], [*cuts, deck], strict=True)]
    hand: dict[str, Any] = {"dealer": dealer, "points": {p: fraction_json(v) for p, v in zip(match.players, points,
                                                                                              strict=True)}}
    if match.ruleset.ultimo and rng.random() < 0.4:
        hand["ultimo"] = rng.choice(match.players)
    return hand


SETTINGS = [
    ("classic", ["Anna", "Bruno", "Carla"], {"end": {"hands": 6}}),
    ("classic", ["Anna", "Bruno", "Carla"], {"end": {"target": 40}, "settle": "loser_pays",
                                            "stake": {"per_point": "0.5", "currency": "EUR"}}),
    ({"preset": "classic", "ultimo": True}, ["Anna", "Bruno", "Carla"], {"stake": {"per_point": "0.15"}}),
    ("four", ["Anna", "Bruno", "Carla", "Dario"], {"end": {"hands": 8}, "stake": {"per_point": "0.1"}}),
    ({"preset": "rulesheet", "deal": "four", "ultimo": "bagatto_or_fool"}, ["Anna", "Bruno", "Carla", "Dario"],
     {"end": {"target": 30}, "stake": {"per_point": "0.05", "currency": "CHF"}}),
    ("piccolo", ["Anna", "Bruno", "Carla"], {"end": {"hands": 5}, "settle": "loser_pays"}),
]


def test_the_phone_adds_up_rotates_and_settles_the_waiting_hands_as_the_engine(tally: Any) -> None:
    """Random matches: some hands stored, more waiting on the phone (points typed as people write them);
    the phone's totals, next dealer, hands to play, end and settlement equal the engine's standings."""
    rng = random.Random(1732)
    cases, wanted = [], []
    for _ in range(40):
        ruleset, players, settings = rng.choice(SETTINGS)
        base = match_of({"ruleset": ruleset, "players": players, "dealer": players[0]}, **settings)
        hands, dealer = [], rng.choice(players)
        for _ in range(rng.randrange(0, 7) + rng.randrange(1, 5)):
            hands.append(random_hand(rng, base, dealer))
            dealer = rng.choice(players) if rng.random() < 0.1 else players[(players.index(dealer) + 1) % len(players)]
        stored = rng.randrange(0, len(hands))
        first = standings(match_of({"ruleset": ruleset, "players": players, "dealer": players[0]}, hands[:stored],
                                   **settings))
        whole = standings(match_of({"ruleset": ruleset, "players": players, "dealer": players[0]}, hands, **settings))
        d = {**tally_rules(first.match), **tally_state(first.totals, stored, first.next_dealer, first.finished)}
        waiting = [{"form": "points", "dealer": h["dealer"], "ultimo": h.get("ultimo", ""),
                    "points": [fraction_text(Fraction(h["points"][p])) for p in players]} for h in hands[stored:]]
        cases.append([d, waiting])
        document = whole.to_dict()
        wanted.append({"totals": [p["total"] for p in document["players"]], "next": document["next_dealer"],
                       "finished": document["finished"], "left": whole.hands_to_play,
                       "settlement": document["settlement"], "complete": True})
    got = tally.evaluate("""cases => cases.map(([d, hands]) => {
        const now = ScartoTally.addUp(d, hands);
        return {totals: now.totals.map(ScartoTally.json), next: now.next, finished: now.finished, left: now.left,
                settlement: now.settlement, complete: now.complete};
    })""", cases)
    assert got == wanted
    assert {w["finished"] for w in wanted} == {True, False}
    assert any(t.get("amount") for w in wanted for t in w["settlement"])
    assert any("stakes" in t for w in wanted for t in w["settlement"])


def test_a_waiting_hand_the_phone_cannot_count_leaves_the_totals_incomplete(tally: Any) -> None:
    match = match_of({"ruleset": "classic", "players": ["Anna", "Bruno", "Carla"], "dealer": "Anna"})
    d = start(match)
    now = tally.evaluate("""d => ScartoTally.addUp(d, [
        {form: "points", dealer: "Anna", points: ["31", "22", ""], ultimo: ""},
        {form: "cards", dealer: "Bruno", points: [], ultimo: ""}])""", d)
    assert now["complete"] is False
    assert [line["scores"] is None for line in now["lines"]] == [False, True]
    assert now["next"] == "Carla" and now["left"] == 1


TYPED = ["31", "0", "78", " 31 ", "19½", "19 ½", "½", "⅓", "25 1/3", "25  1/3", "12\t1/3", "58/3", " 40 / 3 ",
         "1/0", "3 1/0", "19.5", "19,5", "25,33", "-3", "−3", "\ufeff31", "٣١", "31\u00a0", "abc", "1 2/3/4",
         "1234567", "123456", "7⅔", "1/2/3", "+5", "5.", ".5", "3 / 9", "0/3"]


def test_the_phone_reads_typed_points_only_as_the_server_reads_them(tally: Any, tmp_path: Path) -> None:
    """Where the phone reads a number typed into the points form it is the server's number; what it does
    not read (a decimal, a stray character) is scored by the server when it arrives."""
    app = create_app({"DATABASE": str(tmp_path / "typed.sqlite"), "SECRET_KEY": "typed", "TESTING": True})
    server: list[str | None] = []
    with app.test_request_context():
        for text in TYPED:
            try:
                server.append(str(parse_points_text(text)))
            except ValueError:
                server.append(None)
    phone = tally.evaluate("texts => texts.map(t => { const f = ScartoTally.read(t); "
                           "return f && (f[1] === 1 ? String(f[0]) : f[0] + '/' + f[1]); })", TYPED)
    disagree = [(t, p, s) for t, p, s in zip(TYPED, phone, server, strict=True) if p is not None and p != s]
    assert disagree == []
    assert sum(p is not None for p in phone) >= 15  # the ways people write points are read
