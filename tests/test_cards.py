"""The pack: codes, pack order, aliases on input, values and the order within each suit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scorer.engine import cards
from scorer.engine.cards import CARDS, CODES, SUIT_STRENGTH, VALUE, Card, card_name, fold, parse_index
from scorer.engine.errors import ReadError
from scorer.engine.messages import READ_TEMPLATES, render_read
from scorer.engine.records import parse_hand


def test_pack_order_and_codes() -> None:
    assert len(CODES) == len(set(CODES)) == 78
    assert CODES[:22] == tuple(f"T{n}" for n in range(1, 22)) + ("M",)
    ranks = ["K", "Q", "C", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1"]
    assert list(CODES[22:]) == [r + s for s in "CDBS" for r in ranks]
    assert [int(c) for c in CARDS] == list(range(78))


def test_values() -> None:
    assert sum(VALUE) == 130
    honours = {c.code for c in CARDS if c.is_counting}
    assert honours == {"T1", "T20", "M"} | {r + s for r in "KQCJ" for s in "CDBS"}
    assert {Card.parse(code).value for code in ("KS", "T1", "T20", "M")} == {5}
    assert [Card.parse(code).value for code in ("QD", "CB", "JC", "T21", "10S", "1C")] == [4, 3, 2, 1, 1, 1]


@pytest.mark.parametrize(("suit", "high_to_low"), [
    ("B", "K Q C J 10 9 8 7 6 5 4 3 2 1"),  # long suits
    ("S", "K Q C J 10 9 8 7 6 5 4 3 2 1"),
    ("C", "K Q C J 1 2 3 4 5 6 7 8 9 10"),  # round suits: the pips upside down
    ("D", "K Q C J 1 2 3 4 5 6 7 8 9 10"),
])
def test_order_within_a_suit(suit: str, high_to_low: str) -> None:
    strengths = [SUIT_STRENGTH[Card.parse(rank + suit)] for rank in high_to_low.split()]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == 14


@pytest.mark.parametrize(("text", "code"), [
    ("T1", "T1"), ("t21", "T21"), ("  ks ", "KS"), ("cc", "CC"), ("10b", "10B"), ("1d", "1D"),
    ("I", "T1"), ("iv", "T4"), ("XIX", "T19"), ("XX", "T20"), ("xxi", "T21"),
    ("Bagatto", "T1"), ("PAGAT", "T1"), ("Angelo", "T20"), ("angel", "T20"), ("Mondo", "T21"), ("World", "T21"),
    ("Matto", "M"), ("fool", "M"), ("Excuse", "M"), ("Narr", "M"), ("0", "M"), ("T0", "M"), ("m", "M"),
    ("AC", "1C"), ("as", "1S"), ("A♠", "1S"), ("K♥", "KC"), ("Q♦", "QD"), ("J♣", "JB"), ("10♠", "10S"),
    ("K♥\ufe0f", "KC"), ("A♦️", "1D"), (" q♣\ufe0f ", "QB"), ("C♥", "CC"),
])
def test_codes_and_aliases(text: str, code: str) -> None:
    assert CODES[parse_index(text)] == code
    assert Card.parse(text).code == code


@pytest.mark.parametrize(("text", "message"), [
    ("KX", "'KX' is not a card"),
    ("T22", "'T22' is not a card"),
    ("XXII", "'XXII' is not a card"),
    ("11C", "'11C' is not a card"),
    ("K", "'K' is not a card"),
    ("1", "'1' is not a card"),
    ("", "'' is not a card"),
    ("K S", "'K S' is not a card"),
    ("Cavallo di Coppe", "'Cavallo di Coppe' is not a card"),  # files accept only the listed aliases
    (5, "5 is not a card code"),
    (None, "None is not a card code"),
])
def test_unknown_codes(text: object, message: str) -> None:
    with pytest.raises(ReadError) as caught:
        parse_index(text, "tricks[4].cards[2]")
    assert caught.value.message == message
    assert str(caught.value) == f"tricks[4].cards[2]: {message}"
    assert caught.value.key in READ_TEMPLATES
    assert render_read(caught.value.key, caught.value.params) == message


def test_the_error_quotes_the_code_as_written_without_spaces() -> None:
    with pytest.raises(ReadError, match=r"^'KX' is not a card$"):
        Card.parse("  KX ")


def test_parse_and_repr_round_trip() -> None:
    for card in CARDS:
        assert Card.parse(card.code) == card
        assert Card.parse(str(card)) == card
        assert eval(repr(card), {"Card": Card}) == card
    assert repr(Card.parse("CC")) == "Card.parse('CC')"


@pytest.mark.parametrize(("code", "name"), [
    ("CC", "the Cavalier of Cups"), ("1D", "the Ace of Coins"), ("10B", "the Ten of Batons"),
    ("KS", "the King of Swords"), ("T1", "the Bagatto"), ("T20", "the Angel (XX)"),
    ("T21", "the World (XXI)"), ("T15", "trump XV"), ("M", "the Fool"),
])
def test_names(code: str, name: str) -> None:
    assert card_name(Card.parse(code)) == name == Card.parse(code).name


def test_card_properties() -> None:
    fool, bagatto, king = Card.parse("M"), Card.parse("T1"), Card.parse("KS")
    assert fool.is_fool and not fool.is_trump
    assert bagatto.is_trump and not bagatto.is_fool
    assert not king.is_trump and king.suit == cards.SWORDS


def test_the_interface_passes_more_names_to_the_parser() -> None:
    names = {fold("Cavallo di Coppe"): Card.parse("CC"), fold("Réginà di Spade"): Card.parse("QS")}
    assert Card.parse("cavallo di  coppe ", aliases=names).code == "CC"
    assert Card.parse("REGINA DI SPADE", aliases=names).code == "QS"  # case and accents folded
    assert Card.parse("KS", aliases=names).code == "KS"
    with pytest.raises(ReadError):
        Card.parse("Fante di Coppe", aliases=names)
    with pytest.raises(ReadError, match="'Cavallo di Coppe' is not a card"):  # without them: RECORD.md's only
        parse_index("Cavallo di Coppe")
    data = {"players": ["A", "B", "C"], "dealer": "A", "captured": {"A": ["Cavallo di Coppe"], "B": [], "C": []}}
    with pytest.raises(ReadError, match=r"^captured\.A\[0\]: 'Cavallo di Coppe' is not a card$"):
        parse_hand(data)


def test_the_names_of_every_language_work_in_a_fresh_interpreter() -> None:
    """No global to register first: the names are data given to the parser, in any process."""
    code = ("from scorer.engine.cards import Card; from scorer.engine.cardnames import aliases; "
            "print(Card.parse('Cavallo di Coppe', aliases=aliases()).code, "
            "Card.parse('Reiter Kelche', aliases=aliases()).code)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.split() == ["CC", "CC"]
