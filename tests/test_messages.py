"""Problem and read-error sentences come from tables, so every language tells the same thing."""

from __future__ import annotations

import re
from pathlib import Path

from scorer.engine.cards import CODES, card_name
from scorer.engine.errors import ReadError
from scorer.engine.messages import KINDS, READ_TEMPLATES, TEMPLATES, render, render_read
from scorer.engine.records import loads, parse_hand
from scorer.engine.scoring import score_hand

FIXTURES = Path(__file__).parent / "fixtures" / "hands"
SCORER = Path(__file__).parent.parent / "scorer" / "engine"


def test_every_fixture_problem_is_told_from_its_template() -> None:
    keys = set()
    for path in FIXTURES.glob("*.json"):
        for problem in score_hand(parse_hand(loads(path.read_bytes()))).problems:
            assert problem.key in TEMPLATES
            assert problem.message == render(problem.key, problem.params, name_card=card_name,
                                             card_code=CODES.__getitem__)
            keys.add(problem.key)
    assert {"revoke.trump", "failed_to_trump", "failed_to_overtrump", "illegal_discard.king",
            "wrong_leader.first", "points_total", "pile_sizes.shape", "duplicate_card.tricks", "duplicate_card.piles",
            "ultimo_claim.bagatto",
            "ultimo_claim.bagatto_or_fool", "illegal_discard.bagatto_classic"} <= keys


def test_templates_name_only_known_parameters() -> None:
    known = {"Card", "card", "code", "proof_card", "proof_trick", "trick", "player", "suit", "count", "talon",
             "total", "pack", "players", "preset", "tricks", "leader", "previous", "deck", "name", "size", "sizes",
             "first", "second"}
    for key, template in TEMPLATES.items():
        used = set(re.findall(r"%\((\w+)\)s", template))
        assert used <= known, key
        assert "%" not in re.sub(r"%\(\w+\)s", "", template), key


def test_a_translation_fills_in_names_in_its_own_language() -> None:
    sentence = render("revoke.suit", {"trick": 4, "player": "Carla", "card": 50, "proof_card": 22,
                                      "proof_trick": 5, "suit": 1},
                      translate=lambda t: t.replace("Trick", "Presa"), name_card=lambda c: f"<{c}>",
                      card_code=CODES.__getitem__, name_suit=lambda s: "Coppe")
    assert sentence.startswith("Presa 4: Carla played <50> to a Coppe lead")
    assert "(Carla plays <22> in trick 5)" in sentence


def test_every_read_error_of_the_reader_is_told_from_a_template() -> None:
    """No sentence written out in place: the reading modules raise only ``ReadError.of`` (or a subclass's)."""
    used = set()
    for name in ("records.py", "cards.py", "rulesets.py", "numbers.py", "deals.py", "duplicate.py", "ratings.py",
                 "analysis.py", "club_files.py", "night_files.py", "seasons.py"):
        source = (SCORER / name).read_text()
        assert re.findall(r"\b(?:ReadError|UnknownRuleset)\(", source) == [], name
        used |= set(re.findall(r'(?:ReadError|UnknownRuleset)\.of\(\s*"([\w.]+)"', source))
    for name in ("clubs.py", "club_transfer.py"):  # a club's limits and a file's parts, checked as stored
        stored = (SCORER.parent / "storage" / name).read_text()
        used |= set(re.findall(r'ReadError\.of\(\s*"([\w.]+)"', stored))
    assert used == READ_TEMPLATES.keys()


def test_read_templates_name_only_known_parameters() -> None:
    known = {"reason", "line", "column", "kind", "given", "expected", "found", "name", "count", "preset",
             "players", "missing", "value", "text", "code", "allowed", "known", "shown", "length", "most",
             "limit",  # the limits of engine/limits.py
             "number", "of", "first", "next", "last",  # a part of a club's file
             "board", "boards", "deal", "table", "seat", "card", "player", "scoring", "seed", "first_seed",
             "first_deal",  # a duplicate session's file
             "char",  # a character a text may not hold, as U+0000
             "third"}  # the third a decimal stands for
    for key, template in READ_TEMPLATES.items():
        used = set(re.findall(r"%\((\w+)\)s", template))
        assert used <= known, key
        assert "%" not in re.sub(r"%\(\w+\)s", "", template), key


def test_a_read_error_keeps_its_english_sentence_and_what_it_was_told_from() -> None:
    error = ReadError.of("cards.not_list", "tricks[4].cards", kind="text")
    assert (error.key, error.params, error.where) == ("cards.not_list", {"kind": "text"}, "tricks[4].cards")
    assert error.message == "must be a list of card codes, not text"
    assert str(error) == "tricks[4].cards: must be a list of card codes, not text"
    assert ReadError("said whole").key == "" and ReadError("said whole").params == {}


def test_a_translation_names_the_kind_of_value_in_its_own_language() -> None:
    words = {READ_TEMPLATES["record.not_object"]: "deve essere un oggetto JSON, non %(kind)s",
             KINDS["list"]: "una lista"}
    assert render_read("record.not_object", {"kind": "list"}, translate=lambda t: words.get(t, t)) == \
        "deve essere un oggetto JSON, non una lista"
    assert render_read("record.not_object", {"kind": "tuple"}) == "must be a JSON object, not tuple"


def test_the_engine_imports_without_a_cycle() -> None:
    """Cards -> errors -> messages, and messages imports nothing of the engine: each module
    imports alone in a fresh interpreter, and no engine module defers an import into a function."""
    import subprocess
    import sys

    for path in sorted(SCORER.glob("*.py")):
        source = path.read_text()
        assert not re.search(r"\n[ \t]+(?:from \.|import scorer)", source), path.name
        module = f"scorer.engine.{path.stem}"
        run = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False)
        assert run.returncode == 0, (module, run.stderr)
    assert "from ." not in (SCORER / "messages.py").read_text()


def test_the_engine_loads_only_the_standard_library() -> None:
    """The engine is standard library only; importing all of it loads nothing else."""
    import subprocess
    import sys

    modules = ", ".join(f"scorer.engine.{p.stem}" for p in sorted(SCORER.glob("*.py")) if p.stem != "__init__")
    code = (f"import sys; before = set(sys.modules); import {modules}; "
            "print('\\n'.join(sorted({m.split('.')[0] for m in set(sys.modules) - before})))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(run.stdout.split())  # what importing the engine added, by top-level package
    assert "scorer" in loaded
    foreign = loaded - set(sys.stdlib_module_names) - {"scorer"}
    assert not foreign, foreign
