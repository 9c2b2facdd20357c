"""Club nights over the web: the JSON interface (docs/NIGHT.md), the director's form and view,
the members' view, the state tag, the sheets, and the night counting in the club."""

from __future__ import annotations

import csv
import html
import io
import re
import subprocess
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.storage import clubs as club_store
from scorer.storage import nights as night_store
from scorer.web import get_db
from tests.spreadsheetutil import open_csv
from tests.webutil import csrf_token, submit

NINE = ["Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Gina", "Ugo", "Zeno"]


def new_club(client: FlaskClient, players: list[str] | None = None, language: str = "it") -> tuple[str, str]:
    body = {"format": "scarto-club/1", "name": "Circolo Arci", "players": players or NINE[:6],
            "defaults": {"language": language, "ruleset": "classic"}}
    response = client.post("/api/clubs", json=body)
    assert response.status_code == 201
    data = response.get_json()
    return data["edit_url"].split("/c/")[1].strip("/"), data["view_url"].split("/c/")[1].strip("/")


def new_night(client: FlaskClient, club: str, **extra: Any) -> tuple[str, str]:
    body = {"format": "scarto-night/1", "title": "Giovedì", "date": "2026-12-03", "players": NINE, "rounds": 3,
            "seating": "mixed", "ranking": "total", "seed": 7, **extra}
    response = client.post(f"/c/{club}/nights", json=body)
    assert response.status_code == 201, response.get_json()
    data = response.get_json()
    assert response.headers["Location"] == data["edit_url"]
    return data["edit_url"].split("/n/")[1].strip("/"), data["view_url"].split("/n/")[1].strip("/")


def token_of(url: str) -> str:
    return url.split("/m/")[1].strip("/")


def play_table(client: FlaskClient, table: dict[str, Any], points: tuple[int, ...] = (31, 25, 22),
               hands: int | None = None) -> None:
    """Record the table's round: each player deals once, the first seat scoring most."""
    players = table["players"]
    split = points if len(players) == 3 else (25, 20, 18, 15)
    for i in range(hands if hands is not None else len(players)):
        body = {"dealer": players[i % len(players)], "points": dict(zip(players, split, strict=True))}
        response = client.post(f"/m/{token_of(table['match_url'])}/hands.json", json=body)
        assert response.status_code == 201, response.get_json()


def night(client: FlaskClient, token: str) -> dict[str, Any]:
    response = client.get(f"/n/{token}/night.json")
    assert response.status_code == 200
    return response.get_json()  # type: ignore[no-any-return]


def pdf_text(data: bytes) -> str:
    run = subprocess.run(["pdftotext", "-layout", "-", "-"], input=data, capture_output=True, check=True)
    return run.stdout.decode()


# --- the JSON interface ----------------------------------------------------------------


def test_a_night_of_nine_is_seated_in_three_tables_as_matches_of_the_club(app: Flask, client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, view = new_night(client, club)
    data = night(client, edit)
    assert data["format"] == "scarto-night/1" and data["title"] == "Giovedì" and data["seed"] == 7
    assert data["rounds_planned"] == 3 and data["hands_per_round"] is None
    [round_] = data["rounds"]
    assert round_["number"] == 1 and round_["bye"] == []
    seated = [p for t in round_["tables"] for p in t["players"]]
    assert sorted(seated) == sorted(NINE) and [t["number"] for t in round_["tables"]] == [1, 2, 3]
    assert all(t["hands"] == 0 and t["done"] is False for t in round_["tables"])
    assert [line["name"] for line in data["ranking"]] and len(data["ranking"]) == 9
    with app.app_context():
        db = get_db()
        club_row, _ = club_store.find_club(db, club)
        roster = {p.name for p in club_store.roster(db, club_row.id)}
        assert set(NINE) <= roster  # the three new names joined the roster
        for table in round_["tables"]:
            from scorer.storage import store

            match, can_edit = store.find_match(db, token_of(table["match_url"]))
            assert can_edit and club_store.club_of(db, match.id) == club_row.id
            assert match.settings["title"] == f"Giovedì, turno 1, tavolo {table['number']}"  # the club's language
            assert match.players == table["players"] and match.settings["first_dealer"] == table["players"][0]
            assert match.settings["date"] == "2026-12-03" and match.settings["end"] == {"hands": 3}
    # the view link's night.json links the tables' view links, never an edit link
    members = night(client, view)
    urls = [t["match_url"] for t in members["rounds"][0]["tables"]]
    assert all(u not in [t["match_url"] for t in round_["tables"]] for u in urls)
    for u in urls:
        assert client.get(f"/m/{token_of(u)}/hands.json").status_code in (403, 405)


def test_rounds_wait_for_every_table_or_are_forced_with_a_reason(app: Flask, client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, view = new_night(client, club)
    tables = night(client, edit)["rounds"][0]["tables"]
    play_table(client, tables[0])
    play_table(client, tables[1])
    refused = client.post(f"/n/{edit}/rounds", json={})
    assert refused.status_code == 409 and refused.get_json()["tables"] == [3]
    assert client.post(f"/n/{view}/rounds", json={"force": True}).status_code == 403
    assert client.post("/n/" + "A" * 24 + "/rounds", json={}).status_code == 404
    assert client.post(f"/n/{edit}/rounds", json={"force": "yes"}).status_code == 400
    assert client.post(f"/n/{edit}/rounds", data="force=1").status_code == 415
    play_table(client, tables[2], hands=1)
    forced = client.post(f"/n/{edit}/rounds", json={"force": True, "reason": "Ugo left early"})
    assert forced.status_code == 201
    second = forced.get_json()
    assert second["number"] == 2 and len(second["tables"]) == 3
    for table in night(client, edit)["rounds"][1]["tables"]:
        play_table(client, table)
    third = client.post(f"/n/{edit}/rounds", json={})
    assert third.status_code == 201 and third.get_json()["number"] == 3
    for table in third.get_json()["tables"]:
        play_table(client, table)
    over = client.post(f"/n/{edit}/rounds", json={"force": True})
    assert over.status_code == 409
    data = night(client, edit)
    meetings = [frozenset(pair) for r in data["rounds"] for t in r["tables"] for pair in combinations(t["players"], 2)]
    assert len(meetings) == len(set(meetings)) == 27  # 9 players over 3 rounds: nobody meets anyone twice
    assert [(r["number"], t["number"]) for r in data["rounds"] for t in r["tables"] if not t["done"]] == [(1, 3)]
    with app.app_context():
        row, _ = night_store.find_night(get_db(), edit)
        assert row.forced == [{"round": 2, "reason": "Ugo left early", "tables": [3]}]
        club_row, _ = club_store.find_club(get_db(), club)
        kinds = [e.kind for e in club_store.events(get_db(), club_row.id)]
        assert "night" in kinds and "night_forced" in kinds
    history = client.get(f"/c/{club}/?lang=en").get_data(as_text=True)  # told in words, not as event codes
    title = data["title"]
    assert f"Club night {title} seated: 9 players" in history
    assert f"Club night {title}: round 2 started before every table had finished (Ugo left early)" in history
    assert not re.search(r">\s*night(_forced)?\s*<", history)
    page = client.get(f"/n/{view}/").get_data(as_text=True)
    assert "Ugo left early" in page and "La serata è finita" not in page  # the page's language is the phone's
    assert "The night is over" in page


def test_the_ranking_is_so_far_while_the_night_is_played_and_final_once_it_is_over(client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, view = new_night(client, club, rounds=1)
    tables = night(client, edit)["rounds"][0]["tables"]
    for table in tables[:-1]:
        play_table(client, table)
    playing = client.get(f"/n/{view}/?lang=it").get_data(as_text=True)
    assert "<h2>Classifica finora</h2>" in playing and "Classifica finale" not in playing
    play_table(client, tables[-1])
    over = client.get(f"/n/{view}/?lang=it").get_data(as_text=True)
    assert "<h2>Classifica finale</h2>" in over and "finora" not in over
    assert "<h2>Final ranking</h2>" in client.get(f"/n/{edit}/?lang=en").get_data(as_text=True)


@pytest.mark.parametrize(("change", "where"), [
    ({"players": ["Anna", "Bruno"]}, "players"),
    ({"players": ["Anna", "Bruno", "anna"]}, "players[2]"),
    ({"players": "Anna"}, "players"),
    ({"rounds": 0}, "rounds"),
    ({"rounds": 11}, "rounds"),
    ({"rounds": True}, "rounds"),
    ({"hands_per_round": 31}, "hands_per_round"),
    ({"seating": "random"}, "seating"),
    ({"ranking": "elo"}, "ranking"),
    ({"seed": -1}, "seed"),
    ({"seed": "7"}, "seed"),
    ({"date": "3/12/2026"}, "date"),
    ({"format": "scarto-club/1"}, "format"),
    ({"ruleset": "four"}, "ruleset"),
    ({"title": ""}, "title"),
    ({"rounds": None}, "rounds"),
    ({"rounds": "3"}, "rounds"),
    ({"rounds": 2.5}, "rounds"),
    ({"rounds": [3]}, "rounds"),
    ({"hands_per_round": "4"}, "hands_per_round"),
    ({"hands_per_round": {}}, "hands_per_round"),
    ({"seating": ["mixed"]}, "seating"),
    ({"seating": None}, "seating"),
    ({"ranking": {"total": 1}}, "ranking"),
    ({"seed": None, "rounds": None}, "rounds"),
    ({"seed": 1.5}, "seed"),
    ({"title": None}, "title"),
    ({"title": 7}, "title"),
    ({"date": 20261203}, "date"),
    ({"players": None}, "players"),
    ({"players": [None, "Bruno", "Carla"]}, "players[0]"),
    ({"ruleset": 7}, "ruleset"),
    ({"ruleset": ["classic"]}, "ruleset"),
])
def test_a_bad_body_is_400_with_its_problem_and_stores_nothing(app: Flask, client: FlaskClient,
                                                               change: dict[str, Any], where: str) -> None:
    club, _ = new_club(client)
    body = {"format": "scarto-night/1", "title": "Giovedì", "players": NINE, **change}
    response = client.post(f"/c/{club}/nights", json=body)
    assert response.status_code == 400
    data = response.get_json()
    assert data["error"] == "bad_request" and data["problems"][0]["where"] == where and data["message"]
    with app.app_context():
        assert get_db().execute("SELECT COUNT(*) FROM nights").fetchone()[0] == 0


def test_only_json_from_the_clubs_edit_link(client: FlaskClient) -> None:
    club, club_view = new_club(client)
    body = {"format": "scarto-night/1", "players": NINE}
    assert client.post(f"/c/{club_view}/nights", json=body).status_code == 403
    assert client.post("/c/" + "B" * 24 + "/nights", json=body).status_code == 404
    assert client.post(f"/c/{club}/nights", data={"players": "Anna"}).status_code == 415
    assert client.get("/n/" + "B" * 24 + "/night.json").status_code == 404
    assert client.get("/n/" + "B" * 24 + "/").status_code == 404
    assert client.get("/n/" + "B" * 24 + "/state.json").status_code == 404


def test_seven_players_seat_a_table_of_four_playing_the_nights_rules_with_the_four_deal(
        app: Flask, client: FlaskClient) -> None:
    """RULES.md: a table playing the classic rules with four players uses {"preset": "classic", "deal": "four"},
    not the rule sheet's four-player preset (top trump XXI, overtrumping, the Fool captured)."""
    club, _ = new_club(client)
    edit, _ = new_night(client, club, players=NINE[:7], hands_per_round=2)
    tables = night(client, edit)["rounds"][0]["tables"]
    assert sorted(len(t["players"]) for t in tables) == [3, 4]
    from scorer.storage import store

    four = {"preset": "classic", "deal": "four"}
    with app.app_context():
        for t in tables:
            match, _ = store.find_match(get_db(), token_of(t["match_url"]))
            assert match.settings["ruleset"] == (four if len(t["players"]) == 4 else "classic")
            assert match.settings["end"] == {"hands": 2}
    table = next(t for t in tables if len(t["players"]) == 4)
    exported = client.get(f"/m/{token_of(table['match_url'])}/export.json").get_json()
    assert exported["ruleset"] == four
    page = html.unescape(re.sub(r"\s+", " ", client.get(f"/n/{edit}/").get_data(as_text=True)))
    assert "Rules: classic — Deal: four players: 19 cards each, a 2-card talon" in page
    for t in tables:
        play_table(client, t, hands=2)
    assert all(t["done"] for t in night(client, edit)["rounds"][0]["tables"])


def test_five_players_have_a_rotating_bye_explained_on_the_page(client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, view = new_night(client, club, players=NINE[:5], rounds=5)
    byes = []
    for number in range(1, 6):
        data = night(client, edit)
        round_ = data["rounds"][-1]
        assert len(round_["tables"]) == 1 and len(round_["tables"][0]["players"]) == 4
        assert len(round_["bye"]) == 1
        byes += round_["bye"]
        page = client.get(f"/n/{view}/?lang=en").get_data(as_text=True)
        assert f"Bye: {round_['bye'][0]}" in page and "neither helps nor hurts" in page
        play_table(client, round_["tables"][0])
        if number < 5:
            assert client.post(f"/n/{edit}/rounds", json={}).status_code == 201
    assert sorted(byes) == sorted(NINE[:5])  # nobody sits out twice before everyone has once
    for line in night(client, edit)["ranking"]:
        assert line["placings"][byes.index(line["name"])] is None and len(line["placings"]) == 5
        assert line["hands"] == 16


def test_ranking_by_total_and_by_placings(client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, _ = new_night(client, club, rounds=1)
    tables = night(client, edit)["rounds"][0]["tables"]
    play_table(client, tables[0], (40, 20, 18))
    play_table(client, tables[1], (27, 26, 25))
    play_table(client, tables[2], (30, 24, 24))
    data = night(client, edit)
    first = data["ranking"][0]
    assert first["name"] == tables[0]["players"][0] and first["place"] == 1 and first["placings"] == [1]
    assert first["hands"] == 3 and first["match_points"] == 2
    totals = [line["total"] for line in data["ranking"]]
    as_numbers = [float(t) if isinstance(t, int) else float(t.split("/")[0]) / float(t.split("/")[1])
                  for t in totals]
    assert as_numbers == sorted(as_numbers, reverse=True)
    placed, _ = new_night(client, club, rounds=1, ranking="placings")
    for table, points in zip(night(client, placed)["rounds"][0]["tables"], [(40, 20, 18), (27, 26, 25), (30, 24, 24)],
                             strict=True):
        play_table(client, table, points)
    ranking = night(client, placed)["ranking"]
    assert [line["match_points"] for line in ranking[:3]] == [2, 2, 2]  # the three table winners lead
    assert ranking[3]["match_points"] == 1 or ranking[3]["match_points"] == "1/2"


def test_swiss_seats_the_leaders_together(client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, _ = new_night(client, club, rounds=2, seating="ranking")
    tables = night(client, edit)["rounds"][0]["tables"]
    for table, points in zip(tables, [(40, 20, 18), (27, 26, 25), (30, 24, 24)], strict=True):
        play_table(client, table, points)
    leaders = [line["name"] for line in night(client, edit)["ranking"][:3]]
    second = client.post(f"/n/{edit}/rounds", json={}).get_json()
    assert sorted(second["tables"][0]["players"]) == sorted(leaders)


# --- the pages ---------------------------------------------------------------------------


def test_the_director_creates_a_night_with_the_form_and_starts_rounds(app: Flask, client: FlaskClient) -> None:
    club, _ = new_club(client, NINE)
    with app.app_context():
        club_row, _ = club_store.find_club(get_db(), club)
        ids = {p.name: p.id for p in club_store.roster(get_db(), club_row.id)}
    page = client.get(f"/c/{club}/").get_data(as_text=True)
    assert f"/c/{club}/nights/new" in page
    form = {"title": "Giovedì", "date": "2026-12-03", "player": [str(ids[n]) for n in NINE[:8]], "new": "Zora",
            "rounds": "3", "hands": "", "preset": "classic", "seating": "mixed", "ranking": "total", "seed": "11"}
    response = submit(client, f"/c/{club}/nights/new", form)
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    edit = response.headers["Location"].split("/n/")[1].strip("/")
    data = night(client, edit)
    assert sorted(data["players"]) == sorted([*NINE[:8], "Zora"]) and data["seed"] == 11
    page = client.get(f"/n/{edit}/?lang=en").get_data(as_text=True)
    assert page.count('data-table=') == 3 and "deals first" in page and "0 of 3 hands" in page
    assert "sync.js" in page and "QR code of the table" in page
    refused = submit(client, f"/n/{edit}/next", {}, page_url=f"/n/{edit}/", follow=True)
    assert "Tables 1, 2, 3 have not finished the round" in refused.get_data(as_text=True)
    for table in night(client, edit)["rounds"][0]["tables"][:2]:
        play_table(client, table)
    one = submit(client, f"/n/{edit}/next?lang=it", {}, page_url=f"/n/{edit}/", follow=True)
    assert "Il tavolo 3 non ha finito il turno" in one.get_data(as_text=True)  # not "I tavoli 3 non hanno"
    client.get("/?lang=en")
    assert len(night(client, edit)["rounds"]) == 1
    offered = client.get(f"/n/{edit}/").get_data(as_text=True)
    assert 'name="round" type="hidden" value="2"' in offered
    tap = {"csrf_token": csrf_token(offered), "force": "y", "reason": "time", "round": "2"}
    forced = client.post(f"/n/{edit}/next", data=tap, follow_redirects=True)
    assert "Round 2 is seated." in forced.get_data(as_text=True)
    assert len(night(client, edit)["rounds"]) == 2
    again = client.post(f"/n/{edit}/next", data=tap, follow_redirects=True)  # a second tap, or a second phone
    assert "Round 2 is at the tables already" in again.get_data(as_text=True)
    assert len(night(client, edit)["rounds"]) == 2  # not a third round
    bad = submit(client, f"/c/{club}/nights/new?lang=en", {**form, "player": [str(ids["Anna"]), str(ids["Bruno"])],
                                                           "new": "anna"})
    problem = re.findall(r'class="problem"[^>]*>([^<]*)', bad.get_data(as_text=True))
    assert bad.status_code == 400 and [html.unescape(p) for p in problem] == [
        "“anna”: named twice: each player is listed once"]
    few = submit(client, f"/c/{club}/nights/new", {**form, "player": [str(ids["Anna"])], "new": ""})
    assert few.status_code == 400 and "at least 3 players" in few.get_data(as_text=True)


def test_a_refused_night_form_keeps_what_was_ticked_and_says_why_in_words(app: Flask, client: FlaskClient) -> None:
    """The form lost the ticked players after a field error, called 0 rounds "required", and told a bad
    name as ``players[3]: ...``."""
    club, _ = new_club(client, NINE)
    with app.app_context():
        club_row, _ = club_store.find_club(get_db(), club)
        ids = {p.name: p.id for p in club_store.roster(get_db(), club_row.id)}
    ticked = [str(ids[n]) for n in NINE[:4]]
    form = {"title": "Giovedì", "date": "2026-12-03", "player": ticked, "new": "", "rounds": "0", "hands": "",
            "preset": "classic", "seating": "mixed", "ranking": "total", "seed": ""}
    zero = submit(client, f"/c/{club}/nights/new?lang=en", form)
    page = zero.get_data(as_text=True)
    assert zero.status_code == 400 and "Number must be between 1 and 10." in page
    assert "This field is required" not in page
    assert all(f'value="{pid}" checked' in page for pid in ticked)
    long = submit(client, f"/c/{club}/nights/new?lang=en", {**form, "rounds": "2", "new": "Zora\n" + "Y" * 50})
    page = long.get_data(as_text=True)
    assert long.status_code == 400 and "players[" not in page
    said = "a name is at most 40 characters; this one has 50"
    assert f'id="new-error">“{"Y" * 23}…”: {said}</span>' in html.unescape(page)
    assert all(f'value="{pid}" checked' in page for pid in ticked)


def test_the_state_tag_changes_with_a_hand_at_any_table(client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, view = new_night(client, club)
    first = client.get(f"/n/{view}/state.json")
    tag = first.headers["ETag"]
    assert first.status_code == 200 and first.get_json()["poll"] == 3
    assert client.get(f"/n/{view}/state.json", headers={"If-None-Match": tag}).status_code == 304
    table = night(client, edit)["rounds"][0]["tables"][2]
    play_table(client, table, hands=1)
    changed = client.get(f"/n/{view}/state.json", headers={"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    assert client.get(f"/n/{edit}/state.json", headers={"If-None-Match": changed.headers["ETag"]}).status_code == 304


def test_the_night_page_carries_its_own_address_and_the_tag_of_what_it_shows(client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, view = new_night(client, club)
    table = night(client, edit)["rounds"][0]["tables"][0]
    for played in (0, 1):
        for link in (edit, view):
            page = client.get(f"/n/{link}/").get_data(as_text=True)
            found = re.search(r'sync\.js[^"]*" defer data-sync="([^"]*)" data-tag="([^"]*)"', page)
            assert found and found.group(1) == f"/n/{link}/", "the page names no address for sync.js"
            assert f'"{found.group(2)}"' == client.get(f"/n/{link}/state.json").headers["ETag"], played
        play_table(client, table, hands=1)


def test_the_members_view_shows_the_ranking_and_no_edit_link(client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, view = new_night(client, club)
    data = night(client, edit)
    play_table(client, data["rounds"][0]["tables"][0])
    page = client.get(f"/n/{view}/?lang=en").get_data(as_text=True)
    assert "Ranking so far" in page and "Members' link" in page
    assert edit not in page and "/next" not in page and "cards.pdf" not in page
    assert all(token_of(t["match_url"]) not in page for t in data["rounds"][0]["tables"])
    assert client.get(f"/n/{view}/cards.pdf").status_code == 403
    assert client.post(f"/n/{view}/next", data={}).status_code == 400  # no CSRF token: refused before anything


def test_a_breach_saved_marked_is_flagged_on_the_directors_view(client: FlaskClient) -> None:
    from tests.seed import dealt_by

    club, _ = new_club(client, ["Anna", "Bruno", "Carla"])
    edit, _ = new_night(client, club, players=["Anna", "Bruno", "Carla"], rounds=1)
    table = night(client, edit)["rounds"][0]["tables"][0]
    hand = dealt_by("classic-breach", "Anna")
    response = client.post(f"/m/{token_of(table['match_url'])}/hands.json", json=hand)
    assert response.status_code == 201
    page = client.get(f"/n/{edit}/?lang=en").get_data(as_text=True)
    assert "breach saved marked" in page


@pytest.mark.slow
def test_the_sheets_read_back(client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, view = new_night(client, club, players=NINE[:7], rounds=2)
    data = night(client, edit)
    for table in data["rounds"][0]["tables"]:
        play_table(client, table)
    cards = client.get(f"/n/{edit}/cards.pdf")
    assert cards.status_code == 200 and cards.mimetype == "application/pdf"
    text = pdf_text(cards.data)
    for table in data["rounds"][0]["tables"]:
        assert f"Tavolo {table['number']}" in text
        assert re.search(r"1\.\s+" + table["players"][0] + r" — dà le carte per primo", text)
        for name in table["players"]:
            assert name in text
    assert "variante a quattro" in text
    results = client.get(f"/n/{view}/results.pdf")
    assert results.status_code == 200
    text = pdf_text(results.data)
    assert "Giovedì: Risultati" in text and "Turno 1" in text
    for line in night(client, edit)["ranking"]:
        assert line["name"] in text
    text = client.get(f"/n/{view}/results.csv").get_data(as_text=True).removeprefix("\ufeff")
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))  # Italian: the decimal comma
    assert rows[0][:6] == ["Posizione", "Giocatore", "Totale", "Totale (frazione esatta)", "Punti partita", "Mani"]
    assert [r[1] for r in rows[1:]] == [line["name"] for line in night(client, edit)["ranking"]]


def test_the_results_csv_opens_in_a_spreadsheet_as_numbers_in_the_clubs_language(client: FlaskClient,
                                                                                 tmp_path: Path) -> None:
    """Seven players: a table of four scores in halves (a base of 19½). LibreOffice in Italian reads
    every total as a number beside its exact value as text, the headers in Italian, no date."""
    club, _ = new_club(client)
    edit, view = new_night(client, club, players=NINE[:7], rounds=1)
    for table in night(client, edit)["rounds"][0]["tables"]:
        play_table(client, table, hands=1 if len(table["players"]) == 4 else None)  # one hand: 25 - 19½
    head, *rows = open_csv(client.get(f"/n/{view}/results.csv").data, "it", tmp_path)
    assert [c.value for c in head] == ["Posizione", "Giocatore", "Totale", "Totale (frazione esatta)",
                                       "Punti partita", "Mani", "Turno 1: tavolo", "Turno 1: totale",
                                       "Turno 1: totale (frazione esatta)", "Turno 1: posto"]
    ranking = night(client, edit)["ranking"]
    assert [r[1].value for r in rows] == [line["name"] for line in ranking]
    halves = [r for r in rows if r[3].kind == "string"]  # the table of four: its totals in halves
    assert len(halves) == 4 and all(r[3].value.endswith("½") for r in halves)
    assert all(float(r[2].value) == float(r[3].value.replace("½", ".5").replace("−", "-")) for r in halves)
    assert all(r[2].kind == "float" and r[2].value.endswith(".5") for r in halves)
    assert [c.kind for c in halves[0][4:10]] == ["float", "float", "float", "float", "string", "float"]
    assert ("float", "1.33") in [(r[4].kind, r[4].value) for r in rows]  # match points of the four: 4/3
    assert {c.kind for row in rows for c in row} == {"float", "string"}


def test_the_night_counts_in_the_clubs_statistics_and_season(client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, _ = new_night(client, club, rounds=1)
    for table in night(client, edit)["rounds"][0]["tables"]:
        play_table(client, table)
    players = client.get(f"/c/{club}/players.json?from=2026-12-01&to=2026-12-31").get_json()
    rows = {p["name"]: p for p in players["players"]}
    assert set(NINE) <= set(rows) and all(rows[n]["hands"] == 3 and rows[n]["matches"] == 1 for n in NINE)
    assert client.get(f"/c/{club}/players.json?from=2027-01-01").get_json()["players"] == [] or all(
        p["matches"] == 0 for p in client.get(f"/c/{club}/players.json?from=2027-01-01").get_json()["players"])
    page = client.get(f"/c/{club}/?lang=en").get_data(as_text=True)
    assert "Club nights" in page and "Giovedì" in page


def test_the_examples_of_docs_night_md_hold(client: FlaskClient) -> None:
    """The creating example of docs/NIGHT.md is accepted, and night.json has the keys the page shows."""
    import json
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "NIGHT.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    example = json.loads(blocks[0])
    club, _ = new_club(client)
    response = client.post(f"/c/{club}/nights", json=example)
    assert response.status_code == 201
    edit = response.get_json()["edit_url"].split("/n/")[1].strip("/")
    data = night(client, edit)
    documented = json.loads(blocks[1].replace("…", "x"))
    assert set(data) == set(documented)
    assert set(data["rounds"][0]) == set(documented["rounds"][0])
    assert set(data["rounds"][0]["tables"][0]) == set(documented["rounds"][0]["tables"][0])
    assert set(data["ranking"][0]) == set(documented["ranking"][0])
    assert data["hands_per_round"] == example["hands_per_round"] == 3


def test_the_table_cards_print_four_to_a_page_with_lines_to_cut(client: FlaskClient) -> None:
    """Five tables (fifteen present) on two A4 pages, not five half-empty ones: each card whole on one page,
    its number, seats and QR code, dashed lines between the cards."""
    fifteen = [*NINE, "Lia", "Mara", "Nino", "Olga", "Pino", "Rita"]
    club, _ = new_club(client, fifteen)
    edit, _ = new_night(client, club, players=fifteen, rounds=1)
    tables = night(client, edit)["rounds"][0]["tables"]
    assert len(tables) == 5
    cards = client.get(f"/n/{edit}/cards.pdf")
    assert cards.status_code == 200 and cards.mimetype == "application/pdf"
    pages = pdf_text(cards.data).split("\f")[:-1]
    assert len(pages) == 2
    for table in tables:
        page = next(p for p in pages if f"Tavolo {table['number']}" in p)
        assert all(name in page for name in table["players"])
    assert [sum(f"Tavolo {t['number']}" in p for t in tables) for p in pages] == [4, 1]
    dashes = subprocess.run(["pdftocairo", "-svg", "-f", "1", "-l", "1", "-", "-"], input=cards.data,
                            capture_output=True, check=True).stdout.decode()
    assert "stroke-dasharray" in dashes  # the cut lines
