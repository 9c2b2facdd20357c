"""A club night played as a duplicate session: the same boards at every table, each table's match
knowing its boards, the ranking by matchpoints from the tables' hands, the session file out and in,
and another club's file ranked with the night's."""

from __future__ import annotations

import csv
import io
import re
import subprocess
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from scorer.engine.deals import deal_board
from scorer.storage import clubs as club_store
from scorer.storage import store
from scorer.web import get_db
from tests.test_web_nights import NINE, new_club, new_night, night, pdf_text, token_of
from tests.webutil import submit

SEED = "Circolo Arci 2026-12-03"


def board_hand(table: dict[str, Any], board: int, points: tuple[int, ...], deal: str = "three") -> dict[str, Any]:
    """A hand of the board by counted points, dealt by the board's seat."""
    players = table["players"]
    dealer = players[deal_board(SEED, board, deal).dealer - 1]
    return {"dealer": dealer, "points": dict(zip(players, points, strict=True))}


def record(client: FlaskClient, table: dict[str, Any], body: dict[str, Any]) -> None:
    response = client.post(f"/m/{token_of(table['match_url'])}/hands.json", json=body)
    assert response.status_code == 201, response.get_json()


def test_every_table_plays_the_rounds_boards_dealt_by_the_boards_seat(app: Flask, client: FlaskClient) -> None:
    club, _ = new_club(client, NINE[:7])
    edit, view = new_night(client, club, players=NINE[:7], rounds=2, duplicate={"boards_per_round": 2})
    data = night(client, edit)
    assert data["duplicate"]["seed"] == SEED  # the club's name and the night's date
    assert data["duplicate"]["boards_per_round"] == 2 and data["hands_per_round"] == 2
    three, four = sorted(data["rounds"][0]["tables"], key=lambda t: len(t["players"]))
    assert three["boards"] == [1, 2] and four["boards"] == [1, 2]
    with app.app_context():
        for table, deal in ((three, "three"), (four, "four")):
            match, _ = store.find_match(get_db(), token_of(table["match_url"]))
            assert match.settings["end"] == {"hands": 2}
            assert match.settings["first_dealer"] == table["players"][deal_board(SEED, 1, deal).dealer - 1]
    for table, deal in ((three, "three"), (four, "four")):
        for board in (1, 2):
            record(client, table, board_hand(table, board, (31, 25, 22) if deal == "three" else (25, 20, 18, 15),
                                             deal))
    assert client.post(f"/n/{edit}/rounds", json={}).status_code == 201
    second = night(client, edit)["rounds"][1]["tables"]
    assert all(t["boards"] == [3, 4] for t in second)  # the next boards: nobody plays a board twice
    # each table's match page lists its boards with the seat that deals them, linking the board's page
    page = client.get(f"/m/{token_of(four['match_url'])}/?lang=en").get_data(as_text=True)
    assert "Duplicate boards: 1 to 2" in page
    dealer = four["players"][deal_board(SEED, 2, "four").dealer - 1]
    assert f"/deals/four/4/board/2/{SEED.replace(' ', '%20')}" in page and f"{dealer} deals" in page
    page = client.get(f"/n/{edit}/?lang=en").get_data(as_text=True)
    assert f"/deals/three/4/board/3/{SEED.replace(' ', '%20')}" in page and "board 4" in page
    assert f"the seed “{SEED}”" in page
    # the members' view shows the same boards
    assert "board 3" in client.get(f"/n/{view}/?lang=en").get_data(as_text=True)
    pdf = client.get(f"/n/{edit}/cards.pdf?round=2").data  # two cards a row: read in reading order
    cards = subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    assert f"codice “{SEED}”" in re.sub(r"\s+", " ", cards) and "smazzata 3" in cards and "smazzata 4" in cards


def test_a_plain_night_has_no_boards(client: FlaskClient) -> None:
    club, _ = new_club(client)
    edit, view = new_night(client, club)
    data = night(client, edit)
    assert "duplicate" not in data and all("boards" not in t for t in data["rounds"][0]["tables"])
    assert "/deals/" not in client.get(f"/n/{edit}/").get_data(as_text=True)
    assert client.get(f"/n/{edit}/session.json").status_code == 404


def test_the_director_picks_a_duplicate_session_on_the_form(app: Flask, client: FlaskClient) -> None:
    club, _ = new_club(client, NINE[:6])
    with app.app_context():
        club_row, _ = club_store.find_club(get_db(), club)
        ids = [str(p.id) for p in club_store.roster(get_db(), club_row.id)]
    page = client.get(f"/c/{club}/nights/new?lang=it").get_data(as_text=True)
    assert "Duplicato" in page and 'placeholder="Circolo Arci ' in page
    form = {"title": "Giovedì", "date": "2026-12-03", "player": ids, "new": "", "rounds": "2", "hands": "",
            "preset": "classic", "seating": "mixed", "ranking": "total", "seed": "5", "duplicate": "y",
            "deal_seed": "", "boards": "3", "scoring": "difference"}
    response = submit(client, f"/c/{club}/nights/new", form)
    assert response.status_code == 302, response.get_data(as_text=True)[:3000]
    data = night(client, response.headers["Location"].split("/n/")[1].strip("/"))
    assert data["duplicate"]["seed"] == SEED and data["duplicate"]["scoring"] == "difference"
    assert [t["boards"] for t in data["rounds"][0]["tables"]] == [[1, 2, 3], [1, 2, 3]]
    too_many = submit(client, f"/c/{club}/nights/new?lang=en", {**form, "rounds": "10", "boards": "30"})
    assert too_many.status_code == 400 and "300 boards; a deal set has at most 200" in too_many.get_data(as_text=True)


def two_tables(client: FlaskClient, club: str, **extra: Any) -> tuple[str, str, list[dict[str, Any]]]:
    """Six players, one round of one board: the two tables hold the same cards seat by seat."""
    edit, view = new_night(client, club, players=NINE[:6], rounds=1, duplicate={"boards_per_round": 1, **extra})
    return edit, view, night(client, edit)["rounds"][0]["tables"]


def test_the_night_ranks_by_matchpoints_against_those_who_held_the_same_cards(client: FlaskClient) -> None:
    """Table 1 counts 31, 25, 22 and table 2 counts 20, 30, 28 on board 1: at seat 1 table 1 beats
    table 2 (2 matchpoints of 2: 100 %), at seats 2 and 3 table 2 does."""
    club, _ = new_club(client, NINE[:6])
    edit, view, (one, two) = two_tables(client, club)
    record(client, one, board_hand(one, 1, (31, 25, 22)))
    record(client, two, board_hand(two, 1, (20, 30, 28)))
    ranking = night(client, edit)["duplicate"]["ranking"]
    percent = {p["name"]: p["percent"] for p in ranking["players"]}
    assert percent == {one["players"][0]: 100.0, two["players"][1]: 100.0, two["players"][2]: 100.0,
                       two["players"][0]: 0.0, one["players"][1]: 0.0, one["players"][2]: 0.0}
    assert [p["rank"] for p in ranking["players"]] == [1, 1, 1, 4, 4, 4]
    [board] = ranking["boards"]
    assert [(r["seat"], r["table"], r["matchpoints"], r["top"]) for r in board["results"]] == [
        (1, 1, 2, 2), (1, 2, 0, 2), (2, 2, 2, 2), (2, 1, 0, 2), (3, 2, 2, 2), (3, 1, 0, 2)]
    for token in (edit, view):  # the director's and the members' view
        page = client.get(f"/n/{token}/?lang=it").get_data(as_text=True)
        assert "duplicate-ranking" in page and "100,00" in page
    text = re.sub(r"[ \t]+", " ", pdf_text(client.get(f"/n/{view}/results.pdf").data))
    assert "Smazzata 1" in text and "2/2" in text and "0/2" in text  # the traveller, with matchpoints
    for name in NINE[:6]:
        assert name in text
    rows = list(csv.reader(io.StringIO(client.get(f"/n/{view}/results.csv").get_data(as_text=True)
                                       .removeprefix("\ufeff")), delimiter=";"))
    assert rows[0][:3] == ["Posizione", "Giocatore", "Percentuale"]
    assert [r[2] for r in rows[1:7]] == ["100,00", "100,00", "100,00", "0,00", "0,00", "0,00"]
    assert len([r for r in rows[9:] if r]) == 6  # a traveller line for each result
    # the club's statistics keep counting each table as a match
    players = client.get(f"/c/{club}/players.json").get_json()["players"]
    assert all(p["matches"] == 1 and p["hands"] == 1 for p in players if p["name"] in NINE[:6])


def test_a_hand_dealt_by_the_wrong_seat_is_left_out_and_named(client: FlaskClient) -> None:
    club, _ = new_club(client, NINE[:6])
    edit, _view, (one, two) = two_tables(client, club)
    record(client, one, board_hand(one, 1, (31, 25, 22)))
    wrong = board_hand(two, 1, (20, 30, 28))
    wrong["dealer"] = next(p for p in two["players"] if p != wrong["dealer"])
    record(client, two, wrong)
    data = night(client, edit)["duplicate"]["ranking"]
    assert {p["name"] for p in data["players"]} == set(one["players"])  # table 2's hand left out
    page = client.get(f"/n/{edit}/?lang=en").get_data(as_text=True)
    dealer = two["players"][deal_board(SEED, 1, "three").dealer - 1]
    assert "Round 1, table 2, hand 1 (board 1) is left out until it is mended" in page
    assert f"board 1 is dealt by seat 1 ({dealer}), not by {wrong['dealer']}" in page


def session_upload(client: FlaskClient, club: str, body: bytes, night_id: str = "") -> Any:
    return submit(client, f"/c/{club}/duplicate?lang=en", {"file": (io.BytesIO(body), "session.json"), "text": "",
                                                           "night": night_id}, page_url=f"/c/{club}/duplicate")


def played_night(client: FlaskClient, club: str) -> tuple[str, list[dict[str, Any]]]:
    """Seven players over two rounds of one board: a table of three and one of four each round."""
    edit, _view = new_night(client, club, players=NINE[:7], rounds=2, duplicate={"boards_per_round": 1})
    for number in (1, 2):
        if number == 2:
            assert client.post(f"/n/{edit}/rounds", json={}).status_code == 201
        for table in night(client, edit)["rounds"][number - 1]["tables"]:
            deal = "four" if len(table["players"]) == 4 else "three"
            record(client, table, board_hand(table, number, (31, 25, 22) if deal == "three" else (25, 20, 18, 15),
                                             deal))
    return edit, night(client, edit)["rounds"]


def test_the_night_exports_its_session_and_imports_back_as_the_same(app: Flask, client: FlaskClient) -> None:
    from scorer.engine.duplicate import parse_duplicate

    club, _ = new_club(client, NINE[:7])
    edit, rounds = played_night(client, club)
    exported = client.get(f"/n/{edit}/session.json")
    assert exported.status_code == 200 and exported.mimetype == "application/json"
    document = exported.get_json()
    session = parse_duplicate(document)  # the engine reads it: every hand its board's
    assert document["format"] == "scarto-duplicate/1" and document["seed"] == SEED
    assert document["club"] == "Circolo Arci" and document["boards_per_round"] == 1
    assert [(t["round"], t["table"], [h["board"] for h in t["hands"]]) for t in document["tables"]] == [
        (r["number"], t["number"], [r["number"]]) for r in ({"number": 1}, {"number": 2})
        for t in rounds[r["number"] - 1]["tables"]]
    assert len(session.tables) == 4
    other, _ = new_club(client, ["Zora"])
    response = session_upload(client, other, exported.data)
    assert response.status_code == 302, response.get_data(as_text=True)[-3000:]
    imported = response.headers["Location"].split("/n/")[1].strip("/")
    again = client.get(f"/n/{imported}/session.json").get_json()
    assert again == document  # the round trip: the same tables, hands, title and date
    data = night(client, imported)
    assert data["duplicate"]["ranking"] == night(client, edit)["duplicate"]["ranking"]
    assert data["rounds_planned"] == 2 and len(data["rounds"]) == 2
    assert client.post(f"/n/{imported}/rounds", json={}).status_code == 409  # nothing left to seat


def test_another_clubs_file_of_the_same_boards_ranks_with_the_night(app: Flask, client: FlaskClient) -> None:
    import json

    club, _ = new_club(client, NINE[:7])
    edit, _rounds = played_night(client, club)
    document = client.get(f"/n/{edit}/session.json").get_json()
    theirs = {**document, "club": "Bocciofila"}
    with app.app_context():
        night_id = str(night_of_token(edit))
    page = client.get(f"/c/{club}/duplicate?lang=en").get_data(as_text=True)
    assert "Rank it with “Giovedì” (2026-12-03)" in page
    merged = session_upload(client, club, json.dumps(theirs).encode(), night_id)
    text = merged.get_data(as_text=True)
    assert merged.status_code == 200 and "Giovedì, ranked with Bocciofila" in text
    ranking = text.split("duplicate-ranking", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr><td>\d+</td><td>([^<]+) <span class=\"muted\">\(([^)]+)\)</span>", ranking)
    assert sorted(rows) == sorted([(n, c) for n in NINE[:7] for c in ("Circolo Arci", "Bocciofila")])
    # the same cards held at both clubs: every seat's two results tie, so everyone has 50 %
    assert ranking.count(">50.00<") == 14
    assert text.count(">1/2<") == 28  # the travellers: each of the 28 results ties the other club's
    other_set = {**theirs, "seed": "another seed"}
    refused = session_upload(client, club, json.dumps(other_set).encode(), night_id)
    assert refused.status_code == 400
    assert f"this file plays the deal set another seed (three), not {SEED} (three)" in html_text(refused)


def test_a_file_that_is_not_a_session_is_refused_with_its_place(client: FlaskClient) -> None:
    club, _ = new_club(client, NINE[:7])
    refused = session_upload(client, club, b'{"format": "scarto-duplicate/1", "seed": "x", "boards": 2}')
    assert refused.status_code == 400 and "tables" in html_text(refused)
    hand = {"dealer": "Anna", "points": {"Anna": 30, "Bruno": 20, "Carla": 28}}
    apart = {"format": "scarto-duplicate/1", "seed": "x", "boards": 2, "tables": [
        {"round": 1, "table": 1, "players": ["Anna", "Bruno", "Carla"], "hands": [{"board": 2, "hand": {
            **hand, "dealer": "Bruno"}}]}]}
    import json

    refused = session_upload(client, club, json.dumps(apart).encode())
    assert refused.status_code == 400 and ("tables[0]: a night's round 1 plays boards 1 to 2, hand by hand in that "
                                           "order; this table does not") in html_text(refused)
    empty = submit(client, f"/c/{club}/duplicate?lang=en", {"text": "", "night": ""}, page_url=f"/c/{club}/duplicate")
    assert empty.status_code == 400 and "Choose a file or paste its text." in html_text(empty)


def night_of_token(token: str) -> int:
    from scorer.storage import nights as night_store

    return night_store.find_night(get_db(), token)[0].id


def html_text(response: Any) -> str:
    import html

    return html.unescape(response.get_data(as_text=True))


def test_the_entry_forms_know_the_board_and_refuse_a_card_of_another_seat(client: FlaskClient) -> None:
    import json

    from scorer.engine.cards import CODES
    from tests.handutil import open_form, points_data
    from tests.handutil import record as record_form

    club, _ = new_club(client, NINE[:6])
    _edit, _view, (one, _two) = two_tables(client, club)
    token, players = token_of(one["match_url"]), tuple(one["players"])
    dealt = deal_board(SEED, 1, "three")
    # the live page holds what each seat was dealt, the dealer's seat the talon too: live.js offers a
    # player only their own cards
    page, _fields = open_form(client, f"/m/{token}/hands/new/live?lang=en")
    config = json.loads(re.search(r"data-config='([^']+)'", page).group(1))  # type: ignore[union-attr]
    assert config["board"] == 1
    assert config["held"] == {name: [CODES[c] for c in (*hand, *(dealt.talon if seat == dealt.dealer else ()))]
                              for seat, (name, hand) in enumerate(zip(players, dealt.hands, strict=True), start=1)}
    # a trick with seat 3's cards only: someone else played one of them
    tricks = " ".join(CODES[c] for c in dealt.hands[2][:3])
    refused = record_form(client, token, "live", {"dealer": players[0], "tricks": tricks})
    assert refused.status_code == 400
    assert re.search(rf"board 1: \w+ was dealt to seat 3 \({players[2]}\), not to \w+: check the card",
                     html_text(refused))
    # counted points say nothing of who held which card; the dealer is the board's all the same
    wrong = record_form(client, token, "points", points_data({players[0]: 31, players[1]: 25}, players, players[1]))
    assert wrong.status_code == 400
    assert f"board 1 is dealt by seat 1 ({players[0]}), not by {players[1]}" in html_text(wrong)
    right = record_form(client, token, "points", points_data({players[0]: 31, players[1]: 25}, players, players[0]))
    assert right.status_code == 302
