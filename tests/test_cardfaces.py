"""The cards drawn: rank and suit mark as in the hand, for both packs and every language, web and PDF."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from scorer.engine.cardnames import LANGUAGES, PACKS
from scorer.engine.cards import CODES, FOOL_INDEX
from scorer.sheets.cardfaces import card_face, mark_paths, rank_text, sprite


def index(code: str) -> int:
    return CODES.index(code)


def test_the_italian_and_the_french_pack_have_their_own_marks() -> None:
    italian = [mark_paths(s, "italian") for s in (1, 2, 3, 4)]
    french = [mark_paths(s, "french") for s in (1, 2, 3, 4)]
    assert len(set(italian + french)) == 8  # cups, coins, batons, swords; hearts, diamonds, clubs, spades
    assert 'id="mark-i1"' in sprite("italian") and 'id="mark-f1"' in sprite("french")


@pytest.mark.parametrize(("code", "language", "pack", "rank"), [
    ("KC", "en", "italian", "K"), ("KC", "it", "italian", "R"), ("CC", "de", "italian", "R"),
    ("CC", "it", "italian", "C"), ("QD", "de", "french", "D"), ("10B", "fi", "italian", "10"),
    ("1S", "en", "french", "A"), ("T21", "es", "italian", "XXI"), ("T1", "en", "italian", "I"),
])
def test_the_rank_reads_as_on_the_card(code: str, language: str, pack: str, rank: str) -> None:
    assert rank_text(index(code), language, pack) == rank


def test_the_cavalier_of_cups_is_told_apart_from_the_king_by_its_drawing_and_name() -> None:
    """"RC" was the King of Cups in Italian and the Cavalier of Cups in German: the name says which."""
    king, cavalier = card_face(index("KC"), "it", "italian"), card_face(index("CC"), "de", "italian")
    assert "Re di Coppe" in king and "Reiter der Kelche" in cavalier
    assert '<use href="#mark-i1"/>' in king and '<use href="#mark-i1"/>' in cavalier


def test_trumps_are_numerals_and_the_fool_is_marked() -> None:
    xv = card_face(index("T15"), "en", "italian")
    assert '<span class="cf cf-t" aria-hidden="true">XV</span>' in xv and "<svg" not in xv
    fool = card_face(FOOL_INDEX, "it", "italian")
    assert '<use href="#mark-i5"/>' in fool and "Matto" in fool


@pytest.mark.parametrize("pack", PACKS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_card_is_well_formed_markup_with_its_name(language: str, pack: str) -> None:
    for i in range(78):
        for inline in (False, True):
            face = card_face(i, language, pack, inline=inline)
            ET.fromstring(f"<root>{face}</root>")  # well formed
            assert re.search(r'<span class="sr">[^<]+</span>$', face)
            if inline and i > 21:
                assert "<use" not in face and "<path" in face and 'fill="#' in face  # a PDF draws it itself


def test_a_button_face_leaves_the_name_to_the_button() -> None:
    assert 'class="sr"' not in card_face(index("KB"), "en", "italian", named=False)
