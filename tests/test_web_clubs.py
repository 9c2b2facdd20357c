"""Club pages and the club JSON interface: capability links, CSRF, the forms, the API's answers."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.engine import club_files
from scorer.storage import clubs as club_store
from scorer.web import get_db
from tests.seed import dealt_by, match_file
from tests.spreadsheetutil import open_csv
from tests.webutil import csrf_token, submit

DEFAULTS = {"preset": "classic", "end_kind": "hands", "end_hands": "6", "end_target": "100",
            "settle": "per_point", "stake": "0,10", "currency": "eur", "pack": "italian", "language": "it"}


def new_club(client: FlaskClient, roster: str = "Anna, An\nBruno\nCarla\nDora") -> tuple[str, str]:
    """A club made through the form: (edit token, view token)."""
    response = submit(client, "/clubs/new", {"name": "Circolo Arci", "roster": roster, **DEFAULTS})
    assert response.status_code == 302, response.get_data(as_text=True)[:3000]
    edit = re.search(r"/c/([^/]+)/share", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    share = client.get(f"/c/{edit}/share").get_data(as_text=True)
    view = re.findall(r'value="http://scarto.test/c/([^/]+)/"', share)
    assert view[0] == edit
    return edit, view[1]


def player_ids(app: Flask, token: str) -> dict[str, int]:
    with app.app_context():
        club, _ = club_store.find_club(get_db(), token)
        return {p.name: p.id for p in club_store.roster(get_db(), club.id, merged=True)}


def start(client: FlaskClient, edit: str, ids: list[int]) -> str:
    response = submit(client, f"/c/{edit}/start", {"player": [str(i) for i in ids]})
    assert response.status_code == 302, response.get_data(as_text=True)[:3000]
    return response.headers["Location"].split("/m/")[1].strip("/")


def test_the_start_page_lists_the_clubs_this_phone_opened_leaving_out_a_token_that_opens_none(
        client: FlaskClient) -> None:
    first, _first_view = new_club(client)
    _second, second_view = new_club(client)
    client.set_cookie("clubs", f"{second_view}.{'0' * 24}.{first}", domain="scarto.test")
    page = client.get("/").get_data(as_text=True)
    listed = page[page.index("<h2>Clubs on this phone</h2>"):]
    listed = listed[:listed.index("</ul>")]
    assert re.findall(r'href="/c/([^/"]+)/"', listed) == [second_view, first]
    assert listed.count("view only") == 1 and listed.index("view only") < listed.index(first)


def test_a_club_is_made_with_its_defaults_and_roster(app: Flask, client: FlaskClient) -> None:
    edit, view = new_club(client)
    with app.app_context():
        club, can_edit = club_store.find_club(get_db(), edit)
        assert can_edit and club.name == "Circolo Arci"
        assert club.settings == {"language": "it", "pack": "italian", "ruleset": "classic", "end": {"hands": 6},
                                 "settle": "per_point", "stake": {"per_point": "0.10", "currency": "EUR"}}
        assert [(p.name, p.short) for p in club_store.roster(get_db(), club.id)] == [
            ("Anna", "An"), ("Bruno", None), ("Carla", None), ("Dora", None)]
    page = client.get(f"/c/{edit}/share").get_data(as_text=True)
    assert page.count('<div class="qr"><svg') == 2  # two QR codes
    assert client.get(f"/c/{view}/share").get_data(as_text=True).count('<div class="qr"><svg') == 1


def roster_errors(response: Any) -> list[str]:
    """The messages at the roster's box, one a line."""
    page = response.get_data(as_text=True)
    box = re.search(r'<span class="problem" role="alert" id="roster-error">(.*?)</span>', page)
    assert box is not None, page[:3000]
    return [html.unescape(m) for m in box.group(1).split("<br>")]


def test_a_bad_club_form_says_what_is_wrong(client: FlaskClient) -> None:
    response = submit(client, "/clubs/new?lang=en", {"name": "X", "roster": "Anna\nanna", **DEFAULTS})
    assert response.status_code == 400
    assert roster_errors(response) == ["“anna”: named twice: each player is listed once"]
    response = submit(client, "/clubs/new", {"name": "", **DEFAULTS})
    assert response.status_code == 400


def test_each_bad_roster_line_is_said_with_its_name_at_the_roster(client: FlaskClient) -> None:
    """The roster's errors said "line 3" (untranslated, and counting without the blank lines) at the top
    of the form, and a short name over 12 characters was cut without a word."""
    roster = "Anna\n\nBruno, Brunissimo Rossi\n" + "L" * 45 + "\nBruno\n, Ghost"
    response = submit(client, "/clubs/new?lang=en", {"name": "X", "roster": roster, **DEFAULTS})
    assert response.status_code == 400
    assert roster_errors(response) == [
        "“Bruno, Brunissimo Rossi”: a short name is at most 12 characters; this one has 16",
        f"“{'L' * 23}…”: a name is at most 40 characters; this one has 45",
        "“Bruno”: named twice: each player is listed once",
        "“, Ghost”: a player name must be non-empty text",
    ]
    shorts = submit(client, "/clubs/new?lang=en", {"name": "X", "roster": "Anna Rossi, An\nAndrea, an", **DEFAULTS})
    assert roster_errors(shorts) == ["“Andrea, an”: Anna Rossi has this short name already"]
    italian = submit(client, "/clubs/new?lang=it", {"name": "X", "roster": "Anna\nANNA", **DEFAULTS})
    assert roster_errors(italian) == ["«ANNA»: scritto due volte: ogni giocatore va indicato una volta sola"]


def test_a_refused_pick_keeps_the_players_ticked_and_says_each_typed_name_at_its_box(
        app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    response = submit(client, f"/c/{edit}/start?lang=en", {"player": [str(ids["Bruno"])], "new": "bruno\n" + "Z" * 41})
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert f'value="{ids["Bruno"]}" checked' in page
    box = re.search(r'id="new-error">(.*?)</span>', page)
    assert box is not None and html.unescape(box.group(1)).split("<br>") == [
        "“bruno”: named twice: each player is listed once",
        f"“{'Z' * 23}…”: a name is at most 40 characters; this one has 41"]
    short = submit(client, f"/c/{edit}/start?lang=en", {"player": [str(ids["Bruno"])], "new": "Zora"})
    assert "Pick 3 or 4 players: 2 picked." in short.get_data(as_text=True)
    assert f'value="{ids["Bruno"]}" checked' in short.get_data(as_text=True)


def test_a_roster_name_typed_in_another_case_is_that_player_spelled_as_the_roster(
        app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    response = submit(client, f"/c/{edit}/start", {"player": [str(ids["Bruno"]), str(ids["Carla"])],
                                                    "new": "  anna  "})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    token = response.headers["Location"].split("/m/")[1].strip("/")
    assert json.loads(client.get(f"/m/{token}/export.json").get_data())["players"] == ["Bruno", "Carla", "Anna"]
    assert len(player_ids(app, edit)) == 4  # no second Anna


def test_a_match_started_from_the_club_takes_its_defaults_and_most_recent_players_come_first(
        app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    token = start(client, edit, [ids["Bruno"], ids["Carla"], ids["Dora"]])
    data = json.loads(client.get(f"/m/{token}/export.json").get_data())
    assert data["players"] == ["Bruno", "Carla", "Dora"] and data["end"] == {"hands": 6}
    assert data["stake"] == {"per_point": "0.10", "currency": "EUR"} and data["language"] == "it"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", data["date"])
    page = client.get(f"/c/{edit}/start").get_data(as_text=True)
    order = [page.index(f'value="{ids[n]}"> {n}') for n in ("Bruno", "Carla", "Dora", "Anna")]
    assert order == sorted(order)
    assert "Bruno, Carla, Dora</button>" in page  # the same table again, one tap


def test_club_matches_are_titled_by_day_and_table_in_the_clubs_language(app: Flask, client: FlaskClient) -> None:
    """A club's list of matches read "Circolo Arci" on every line: each is titled by the day and the table."""
    from datetime import UTC, datetime

    from babel.dates import format_date

    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    first = start(client, edit, [ids["Bruno"], ids["Carla"], ids["Dora"]])
    second = start(client, edit, [ids["Anna"], ids["Carla"], ids["Dora"]])
    day = format_date(datetime.now(UTC).date(), "medium", locale="it")  # "6 dic 2026"
    titles = [json.loads(client.get(f"/m/{t}/export.json").get_data())["title"] for t in (first, second)]
    assert titles == [f"Circolo Arci, {day}, tavolo 1", f"Circolo Arci, {day}, tavolo 2"]
    page = html.unescape(client.get(f"/c/{edit}/").get_data(as_text=True))
    assert f"Circolo Arci, {day}, tavolo 2" in page and f"Circolo Arci, {day}, tavolo 1" in page


def test_a_short_name_typed_is_the_roster_player_with_the_full_name(app: Flask, client: FlaskClient) -> None:
    """A match of the club carries the roster's full names: "An" (Anna's short name) typed is Anna, not a new
    player called An."""
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    start_typed = submit(client, f"/c/{edit}/start", {"player": [str(ids["Bruno"]), str(ids["Carla"])],
                                                               "new": "an"})
    assert start_typed.status_code == 302, start_typed.get_data(as_text=True)[:2000]
    token = start_typed.headers["Location"].split("/m/")[1].strip("/")
    assert json.loads(client.get(f"/m/{token}/export.json").get_data())["players"] == ["Bruno", "Carla", "Anna"]
    assert len(player_ids(app, edit)) == 4  # no player called An
    twice = submit(client, f"/c/{edit}/start?lang=en", {"player": [str(ids["Anna"]), str(ids["Carla"])],
                                                        "new": "An"})
    assert twice.status_code == 400 and "named twice" in html.unescape(twice.get_data(as_text=True))


def test_a_club_match_seats_the_players_as_tapped_with_the_first_dealer_chosen(
        app: Flask, client: FlaskClient) -> None:
    """The phone sends the order the players were ticked in (the list's order is the latest play's) and
    the first dealer chosen: the match seats them so, and nobody is drawn."""
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    order = [ids["Carla"], ids["Anna"], ids["Dora"]]
    response = submit(client, f"/c/{edit}/start", {"player": [str(ids[n]) for n in ("Anna", "Carla", "Dora")],
                                                    "order": ",".join(map(str, order)),
                                                    "first_dealer": str(ids["Anna"])})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    token = response.headers["Location"].split("/m/")[1].strip("/")
    data = json.loads(client.get(f"/m/{token}/export.json").get_data())
    assert data["players"] == ["Carla", "Anna", "Dora"] and data["first_dealer"] == "Anna"
    assert "to deal first" not in html.unescape(client.get(f"/m/{token}/").get_data(as_text=True))


def test_a_table_of_four_from_the_roster_plays_the_clubs_rules_with_the_four_deal(
        app: Flask, client: FlaskClient) -> None:
    """RULES.md, Deals: a table playing the classic rules with four players uses {"preset": "classic",
    "deal": "four"}; a club on three-player rules seats four as such, and refuses five."""
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    four = [str(ids[n]) for n in ("Anna", "Bruno", "Carla", "Dora")]
    assert "A table of 4 plays the club's rules with the 4-player deal." in client.get(
        f"/c/{edit}/start?lang=en").get_data(as_text=True)
    response = submit(client, f"/c/{edit}/start", {"player": four, "order": ",".join(four),
                                                    "first_dealer": four[0]})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    token = response.headers["Location"].split("/m/")[1].strip("/")
    data = json.loads(client.get(f"/m/{token}/export.json").get_data())
    assert data["ruleset"] == {"preset": "classic", "deal": "four"} and len(data["players"]) == 4
    refused = submit(client, f"/c/{edit}/start?lang=en", {"player": four[:2]})
    assert refused.status_code == 400 and "Pick 3 or 4 players: 2 picked." in refused.get_data(as_text=True)


def test_without_scripts_the_seats_are_set_on_the_page_before_the_start(app: Flask, client: FlaskClient) -> None:
    """A phone without scripts: "Seats and first dealer" shows the ticked players in seats, each ↑ moves one
    up, and the start keeps the seats and the dealer chosen."""
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    ticked = [str(ids[n]) for n in ("Anna", "Bruno", "Carla")]
    shown = submit(client, f"/c/{edit}/start?lang=en", {"player": ticked, "seats": "1"})
    assert shown.status_code == 200
    page = shown.get_data(as_text=True)
    assert re.findall(r'<li class="player-row" data-player="(\d+)"', page) == ticked
    moved = submit(client, f"/c/{edit}/start?lang=en", {"player": ticked, "order": ",".join(ticked),
                                                         "up": str(ids["Carla"])})
    assert moved.status_code == 200
    seats = re.findall(r'<li class="player-row" data-player="(\d+)"', moved.get_data(as_text=True))
    assert seats == [str(ids[n]) for n in ("Anna", "Carla", "Bruno")]
    assert 'aria-label="Move Carla up one seat"' in moved.get_data(as_text=True)
    started = submit(client, f"/c/{edit}/start", {"player": ticked, "order": ",".join(seats),
                                                   "first_dealer": str(ids["Bruno"])})
    token = started.headers["Location"].split("/m/")[1].strip("/")
    data = json.loads(client.get(f"/m/{token}/export.json").get_data())
    assert data["players"] == ["Anna", "Carla", "Bruno"] and data["first_dealer"] == "Bruno"


def test_new_names_join_the_roster_and_a_wrong_count_is_refused(app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    response = submit(client, f"/c/{edit}/start", {"player": [str(ids["Anna"])]})
    assert response.status_code == 400 and "Pick 3 or 4 players: 1 picked." in response.get_data(as_text=True)
    response = submit(client, f"/c/{edit}/start", {"player": [str(ids["Anna"])], "new": "Ezio\nFranca"})
    assert response.status_code == 302
    assert {"Ezio", "Franca"} <= set(player_ids(app, edit))


def test_the_view_link_changes_nothing(app: Flask, client: FlaskClient) -> None:
    edit, view = new_club(client)
    ids = player_ids(app, edit)
    start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    page = client.get(f"/c/{view}/").get_data(as_text=True)
    assert "<form" not in page and f"/c/{view}/start" not in page
    assert "<form" not in client.get(f"/c/{view}/p/{ids['Anna']}").get_data(as_text=True)
    token = csrf_token(client.get(f"/c/{edit}/").get_data(as_text=True))
    for url in ("start", "settings", "add", f"p/{ids['Anna']}/rename", f"p/{ids['Anna']}/merge", "seasons"):
        response = client.post(f"/c/{view}/{url}", data={"csrf_token": token, "name": "X", "into": ids["Bruno"],
                                                          "player": [str(ids["Anna"])]})
        assert response.status_code == 403, url
    for url in ("start", "settings", "add"):
        assert client.get(f"/c/{view}/{url}").status_code == 403
    assert player_ids(app, edit)["Anna"] == ids["Anna"] and "X" not in player_ids(app, edit)
    response = client.post(f"/c/{view}/matches", json=match_file(3))
    assert response.status_code == 403 and response.is_json and "view-only" in response.get_json()["message"]


def test_wrong_tokens_are_404(client: FlaskClient) -> None:
    edit, _view = new_club(client)
    for url in ("/c/nope/", "/c/nope/table", "/c/nope/p/1", "/c/nope/share", "/c/nope/export.json",
                f"/c/{edit}/p/999", f"/c/{edit}/table?season=77", f"/c/{edit}/p/99999999999999999999",
                "/c/" + "x" * 80 + "/"):
        assert client.get(url).status_code == 404, url
    assert client.get("/c/nope/players.json").is_json
    assert client.post("/m/nope/hands.json", json={}).status_code == 404


def test_every_new_form_needs_its_csrf_token(app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    for url in ("/clubs/new", "/clubs/import", f"/c/{edit}/start", f"/c/{edit}/settings", f"/c/{edit}/add",
                f"/c/{edit}/p/{ids['Anna']}/rename", f"/c/{edit}/p/{ids['Anna']}/merge", f"/c/{edit}/seasons"):
        response = client.post(url, data={"name": "Zed", "player": [str(ids["Anna"])], "into": ids["Bruno"]})
        assert response.status_code == 400, url
    assert "Zed" not in player_ids(app, edit)


def test_rename_merge_and_the_history(app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    token = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    client.post(f"/m/{token}/hands.json", json={"dealer": "Anna", "points": {"Anna": 30, "Bruno": 24, "Carla": 24}})
    page_url = f"/c/{edit}/p/{ids['Bruno']}"
    response = submit(client, f"{page_url}/rename", {"name": "Bruno Bianchi", "short": "BB"}, page_url=page_url)
    assert response.status_code == 302
    response = submit(client, f"/c/{edit}/p/{ids['Dora']}/merge", {"into": ids["Bruno"]},
                      page_url=f"/c/{edit}/p/{ids['Dora']}")
    assert response.status_code == 302
    page = client.get(page_url).get_data(as_text=True)
    assert "Bruno Bianchi" in page and "Also played as: Bruno, Dora" in page
    club = client.get(f"/c/{edit}/").get_data(as_text=True)
    assert "Bruno is now called Bruno Bianchi" in club and "Dora merged into Bruno Bianchi" in club
    response = submit(client, f"/c/{edit}/p/{ids['Carla']}/merge", {"into": ids["Anna"]},
                      page_url=f"/c/{edit}/p/{ids['Carla']}", follow=True)
    assert "same table" in response.get_data(as_text=True)
    response = submit(client, f"/c/{edit}/p/{ids['Carla']}/rename", {"name": "anna"},
                      page_url=f"/c/{edit}/p/{ids['Carla']}", follow=True)
    assert "Another player of the club is called anna" in response.get_data(as_text=True)
    response = submit(client, f"/c/{edit}/p/{ids['Carla']}/rename?lang=en",
                      {"name": "Carla", "short": "Carlissima Zoe"}, page_url=f"/c/{edit}/p/{ids['Carla']}", follow=True)
    assert "A short name is at most 12 characters." in response.get_data(as_text=True)  # not blamed on the name
    # refused, the page keeps what was typed (it went back to the old name)
    assert response.status_code == 400 and 'value="Carlissima Zoe"' in response.get_data(as_text=True)
    taken = submit(client, f"/c/{edit}/p/{ids['Carla']}/rename?lang=en", {"name": "Anna", "short": "Ann"},
                   page_url=f"/c/{edit}/p/{ids['Carla']}")
    assert taken.status_code == 409 and 'value="Anna"' in taken.get_data(as_text=True).split("rename")[-1]
    stats = client.get(f"/c/{edit}/players.json").get_json()["players"]
    assert {p["name"]: p["total"] for p in stats} == {"Anna": 4, "Bruno Bianchi": -2, "Carla": -2}


def test_recent_form_links_each_match_and_leaves_out_one_not_played(app: Flask, client: FlaskClient) -> None:
    edit, view = new_club(client)
    ids = player_ids(app, edit)
    played = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    client.post(f"/m/{played}/hands.json", json={"dealer": "Anna", "points": {"Anna": 30, "Bruno": 24, "Carla": 24}})
    waiting = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Dora"]])  # seated, no hand yet
    for token, link in ((edit, played), (view, None)):
        page = client.get(f"/c/{token}/p/{ids['Anna']}?lang=en").get_data(as_text=True)
        form = page.split("Recent form</h2>")[1].split("</ul>")[0]
        assert form.count("<li>") == 1 and ", tavolo 1</a>" in form and "place 1 of 3" in form
        assert waiting not in form and (link is None or f'href="/m/{link}/"' in form)
    assert "Dora" not in client.get(f"/c/{edit}/table").get_data(as_text=True).split("<tbody>")[1]


def test_tied_players_share_their_place_on_the_club_page_as_on_its_table(app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    token = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    client.post(f"/m/{token}/hands.json", json={"dealer": "Anna", "points": {"Anna": 30, "Bruno": 24, "Carla": 24}})

    def places(page: str) -> list[str]:
        body = page.split('<table class="club-table">')[1].split("</table>")[0].split("<tbody>")[1]
        return re.findall(r'<tr><td class="num">(\d+)</td>', body)

    assert places(client.get(f"/c/{edit}/").get_data(as_text=True)) == ["1", "2", "2"]  # it said 1, 2, 3
    assert places(client.get(f"/c/{edit}/table").get_data(as_text=True)) == ["1", "2", "2"]


def test_a_stand_alone_match_joins_the_club_mapping_its_names(app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    response = client.post("/api/matches", json=match_file(3))
    match_edit = response.get_json()["edit_url"].split("/m/")[1].strip("/")
    response = submit(client, f"/c/{edit}/add", {"link": f"http://x/m/{match_edit}/"})
    assert response.status_code == 302 and f"match={match_edit}" in response.headers["Location"]
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert f'<option value="{ids["Anna"]}" selected>' in page
    response = submit(client, f"/c/{edit}/add?match={match_edit}",
                      {"seat_0": str(ids["Anna"]), "seat_1": str(ids["Dora"]), "seat_2": "new"})
    assert response.status_code == 302
    names = {p["name"]: p for p in client.get(f"/c/{edit}/players.json").get_json()["players"]}
    assert set(names) == {"Anna", "Dora", "Carla"} and names["Dora"]["hands"] == 3
    assert "Match added to the club" in client.get(f"/c/{edit}/").get_data(as_text=True)
    response = submit(client, f"/c/{edit}/add", {"link": "nonsense"})
    assert response.status_code == 400 and "No match has that link" in response.get_data(as_text=True)


def test_a_match_refused_by_a_limit_adds_nobody_to_the_roster(app: Flask, client: FlaskClient,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A seat's new player joined the roster before the match was refused (the roster full at the next
    seat, or the club's matches): the refusal left players behind."""
    edit, _view = new_club(client, "Anna")
    ids = player_ids(app, edit)
    monkeypatch.setattr(club_store, "MAX_ROSTER", 2)
    match_edit = client.post("/api/matches", json=match_file(3)).get_json()["edit_url"].split("/m/")[1].strip("/")
    response = submit(client, f"/c/{edit}/add?match={match_edit}",
                      {"seat_0": str(ids["Anna"]), "seat_1": "new", "seat_2": "new"})
    assert response.status_code == 400 and "at most 2" in response.get_data(as_text=True)
    assert list(player_ids(app, edit)) == ["Anna"]


def test_a_name_stored_before_names_were_normalised_still_finds_its_player(app: Flask) -> None:
    """A roster could hold "Jose" with the accent as a second character, or a zero-width space: the
    same name read now must find that player, not make a second one."""
    with app.app_context():
        db = get_db()
        club = club_store.create_club(db, "Circolo", [("Anna", None)])
        for legacy in ("Jose\u0301", "Bruno\u200b"):
            db.execute("INSERT INTO club_players (club_id, name, short, merged_into, created_at) "
                       "VALUES (?, ?, NULL, NULL, '2026-01-01T00:00:00Z')", [club.id, legacy])
        db.conn.commit()
        stored = {p.name: p.id for p in club_store.roster(db, club.id)}
        assert club_store.player_for(db, club.id, "Jos\u00e9").id == stored["Jose\u0301"]
        assert club_store.RosterNames(db, club.id).player_for("bruno").id == stored["Bruno\u200b"]
        with pytest.raises(club_store.NameTaken):
            club_store.add_player(db, club.id, "JOS\u00c9")
        assert len(club_store.roster(db, club.id)) == 3


def test_the_table_seasons_sorting_csv_and_pdf(app: Flask, client: FlaskClient) -> None:
    edit, view = new_club(client)
    data = match_file(6)
    assert client.post(f"/c/{edit}/matches", json=data).status_code == 201
    data2 = {**match_file(3), "date": "2025-01-01"}
    assert client.post(f"/c/{edit}/matches", json=data2).status_code == 201
    response = submit(client, f"/c/{edit}/seasons", {"name": "Autunno", "start": "2026-09-01", "end": "2026-12-31"},
                      page_url=f"/c/{edit}/")
    season = response.headers["Location"].split("season=")[1]
    all_time = client.get(f"/c/{view}/players.json").get_json()["players"]
    autumn = client.get(f"/c/{view}/players.json?from=2026-09-01&to=2026-12-31").get_json()["players"]
    assert {p["matches"] for p in all_time} == {2} and {p["matches"] for p in autumn} == {1}
    page = client.get(f"/c/{view}/table?season={season}").get_data(as_text=True)
    assert "Autunno" in page and "Who pays whom" in page and "<form" not in page
    assert client.get(f"/c/{view}/table?sort=per_hand").status_code == 200
    csv_text = client.get(f"/c/{view}/table.csv?season={season}").get_data(as_text=True)
    assert csv_text.splitlines()[0].startswith("\ufeffPosizione;Giocatore;Partite;Mani;Totale")
    assert len(csv_text.splitlines()) == 4
    pdf = client.get(f"/c/{view}/table.pdf?season={season}")
    assert pdf.status_code == 200 and pdf.data[:5] == b"%PDF-"
    assert client.get(f"/c/{view}/players.json?from=2026-13-01").status_code == 400
    assert client.post(f"/c/{edit}/seasons/{season}/delete").status_code == 400  # no CSRF token
    response = submit(client, f"/c/{view}/seasons/{season}/delete", {}, page_url=f"/c/{edit}/")
    assert response.status_code == 403
    response = submit(client, f"/c/{edit}/seasons/{season}/delete", {}, page_url=f"/c/{edit}/table?season={season}")
    assert response.status_code == 302 and client.get(f"/c/{view}/table?season={season}").status_code == 404
    assert client.get(f"/c/{view}/players.json").get_json()["players"] == all_time


def test_the_table_csv_opens_in_a_spreadsheet_as_numbers_in_the_clubs_language(client: FlaskClient,
                                                                              tmp_path: Path) -> None:
    """LibreOffice opens the season's table in the club's language (Italian: the decimal comma, ";"
    between cells): Italian headers, totals and averages as numbers, the exact thirds as text, no date."""
    edit, view = new_club(client)
    thirds = {**match_file(0), "hands": [{"dealer": "Anna", "points": {"Anna": "58/3", "Bruno": "77/3", "Carla": 33}},
                                         {"dealer": "Bruno", "points": {"Anna": 26, "Bruno": 26, "Carla": 26}}]}
    assert client.post(f"/c/{edit}/matches", json=thirds).status_code == 201
    response = client.get(f"/c/{view}/table.csv")
    assert "circolo-arci-di-sempre.csv" in response.headers["Content-Disposition"]
    head, *rows = open_csv(response.data, "it", tmp_path)
    assert [c.value for c in head] == ["Posizione", "Giocatore", "Partite", "Mani", "Totale",
                                       "Totale (frazione esatta)", "Per mano", "Vittorie", "Ultimi posti",
                                       "Mani date", "Infrazioni"]
    got = {row[1].value: [(c.kind, c.value) for c in row] for row in rows}
    assert got["Carla"][:7] == [("float", "1"), ("string", "Carla"), ("float", "1"), ("float", "2"),
                                ("float", "7"), ("float", "7"), ("float", "3.5")]
    assert got["Bruno"][4:7] == [("float", "-0.33"), ("string", "−⅓"), ("float", "-0.17")]
    assert got["Anna"][4:7] == [("float", "-6.67"), ("string", "−6⅔"), ("float", "-3.33")]
    assert {c.kind for row in rows for c in row} == {"float", "string"}


def test_a_refused_season_keeps_what_was_typed_and_says_at_each_field_why(client: FlaskClient) -> None:
    """The season form said one generic sentence and lost what was typed; a second "autunno" was taken."""
    edit, _view = new_club(client)
    typed = {"name": "Autunno", "start": "2026-12-31", "end": "2026-09-01"}
    backwards = submit(client, f"/c/{edit}/seasons?lang=en", typed, page_url=f"/c/{edit}/")
    page = html.unescape(backwards.get_data(as_text=True))
    assert backwards.status_code == 400 and '<details id="new-season" open>' in page
    assert 'id="end-error">The last day cannot come before the first.</span>' in page
    assert 'value="Autunno"' in page and 'value="2026-12-31"' in page and 'value="2026-09-01"' in page
    kept = submit(client, f"/c/{edit}/seasons", {**typed, "start": "2026-09-01", "end": "2026-12-31"},
                  page_url=f"/c/{edit}/")
    assert kept.status_code == 302
    twice = submit(client, f"/c/{edit}/seasons?lang=en", {"name": " autunno ", "start": "2027-09-01",
                                                          "end": "2027-12-31"}, page_url=f"/c/{edit}/")
    assert twice.status_code == 400
    assert 'id="name-error">The club has a season called autunno already.</span>' in twice.get_data(as_text=True)
    nameless = submit(client, f"/c/{edit}/seasons?lang=en", {"name": "", "start": "2027-09-01", "end": "x"},
                      page_url=f"/c/{edit}/")
    page = nameless.get_data(as_text=True)
    assert nameless.status_code == 400 and 'id="name-error"' in page and 'id="end-error"' in page
    assert page.count("<h2>") > 3  # the whole club page, not a bare form


def test_the_api_creates_a_club_and_club_matches(client: FlaskClient) -> None:
    response = client.post("/api/clubs", json={"format": "scarto-club/1", "name": "Bar Sport",
                                               "players": ["Anna", {"name": "Bruno", "short": "B"}]})
    assert response.status_code == 201
    body = response.get_json()
    edit = body["edit_url"].split("/c/")[1].strip("/")
    view = body["view_url"].split("/c/")[1].strip("/")
    response = client.post(f"/c/{edit}/matches", json=match_file(3))
    assert response.status_code == 201 and set(response.get_json()) == {"edit_url", "view_url"}
    players = client.get(f"/c/{view}/players.json").get_json()
    assert players["format"] == "scarto-players/1"
    assert [p["name"] for p in players["players"]] and {p["name"] for p in players["players"]} == {
        "Anna", "Bruno", "Carla"}
    assert sum(int(p["total"]) for p in players["players"]) == 0
    exported = client.get(f"/c/{view}/export.json")
    again = client.post("/api/clubs", data=exported.data, content_type="application/json")
    assert again.status_code == 201
    view2 = again.get_json()["view_url"].split("/c/")[1].strip("/")
    assert client.get(f"/c/{view2}/export.json").data == exported.data


@pytest.mark.parametrize("body", [b"", b"[1", b'{"format": "scarto-club/1"}', b'{"name": "x", "players": 3}',
                                  b'{"name": "x", "matches": [{"players": []}]}'])
def test_a_bad_club_body_is_400_with_problems(client: FlaskClient, body: bytes) -> None:
    response = client.post("/api/clubs", data=body, content_type="application/json")
    assert response.status_code == 400 and response.get_json()["problems"]


def test_the_api_refuses_what_is_not_json(client: FlaskClient) -> None:
    assert client.post("/api/clubs", data="name=x").status_code == 415


def test_hands_json_for_any_match(client: FlaskClient) -> None:
    token = client.post("/api/matches", json={**match_file(3), "hands": []}).get_json()["edit_url"].split(
        "/m/")[1].strip("/")
    hand = dealt_by("classic-valid-1", "Anna")
    assert client.post(f"/m/{token}/hands.json", json=hand).get_json() == {"number": 1}
    response = client.post(f"/m/{token}/hands.json", json={**dealt_by("classic-points", "Bruno"), "number": 2})
    assert response.status_code == 201 and response.get_json() == {"number": 2}
    response = client.post(f"/m/{token}/hands.json", json={**dealt_by("classic-points", "Carla"), "number": 2})
    assert response.status_code == 409
    response = client.post(f"/m/{token}/hands.json", json={**dealt_by("classic-points", "Carla"), "number": 9})
    assert response.status_code == 400
    response = client.post(f"/m/{token}/hands.json", json={"dealer": "Anna", "points": {"Anna": 1, "Bruno": 2,
                                                                                     "Carla": 3}})
    assert response.status_code == 400 and response.get_json()["problems"][0]["code"] == "points_total"
    response = client.post(f"/m/{token}/hands.json", json=dealt_by("classic-breach", "Carla"))
    assert response.status_code == 201 and response.get_json() == {"number": 3}  # stored, marked
    assert client.post(f"/m/{token}/hands.json", data="dealer=Anna").status_code == 415
    assert client.post(f"/m/{token}/hands.json", json=[1]).status_code == 400
    view = client.get(f"/m/{token}/share").get_data(as_text=True)
    view_token = [t for t in re.findall(r'/m/([A-Za-z0-9_-]{24})/', view) if t != token][-1]
    assert client.post(f"/m/{view_token}/hands.json", json=hand).status_code == 403
    standings = client.get(f"/m/{token}/standings.json").get_json()
    assert len(standings["hands"]) == 3 and standings["hands"][2]["problems"]


def test_hands_json_honours_the_idempotency_key(app: Flask, client: FlaskClient) -> None:
    token = client.post("/api/matches", json={**match_file(3), "hands": []}).get_json()["edit_url"].split(
        "/m/")[1].strip("/")
    key = {"Idempotency-Key": "program-hand-0001"}
    hand = {"dealer": "Anna", "points": {"Anna": 30, "Bruno": 28, "Carla": 20}}
    answers = [client.post(f"/m/{token}/hands.json", json=hand, headers=key) for _ in range(2)]
    assert [(a.status_code, a.get_json()) for a in answers] == [(201, {"number": 1})] * 2  # the first answer again
    other = client.post(f"/m/{token}/hands.json", json={**hand, "points": {"Anna": 10, "Bruno": 10, "Carla": 58}},
                        headers=key)
    assert other.status_code == 409
    assert other.get_json()["error"] == "key_reused"
    assert "already used for another request" in other.get_json()["message"]
    assert "nothing was saved" in other.get_json()["message"]
    export = client.get(f"/m/{token}/export.json").get_json()
    assert [h["points"]["Anna"] for h in export["hands"]] == [30]
    again = client.post(f"/m/{token}/hands.json", json=hand, headers={"Idempotency-Key": "program-hand-0002"})
    assert again.get_json() == {"number": 2}  # another key: another hand


def test_a_club_file_imported_in_the_browser(client: FlaskClient) -> None:
    edit, _view = new_club(client)
    client.post(f"/c/{edit}/matches", json=match_file(6))
    exported = client.get(f"/c/{edit}/export.json").get_data(as_text=True)
    response = submit(client, "/clubs/import", {"text": exported})
    assert response.status_code == 302
    assert "Club imported: 1 match." in client.get(response.headers["Location"]).get_data(as_text=True)
    new_edit = response.headers["Location"].split("/c/")[1].split("/")[0]
    assert client.get(f"/c/{new_edit}/export.json").get_data(as_text=True) == exported
    response = submit(client, "/clubs/import", {"text": '{"format": "scarto-club/1", "name": "x", "seasons": 1}'})
    assert response.status_code == 400 and "seasons" in response.get_data(as_text=True)


def test_the_pages_speak_italian_and_german(client: FlaskClient) -> None:
    edit, _view = new_club(client)
    page = client.get(f"/c/{edit}/?lang=it").get_data(as_text=True)
    assert "Classifica di sempre" in page and "Aggiungi una partita" in page
    assert "Gewonnene Partien" in client.get(f"/c/{edit}/p/1?lang=de").get_data(as_text=True)
    for lang, words in (("it", "Scarica il file del circolo"), ("de", "Nächsten Teil hinzufügen"),
                        ("fi", "Lisää seuraava osa"), ("es", "Descargar el archivo del club")):
        assert words in client.get(f"/c/{edit}/file?lang={lang}").get_data(as_text=True)


def test_a_page_from_before_a_merge_cannot_seat_the_merged_entry(app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    start_page = client.get(f"/c/{edit}/start").get_data(as_text=True)  # opened before the merge
    submit(client, f"/c/{edit}/p/{ids['Dora']}/merge", {"into": ids["Anna"]}, page_url=f"/c/{edit}/p/{ids['Dora']}")
    response = client.post(f"/c/{edit}/start", data={"csrf_token": csrf_token(start_page),
                                                     "player": [str(ids["Dora"]), str(ids["Bruno"]),
                                                                str(ids["Carla"])]})
    assert response.status_code == 400 and "That player is not on the club" in response.get_data(as_text=True)
    assert [n for n in player_ids(app, edit) if n == "Dora"] == ["Dora"]  # no second Dora made


def test_a_club_match_leads_back_to_the_club_only_on_a_phone_that_opened_the_club(
        app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    token = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    assert f'href="/c/{edit}/"' in client.get(f"/m/{token}/").get_data(as_text=True)
    stranger = app.test_client()  # has the match's link, not the club's
    page = stranger.get(f"/m/{token}/").get_data(as_text=True)
    assert "/c/" not in page


def test_settings_change_the_name_and_the_defaults_of_new_matches_only(app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    first = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    response = submit(client, f"/c/{edit}/settings", {**DEFAULTS, "name": "Bar Sport", "end_kind": "target",
                                                      "end_target": "61", "stake": "", "settle": "loser_pays"})
    assert response.status_code == 302
    with app.app_context():
        club, _ = club_store.find_club(get_db(), edit)
    assert club.name == "Bar Sport"
    assert club.settings == {"language": "it", "pack": "italian", "ruleset": "classic", "end": {"target": 61},
                             "settle": "loser_pays"}
    second = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    assert json.loads(client.get(f"/m/{first}/export.json").data)["end"] == {"hands": 6}
    assert json.loads(client.get(f"/m/{second}/export.json").data)["end"] == {"target": 61}
    response = submit(client, f"/c/{edit}/settings", {**DEFAULTS, "name": "X", "stake": "lots"})
    assert response.status_code == 400 and "Write the stake as an amount" in response.get_data(as_text=True)


def test_a_match_file_added_to_the_club(app: Flask, client: FlaskClient) -> None:
    import io

    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    data = {**match_file(3), "players": ["anna", "Bruno", "Zoe"]}
    data = json.loads(json.dumps(data).replace('"Anna"', '"anna"').replace('"Carla"', '"Zoe"'))
    page = client.get(f"/c/{edit}/add").get_data(as_text=True)
    response = client.post(f"/c/{edit}/add", data={"csrf_token": csrf_token(page),
                                                   "file": (io.BytesIO(json.dumps(data).encode()), "m.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    mapping = client.get(response.headers["Location"]).get_data(as_text=True)
    assert f'<option value="{ids["Anna"]}" selected>' in mapping  # same name in another case
    assert f'<option value="{ids["Bruno"]}" selected>' in mapping
    assert 'value="new" selected' in mapping  # Zoe is not on the roster
    match_token = response.headers["Location"].split("match=")[1]
    response = submit(client, f"/c/{edit}/add?match={match_token}",
                      {"seat_0": str(ids["Anna"]), "seat_1": str(ids["Bruno"]), "seat_2": "new"})
    assert response.status_code == 302
    assert {p["name"] for p in client.get(f"/c/{edit}/players.json").get_json()["players"]} == {
        "Anna", "Bruno", "Zoe"}
    bad = client.post(f"/c/{edit}/add", data={"csrf_token": csrf_token(page),
                                              "file": (io.BytesIO(b"{not json"), "m.json")},
                      content_type="multipart/form-data")
    assert bad.status_code == 400 and "file:" in bad.get_data(as_text=True)


def test_the_club_api_maps_names_in_any_case_to_the_roster(client: FlaskClient) -> None:
    body = client.post("/api/clubs", json={"name": "Bar", "players": ["Anna", "Bruno", "Carla"]}).get_json()
    edit = body["edit_url"].split("/c/")[1].strip("/")
    data = json.loads(json.dumps(match_file(3)).replace('"Anna"', '"ANNA"'))
    assert client.post(f"/c/{edit}/matches", json=data).status_code == 201
    players = client.get(f"/c/{edit}/players.json").get_json()["players"]
    assert sorted(p["name"] for p in players) == ["Anna", "Bruno", "Carla"]
    assert client.post(f"/c/{edit}/matches", json={"format": "scarto-match/1"}).status_code == 400


def test_a_large_club_file_goes_in_parts_and_comes_back_whole(client: FlaskClient,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A club's export past the upload limit (16 MB: some 5,000 full records) could not be opened again."""
    edit, view = new_club(client)
    for hands in (6, 1, 4, 2, 5):
        assert client.post(f"/c/{edit}/matches", json=match_file(hands)).status_code == 201
    whole = client.get(f"/c/{view}/export.json").get_data(as_text=True)
    page = client.get(f"/c/{view}/file").get_data(as_text=True)
    assert f"/c/{view}/export.json" in page and "Add the next part" not in page  # one file; the view link adds none
    monkeypatch.setattr(club_files, "CLUB_PART_BYTES", 20_000)
    page = client.get(f"/c/{view}/file").get_data(as_text=True)
    links = re.findall(rf'href="(/c/{view}/export.json\?part=\d+)"', page)
    assert len(links) >= 3 and "Add the next part" not in page
    asked = client.get(f"/c/{view}/export.json")
    assert asked.status_code == 409 and asked.get_json()["parts"] == [f"http://scarto.test{u}" for u in links]
    assert client.get(f"/c/{view}/export.json?part=x").status_code == 400
    assert client.get(f"/c/{view}/export.json?part={len(links) + 1}").status_code == 404
    parts = [client.get(u) for u in links]
    assert f'-2-of-{len(links)}.json' in parts[1].headers["Content-Disposition"]
    texts = [p.get_data(as_text=True) for p in parts]

    later = submit(client, "/clubs/import", {"text": texts[1]})
    assert later.status_code == 400 and f"part 2 of {len(texts)}" in later.get_data(as_text=True)
    opened = submit(client, "/clubs/import", {"text": texts[0]}, follow=True)
    assert f"Part 1 of {len(texts)} imported" in opened.get_data(as_text=True)
    new_edit = re.search(r'value="http://scarto.test/c/([^/]+)/"', opened.get_data(as_text=True)).group(1)  # type: ignore[union-attr]
    early = submit(client, f"/c/{new_edit}/file/part", {"text": texts[2]}, page_url=f"/c/{new_edit}/file")
    assert early.status_code == 400 and "this is part 3: add part 2 first" in early.get_data(as_text=True)
    assert submit(client, f"/c/{view}/file/part", {"text": texts[1]}, page_url="/clubs/import").status_code == 403
    for number, text in enumerate(texts[1:-1], start=2):
        added = submit(client, f"/c/{new_edit}/file/part", {"text": text}, page_url=f"/c/{new_edit}/file",
                       follow=True)
        assert f"Part {number} of {len(texts)} added" in added.get_data(as_text=True)
    api = client.post(f"/c/{new_edit}/parts", data=texts[-1], content_type="application/json")
    assert api.status_code == 201 and api.get_json() == {"added": len(json.loads(texts[-1])["matches"]), "matches": 5}
    again = client.post(f"/c/{new_edit}/parts", data=texts[-1], content_type="application/json")
    assert again.status_code == 400 and again.get_json()["problems"][0]["code"] == "part.again"
    assert client.post(f"/c/{view}/parts", data=texts[-1], content_type="application/json").status_code == 403
    assert client.post("/c/nope/parts", data=texts[-1], content_type="application/json").status_code == 404
    assert [client.get(u.replace(view, new_edit)).get_data(as_text=True) for u in links] == texts
    monkeypatch.undo()
    assert client.get(f"/c/{new_edit}/export.json").get_data(as_text=True) == whole


def test_the_club_settings_set_house_rules_that_its_new_matches_play(app: Flask, client: FlaskClient) -> None:
    """The settings form offered only a preset: a club of house rules could set them only in a club file,
    and saving the settings then dropped them."""
    edit, _view = new_club(client)
    form = client.get(f"/c/{edit}/settings").get_data(as_text=True)
    assert 'name="ultimo"' in form and "<details>" in form  # closed: every switch as the preset says
    response = submit(client, f"/c/{edit}/settings", {**DEFAULTS, "name": "Circolo Arci", "ultimo": "true",
                                                      "overtrump": "true", "fool_forfeit": "false"})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    with app.app_context():
        club, _ = club_store.find_club(get_db(), edit)
    assert club.settings["ruleset"] == {"preset": "classic", "overtrump": True, "ultimo": True}  # as classic: none
    form = client.get(f"/c/{edit}/settings").get_data(as_text=True)
    assert "<details open>" in form
    assert re.search(r'<select id="ultimo" name="ultimo">.*?<option selected value="true">', form, re.S)
    ids = player_ids(app, edit)
    match = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    assert json.loads(client.get(f"/m/{match}/export.json").data)["ruleset"] == {
        "preset": "classic", "overtrump": True, "ultimo": True}
    with app.app_context():  # a deal from a club file, which the form does not show, stays with its preset
        club_store.update_club(get_db(), club.id, club.name, {**club.settings, "ruleset": {
            "preset": "classic", "deal": "four", "ultimo": True}})
    submit(client, f"/c/{edit}/settings", {**DEFAULTS, "name": "Circolo Arci", "ultimo": "true"})
    with app.app_context():
        assert club_store.find_club(get_db(), edit)[0].settings["ruleset"] == {
            "preset": "classic", "ultimo": True, "deal": "four"}
    submit(client, f"/c/{edit}/settings", {**DEFAULTS, "name": "Circolo Arci", "ultimo": ""})
    with app.app_context():
        assert club_store.find_club(get_db(), edit)[0].settings["ruleset"] == {"preset": "classic", "deal": "four"}


def test_a_refused_club_form_says_why_at_each_box(client: FlaskClient) -> None:
    """A currency past its 8 characters was refused with a 400 and no word anywhere; a club name of only
    a zero-width space read "name: a player name must be non-empty text"."""
    response = submit(client, "/clubs/new?lang=en", {"name": "\u200b", "roster": "Anna\nBruno\nCarla",
                                                     **{**DEFAULTS, "currency": "EUROSEURO"}})
    page = html.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "9 characters long; at most 8 are allowed here: shorten it" in page
    response = submit(client, "/clubs/new?lang=en", {"name": "\u200b", "roster": "Anna\nBruno\nCarla", **DEFAULTS})
    page = html.unescape(response.get_data(as_text=True))
    assert response.status_code == 400 and "the name is empty: write one" in page
    assert "player name" not in page and "name:" not in page


# --- ratings ---------------------------------------------------------------------


def _rated(client: FlaskClient, token: str) -> dict[str, Any]:
    response = client.get(f"/c/{token}/ratings.json")
    assert response.status_code == 200
    return response.get_json()


def _rated_file(client: FlaskClient, token: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What ``scarto ratings --json`` gives for the club's exported file: a fresh computation, no database."""
    from scorer.cli import main

    path = tmp_path / "club.json"
    path.write_bytes(client.get(f"/c/{token}/export.json").data)
    assert main(["ratings", "--json", str(path)]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_ratings_after_every_change_are_a_fresh_computation_from_the_clubs_file(
        app: Flask, client: FlaskClient, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """Edits, deletes, restores, an old match added later, a rename and a merge: the club's
    ``ratings.json`` is each time what the command line computes from the club's file."""
    from scorer.storage import store
    from tests.matchutil import points_match

    tables = [("Anna", "Bruno", "Carla"), ("Anna", "Bruno", "Dora"), ("Elia", "Carla", "Dora"),
              ("Carla", "Anna", "Bruno")]
    matches = [{**points_match(3, seed=i, players=t), "date": f"2026-12-{i + 2:02d}"} for i, t in enumerate(tables)]
    body = client.post("/api/clubs", json={"name": "Bar Sport", "players": ["Anna", "Bruno", "Carla", "Dora", "Elia"],
                                           "matches": matches}).get_json()
    edit, view = (body[k].split("/c/")[1].strip("/") for k in ("edit_url", "view_url"))
    first = _rated(client, view)
    assert first["format"] == "scarto-ratings/1" and first == _rated(client, edit)
    assert first == _rated_file(client, view, tmp_path, capsys)
    assert {p["name"]: p["matches"] for p in first["players"]} == {"Anna": 3, "Bruno": 3, "Carla": 3, "Dora": 2,
                                                                   "Elia": 1}
    with app.app_context():
        db = get_db()
        club, _ = club_store.find_club(db, edit)
        match_id = club_store.club_matches(db, club.id)[-1].id  # the oldest
        key = store.list_hands(db, match_id)[0].key
        store.update_hand(db, match_id, key, {"dealer": "Anna", "points": {"Anna": 4, "Bruno": 4, "Carla": 70}})
    edited = _rated(client, view)
    assert edited != first and edited == _rated_file(client, view, tmp_path, capsys)
    with app.app_context():
        store.delete_hand(get_db(), match_id, key)
    assert _rated(client, view) == _rated_file(client, view, tmp_path, capsys)
    with app.app_context():
        store.restore_revision(get_db(), match_id, key, 1)
    assert _rated(client, view) == first
    old = {**points_match(3, seed=9, players=("Dora", "Anna", "Bruno")), "date": "2026-11-01"}
    assert client.post(f"/c/{edit}/matches", json=old).status_code == 201
    added = _rated(client, view)
    assert added == _rated_file(client, view, tmp_path, capsys)
    ids = player_ids(app, edit)
    with app.app_context():
        club_store.rename_player(get_db(), club.id, ids["Bruno"], "Bruno Bianchi", None)
    renamed = _rated(client, view)
    assert [(p["name"], p["rating"], p["mu"]) for p in renamed["players"]] == [
        ("Bruno Bianchi" if p["name"] == "Bruno" else p["name"], p["rating"], p["mu"]) for p in added["players"]]
    assert renamed == _rated_file(client, view, tmp_path, capsys)
    with app.app_context():
        club_store.merge_players(get_db(), club.id, ids["Elia"], ids["Bruno"])
    merged = _rated(client, view)
    assert "Elia" not in {p["name"] for p in merged["players"]}
    assert {p["name"]: p["matches"] for p in merged["players"]}["Bruno Bianchi"] == 5
    assert merged == _rated_file(client, view, tmp_path, capsys)


def test_the_ratings_of_no_club_are_404(client: FlaskClient) -> None:
    response = client.get("/c/nope/ratings.json")
    assert response.status_code == 404 and response.get_json()["error"] == "not_found"


def test_a_roster_with_look_alike_names_is_kept_with_a_warning(app: Flask, client: FlaskClient) -> None:
    response = submit(client, "/clubs/new", {"name": "Circolo", "roster": "Anna\n\u0410nna\nBruno\nCarla",
                                             **DEFAULTS}, follow=True)
    page = html.unescape(response.get_data(as_text=True))
    assert response.status_code == 200
    assert "“Anna” and “\u0410nna” look alike but are written with different letters" in page
    edit = re.search(r"/c/([^/]+)/share", response.request.path).group(1)  # type: ignore[union-attr]
    ids = player_ids(app, edit)
    assert len(ids) == 4  # two players, as typed
    renamed = client.post(f"/c/{edit}/p/{ids['Bruno']}/rename", data={
        "csrf_token": csrf_token(client.get(f"/c/{edit}/p/{ids['Bruno']}").get_data(as_text=True)),
        "name": "C\u0430rla"}, follow_redirects=True)  # a Cyrillic а
    said = html.unescape(renamed.get_data(as_text=True))
    assert "“C\u0430rla” and “Carla” look alike" in said and "“Anna” and" not in said  # only the new pair


def test_a_players_page_counts_the_points_given_up_in_the_hands_already_reviewed(
        app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only reviews already kept count (the player page makes none); each hand's review is the engine's."""
    from scorer.engine.analysis import analyse
    from scorer.engine.numbers import fraction_text
    from scorer.engine.records import parse_hand
    from scorer.storage import reviews
    from scorer.web.reviews import reviewer

    monkeypatch.setitem(reviews.REVIEW_TRICKS, "three", 4)  # a second of search per review
    edit, _view = new_club(client, roster="Anna\nBruno\nCarla")
    ids = player_ids(app, edit)
    token = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    fixture = Path(__file__).parent / "fixtures" / "hands" / "classic-valid-1.json"
    body = json.loads(fixture.read_text())
    saved = client.post(f"/m/{token}/hands.json",
                        json={k: v for k, v in body.items() if k not in ("format", "players", "ruleset")})
    assert saved.status_code in (200, 201), saved.get_data(as_text=True)
    key = re.search(r"/hands/([0-9a-f]+)/", client.get(f"/m/{token}/").get_data(as_text=True))
    assert key
    client.post(f"/m/{token}/hands.json", json={"dealer": "Carla", "points": {"Anna": 30, "Bruno": 24, "Carla": 24}})
    page_url = f"/c/{edit}/p/{ids['Bruno']}?lang=en"
    assert 'id="given-up"' not in client.get(page_url).get_data(as_text=True)  # nothing reviewed yet, none made
    with app.app_context():
        assert reviewer().idle(180)  # an earlier test's review may still be running in this process
    client.get(f"/m/{token}/hands/{key.group(1)}/audit")  # the audit asks for the review
    with app.app_context():
        assert reviewer().idle(180)
    record = parse_hand(json.loads(fixture.read_text()))
    lost = analyse(record, reviews.first_trick(record)).given_up()[1]
    page = client.get(page_url).get_data(as_text=True)
    section = page.split('id="given-up"')[1].split("</section>")[0]
    assert re.search(r"Analysed hands</th><td class=\"num\">1<", section)
    assert f'Given up in all</th><td class="num">{fraction_text(lost)}<' in section
    assert "<svg" in section and "From the review of 1 hand" in section
