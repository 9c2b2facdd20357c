"""Card names in five languages and both packs, and the aliases they give for input."""

from __future__ import annotations

import pytest

from scorer.engine.cardnames import LANGUAGES, PACKS, aliases, full_name, short_name
from scorer.engine.cards import CODES, fold


def test_aliases_never_name_two_cards() -> None:
    seen: dict[str, int] = {}
    table = aliases()
    for name, index in table.items():
        assert seen.setdefault(name, index) == index
    assert len(table) > 5000


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("pack", PACKS)
def test_every_full_name_reads_back_as_its_card(language: str, pack: str) -> None:
    table = aliases()
    for index in range(78):
        assert table[fold(full_name(index, language, pack))] == index


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("pack", PACKS)
def test_short_names_are_distinct_and_short(language: str, pack: str) -> None:
    labels = [short_name(i, language, pack) for i in range(78)]
    assert len(set(labels)) == 78
    assert max(len(label) for label in labels[:21] + labels[22:]) <= 5


@pytest.mark.parametrize("text, code", [
    ("Cavallo di Coppe", "CC"), ("Reiter Kelche", "CC"), ("Reiter der Kelche", "CC"), ("Kelch-König", "KC"),
    ("Knight of Hearts", "CC"), ("l'Angelo", "T20"), ("Sota de Oros", "JD"), ("Pata Kuningas", "KS"),
    ("Herttakuningas", "KC"), ("Maljojen ratsu", "CC"), ("il Matto", "M"), ("der Narr", "M"), ("el Loco", "M"),
    ("Asso di Bastoni", "1B"), ("7 di spade", "7S"), ("Donna di Denari", "QD"), ("Tarock XV", "T15"),
    ("el Mundo", "T21"), ("Enkeli", "T20"),
])
def test_names_players_type(text: str, code: str) -> None:
    assert CODES[aliases()[fold(text)]] == code


def test_italian_names_use_the_games_own_words() -> None:
    assert [full_name(i, "it") for i in (0, 19, 20, 21)] == ["il Bagatto (I)", "l'Angelo (XX)", "il Mondo (XXI)",
                                                            "il Matto"]
    assert full_name(CODES.index("CC"), "it") == "Cavallo di Coppe"
    assert full_name(CODES.index("QD"), "it") == "Regina di Denari"
    assert full_name(CODES.index("KC"), "it", "french") == "Re di Cuori"
    assert short_name(CODES.index("KS"), "en", "french") == "K♠"


def test_italian_and_spanish_sentences_give_a_card_its_article() -> None:
    """"Carla ha giocato Cavallo di Bastoni" read as a telegram: the card takes its article in a sentence."""
    from scorer.sheets.words import Words

    def said(language: str, *codes: str) -> list[str]:
        return [Words(language, "italian").card_in_sentence(CODES.index(c)) for c in codes]

    assert said("it", "CB", "QC", "8C", "1D", "T15", "T1", "M") == [
        "il Cavallo di Bastoni", "la Regina di Coppe", "l'8 di Coppe", "l'Asso di Denari", "il Tarocco XV",
        "il Bagatto (I)", "il Matto"]
    assert said("es", "CB", "JD", "T15", "M") == ["el Caballo de Bastos", "la Sota de Oros", "el Triunfo XV",
                                                 "el Loco"]
    assert said("de", "CB", "T15") == ["Reiter der Stäbe", "Tarock XV"]  # German and Finnish: no article
    assert said("en", "CB", "T15") == ["the Cavalier of Batons", "Trump XV"]
