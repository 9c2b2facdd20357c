"""Deal sets on the web: the form, a set's page, a board's page and the deal sheets, nothing stored."""

from __future__ import annotations

import re
import subprocess

from flask import Flask
from flask.testing import FlaskClient

from scorer.engine.cards import ROMAN, TRUMPS
from scorer.engine.deals import deal_board
from scorer.web import get_db


def test_the_form_goes_to_the_set_and_refuses_what_no_deal_set_is(client: FlaskClient) -> None:
    chosen = client.get("/deals/?seed=Circolo+6+dicembre&boards=8&deal=four&lang=en")
    assert chosen.status_code == 302 and chosen.headers["Location"] == "/deals/four/8/Circolo%206%20dicembre"
    refused = client.get("/deals/?seed=+&boards=500&deal=three&lang=en").get_data(as_text=True)
    problems = re.findall(r'class="problem"[^>]*>([^<]*)<', refused)
    assert problems == ["a deal set needs a seed: a word or a number, such as the day&#39;s date",
                        "500 boards; a deal set has at most 200: play the rest from a new seed"]
    assert 'value="500"' in refused  # what was typed stays in its box
    italian = client.get("/deals/?seed=x&boards=zero&lang=it").get_data(as_text=True)
    assert "deve essere un numero intero da 1 in su, non zero" in italian


def test_a_set_lists_its_boards_and_their_dealers(client: FlaskClient) -> None:
    page = client.get("/deals/four/5/club?lang=en").get_data(as_text=True)
    boards = re.findall(r'href="(/deals/four/5/board/(\d)/club)">Board \d</a> <span class="muted">seat (\d) deals',
                        page)
    assert [(int(b), int(s)) for _url, b, s in boards] == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 1)]
    assert "/deals/four/5/sheets.pdf?seed=club" in page


def test_a_board_page_shows_each_seat_the_cards_it_was_dealt(client: FlaskClient, app: Flask) -> None:
    page = client.get("/deals/three/8/board/3/a%2Fb%20c?lang=en").get_data(as_text=True)
    dealt = deal_board("a/b c", 3)
    seats = page.split('<details class="seat"')[1:]
    assert len(seats) == 4
    for hand, seat in zip([*dealt.hands, dealt.talon], seats, strict=True):
        assert [int(c) for c in re.findall(r'data-card="(\d+)"', seat)] == list(hand)
    assert "seat 3 deals" in page and "Seat 3 · deals" in seats[2] and "to seat 3" in seats[3]
    with app.app_context():
        assert get_db()["matches"].count == 0


def test_addresses_no_deal_set_has_are_404(client: FlaskClient) -> None:
    for url in ("/deals/five/8/club", "/deals/three/0/club", "/deals/three/201/club", "/deals/three/8/board/9/club",
                "/deals/three/8/board/0/club", "/deals/three/2/sheets.pdf?seed=", "/deals/three/8/" + "x" * 65):
        assert client.get(url).status_code == 404, url


def test_the_deal_sheets_show_every_seat_and_the_talon_of_each_board(client: FlaskClient, tmp_path) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/deals/three/2/sheets.pdf?seed=club&lang=en")
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    assert 'filename="deals-club-three.pdf"' in response.headers["Content-Disposition"]
    pdf = tmp_path / "sheets.pdf"
    pdf.write_bytes(response.data)
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = text.split("\f")
    assert "Board 1 of 2" in pages[0] and "Board 2 of 2" in pages[1]
    for page, number in zip(pages, (1, 2), strict=False):
        board = deal_board("club", number)
        assert f"seat {board.dealer} deals" in page
        assert f"Talon · to seat {board.dealer}" in page
        assert len(re.findall(r"Seat \d( · deals)? 25 cards", page)) == 3 and f"to seat {board.dealer} 3 cards" in page
        talon = page.split("Talon")[1].split()
        assert all(ROMAN[c] in talon for c in board.talon if c < TRUMPS)  # the talon's trumps, apart
