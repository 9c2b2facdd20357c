"""Problem sentences come from one table, so every language tells the same thing."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scorer.messages import TEMPLATES, render
from scorer.records import parse_hand
from scorer.scoring import score_hand

FIXTURES = Path(__file__).parent / "fixtures" / "hands"


def test_every_fixture_problem_is_told_from_its_template() -> None:
    keys = set()
    for path in FIXTURES.glob("*.json"):
        for problem in score_hand(parse_hand(json.loads(path.read_text()))).problems:
            assert problem.key in TEMPLATES
            assert problem.message == render(problem.key, problem.params)
            keys.add(problem.key)
    assert {"revoke.trump", "failed_to_trump", "failed_to_overtrump", "illegal_discard.king",
            "wrong_leader.first", "points_total", "pile_sizes.shape", "duplicate_card"} <= keys


def test_templates_name_only_known_parameters() -> None:
    known = {"Card", "card", "code", "proof_card", "proof_trick", "trick", "player", "suit", "count", "talon",
             "total", "pack", "players", "preset", "tricks", "leader", "previous", "deck", "name", "size", "sizes"}
    for key, template in TEMPLATES.items():
        used = set(re.findall(r"%\((\w+)\)s", template))
        assert used <= known, key
        assert "%" not in re.sub(r"%\(\w+\)s", "", template), key


def test_a_translation_fills_in_names_in_its_own_language() -> None:
    sentence = render("revoke.suit", {"trick": 4, "player": "Carla", "card": 50, "proof_card": 22,
                                      "proof_trick": 5, "suit": 1},
                      translate=lambda t: t.replace("Trick", "Presa"), name_card=lambda c: f"<{c}>",
                      name_suit=lambda s: "Coppe")
    assert sentence.startswith("Presa 4: Carla played <50> to a Coppe lead")
    assert "(Carla plays <22> in trick 5)" in sentence
