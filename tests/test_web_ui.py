"""Server-side parts of the table trial (DECISIONS.md): the way back from "Not allowed", the warning after the end, the
QR code's quiet zone, "1 point" in the singular."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from scorer.web.filters import SEAT_LABEL_LETTERS, seat_labels
from tests.webutil import start_match


def view_token(client: FlaskClient, token: str) -> str:
    share = client.get(f"/m/{token}/share").get_data(as_text=True)
    return [t for t in share.split("/m/")[1:] if not t.startswith(token)][0].split("/")[0]


def test_not_allowed_links_back_to_the_match(client: FlaskClient) -> None:
    token = start_match(client)
    view = view_token(client, token)
    response = client.get(f"/m/{view}/hands/new/points")
    assert response.status_code == 403
    page = response.get_data(as_text=True)
    assert f'id="to-match" href="/m/{view}/"' in page


def test_the_qr_codes_have_a_quiet_zone_of_four_modules_and_scale(client: FlaskClient) -> None:
    token = start_match(client)
    page = client.get(f"/m/{token}/share").get_data(as_text=True)
    for svg in re.findall(r'<svg viewBox="0 0 (\d+) \1" class="segno"><path transform="scale\(4\)"[^>]* d="M4 ', page):
        assert int(svg) % 4 == 0
    assert page.count('class="segno"') == 2 and 'width="' not in page.split('class="segno"')[0][-60:]


def test_after_the_end_the_record_buttons_warn_first(client: FlaskClient) -> None:
    token = start_match(client, end_kind="hands", end_hands="1")
    from tests.webutil import submit
    submit(client, f"/m/{token}/hands/new/points", {"dealer": "Anna", "points_0": "31", "points_1": "22",
                                                      "expected_count": "0"})
    page = client.get(f"/m/{token}/").get_data(as_text=True)
    assert "Match over" in page
    warning = page.index('<details id="after-end-record"><summary>Record a hand anyway (it counts for nothing)')
    assert warning < page.index('id="record-points"')
    after = submit(client, f"/m/{token}/hands/new/points", {"dealer": "Bruno", "points_0": "31", "points_1": "22",
                                                              "expected_count": "1"}, follow=True)
    said = after.get_data(as_text=True)
    assert "Hand 2 saved" in said and "The match was over: this hand counts for nothing." in said


def test_one_point_is_singular(client: FlaskClient) -> None:
    from flask import render_template_string

    with client.application.test_request_context("/?lang=en"):
        text = render_template_string('{{ ngettext("%(payer)s pays %(payee)s %(points)s point", '
                                      '"%(payer)s pays %(payee)s %(points)s points", 1, payer="A", payee="B", '
                                      'points="1") }}')
        assert text == "A pays B 1 point"
    with client.application.test_request_context("/?lang=it"):
        from flask_babel import force_locale
        with force_locale("it"):
            text = render_template_string('{{ ngettext("%(payer)s pays %(payee)s %(points)s point", '
                                          '"%(payer)s pays %(payee)s %(points)s points", 1, payer="A", payee="B", '
                                          'points="1") }}')
            assert text == "A paga a B 1 punto"


def test_the_suit_marks_come_only_with_pages_that_draw_cards(client: FlaskClient) -> None:
    """The sprite (about 1 KB) is sent where cards are drawn: the card grid, the live entry."""
    token = start_match(client)
    for path in ("hands/new/cards", "hands/new/honours", "hands/new/live"):
        page = client.get(f"/m/{token}/{path}").get_data(as_text=True)
        assert page.count('class="sprite"') == 1 and '<use href="#mark-i1"/>' in page, path
    for path in ("", "hands/new/points", "share"):
        page = client.get(f"/m/{token}/{path}").get_data(as_text=True)
        assert 'class="sprite"' not in page and "<use href" not in page, path


@pytest.mark.parametrize(("players", "labels"), [
    (["Anna", "Bruno", "Carla"], ["Anna", "Bruno", "Carla"]),
    (["Giulia Ferrari", "Massimiliano", "Gianni"], ["Giulia", "Massimi.", "Gianni"]),
    (["Giulia Ferrari", "Massimiliano", "Gianni", "Annamaria Lo"], ["Giulia", "Massi.", "Gianni", "Annam."]),
    (["Giulia Ferrari", "Giulia Bianchi", "Gianni"], ["GF", "GB", "Gianni"]),
    (["Ugo Neri", "Ugo Rossi", "Anna"], ["Ugo Neri", "Ugo R.", "Anna"]),
    (["Bartolomeo", "Bartolomea", "Ugo", "Eva"], ["Barto.", "B", "Ugo", "Eva"]),
])
def test_a_column_heading_fits_a_phone_and_names_one_player(players: list[str], labels: list[str]) -> None:
    """A heading holds at most 8 letters at three players, 6 at four; never two alike (any case)."""
    got = seat_labels(players)
    assert got == labels
    assert all(len(label) <= SEAT_LABEL_LETTERS[len(players)] for label in got)
    assert len({label.casefold() for label in got}) == len(players)
