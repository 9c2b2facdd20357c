"""The numbers a phone is given to count the hands waiting on it (the engine's, never typed twice)."""

from __future__ import annotations

from fractions import Fraction

from scorer.engine.records import MatchRecord, parse_match
from scorer.engine.scoring import ultimo_bonus
from scorer.engine.tally import tally_rules, tally_state


def match(ruleset: object, players: list[str], **settings: object) -> MatchRecord:
    return parse_match({"format": "scarto-match/1", "ruleset": ruleset, "players": players,
                        "first_dealer": players[0], "hands": [], **settings})


def test_a_four_player_match_to_a_target_with_the_ultimo() -> None:
    four = match({"preset": "rulesheet", "deal": "four", "ultimo": "bagatto_or_fool"}, ["A", "B", "C", "D"],
                 end={"target": 30}, settle="loser_pays", stake={"per_point": "0.5", "currency": "CHF"})
    assert tally_rules(four) == {
        "players": ["A", "B", "C", "D"], "deck": 78, "base": "39/2", "ultimo": "bagatto_or_fool",
        "bonus": [5, "-5/3"], "hands": None, "target": 30, "settle": "loser_pays", "stake": "0.5",
        "currency": "CHF"}
    assert ultimo_bonus(("A", "B", "C", "D"), "A")[1] == Fraction(-5, 3)


def test_a_classic_match_lasts_a_hand_a_player_unless_told_and_has_no_stake() -> None:
    rules = tally_rules(match("classic", ["A", "B", "C"]))
    assert (rules["hands"], rules["target"], rules["stake"], rules["currency"], rules["ultimo"]) == (
        3, None, None, None, False)


def test_the_state_writes_totals_as_record_md_does() -> None:
    assert tally_state((Fraction(-5, 3), Fraction(65, 3), Fraction(-20)), 3, "Anna", False) == {
        "totals": ["-5/3", "65/3", -20], "count": 3, "next": "Anna", "finished": False}
