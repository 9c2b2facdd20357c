"""Import and export for people: match files, hand files, pasted records."""

from __future__ import annotations

import html
import io
import json
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from scorer.engine.limits import MAX_UPLOAD_BYTES
from tests.matchutil import points_match
from tests.spreadsheetutil import open_csv
from tests.webutil import csrf_token, start_match, submit

FIXTURES = Path(__file__).parent / "fixtures" / "hands"


def _upload(client: FlaskClient, url: str, content: bytes, name: str = "match.json"):  # type: ignore[no-untyped-def]
    token = csrf_token(client.get(url).get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, "file": (io.BytesIO(content), name)},
                       content_type="multipart/form-data")


def test_export_import_export_gives_the_same_file(client: FlaskClient) -> None:
    created = client.post("/api/matches", json=points_match(4, title="Round trip"))
    token = created.json["edit_url"].rstrip("/").split("/m/")[1]
    first = client.get(f"/m/{token}/export.json").data
    imported = _upload(client, "/import", first)
    assert imported.status_code == 302
    new_token = imported.headers["Location"].rstrip("/").split("/m/")[1]
    assert new_token != token
    assert client.get(f"/m/{new_token}/export.json").data == first


def test_a_hand_file_opens_its_audit(client: FlaskClient) -> None:
    response = _upload(client, "/import", (FIXTURES / "classic-breach.json").read_bytes())
    assert response.status_code == 302 and "/audit/" in response.headers["Location"]


def test_a_match_with_an_erroneous_hand_is_refused_per_hand(client: FlaskClient, app) -> None:  # type: ignore[no-untyped-def]
    data = points_match(3)
    data["hands"][1]["points"]["Anna"] += 1
    response = _upload(client, "/import", json.dumps(data).encode())
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "Nothing was imported" in page and "Hand 2: The counted points add up to 79" in page
    with app.app_context():
        from scorer.web import get_db
        assert get_db()["matches"].count == 0


@pytest.mark.parametrize("content, message", [
    (b"\xff\xfe not utf8", "not UTF-8"),
    (b"[1, 2]", "must be a JSON object"),
    (b'{"format": "scarto-match/2"}', "is not a file this app reads"),
    (b'{"players": ["A", "B", "C"], "first_dealer": "Z", "hands": []}', "'Z' is not one of the players"),
    (b'{"players": ["A", "B", "C"], "first_dealer": "A", "hands": [{"dealer": "A", "tricks": [["KX"]]}]}',
     "hands[0].tricks[0][0] (hand 1, trick 1, card 1): 'KX' is not a card"),
    (b"[" * 5000, "not JSON"),
])
def test_malformed_files_say_what_and_where(client: FlaskClient, content: bytes, message: str) -> None:
    response = _upload(client, "/import", content)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True).replace("&#39;", "'").replace("&#34;", '"')


def _shown(response) -> str:  # type: ignore[no-untyped-def]
    return str(response.get_data(as_text=True).replace("&#39;", "'").replace("&#34;", '"'))


@pytest.mark.parametrize("content, message", [
    (b"[1, 2]", "registrazione: deve essere un oggetto JSON, non una lista"),
    (b"{", "file: non è JSON (riga 1, colonna 2: manca un nome tra virgolette doppie)"),
    (b'{"players": ["A", "B", "C"], "first_dealer": "Z", "hands": []}',
     "first_dealer: 'Z' non è uno dei giocatori (A, B, C)"),
    (b'{"players": ["A", "B", "C"], "first_dealer": "A", "hands": [{"dealer": "A", "tricks": [["KX"]]}]}',
     "hands[0].tricks[0][0] (mano 1, presa 1, carta 1): 'KX' non è una carta"),
    (b'{"players": ["A", "B", "C"], "first_dealer": "A", "hands": [{"dealer": "A", "points": {"A": -3}}]}',
     "hands[0].points (mano 1): devono esserci tutti i giocatori; manca: B, C"),
    (b'{"players": ["A", "B", "C"], "first_dealer": "A", "ruleset": "classik", "hands": []}',
     'ruleset: "classik" non è una variante predefinita (varianti: classic, rulesheet, saari, four, piccolo)'),
    (b'{"players": ["A", "B", "C"], "first_dealer": "A", "ruleset": {"ultimo": "yes"}, "hands": []}',
     'ruleset.ultimo: "yes" non è un valore di ultimo (usa false, true, "bagatto_or_fool")'),
])
def test_an_italian_page_says_what_is_wrong_with_a_file_in_italian(client: FlaskClient, content: bytes,
                                                                     message: str) -> None:
    response = _upload(client, "/import?lang=it", content)
    assert response.status_code == 400
    assert message in _shown(response)


def test_a_pasted_hand_is_refused_in_italian(client: FlaskClient) -> None:
    token = start_match(client)
    text = json.dumps({"dealer": "Anna", "points": {"Anna": 31, "Bruno": "lots", "Carla": 25}})
    response = submit(client, f"/m/{token}/import?lang=it", {"text": text})
    assert response.status_code == 400
    assert "points.Bruno: 'lots' non è un numero di punti (usa per esempio 31 o \"58/3\")" in _shown(response)
    response = submit(client, f"/m/{token}/import?lang=it", {"text": "{"})
    assert "testo: non è JSON (riga 1, colonna 2: " in _shown(response)


def test_huge_upload_is_refused_politely(client: FlaskClient, app) -> None:  # type: ignore[no-untyped-def]
    assert app.config["MAX_CONTENT_LENGTH"] == MAX_UPLOAD_BYTES
    app.config["MAX_CONTENT_LENGTH"] = 4000  # the same check, without a spooled temporary file in the test
    response = _upload(client, "/import", b" " * 8000)
    assert response.status_code == 413
    assert "larger than the app accepts" in response.get_data(as_text=True)


def test_hand_file_into_a_match(client: FlaskClient) -> None:
    token = start_match(client, first_dealer="2")
    response = _upload(client, f"/m/{token}/import", (FIXTURES / "classic-breach.json").read_bytes())
    assert response.status_code == 302
    export = json.loads(client.get(f"/m/{token}/export.json").data)
    assert len(export["hands"]) == 1 and export["hands"][0]["dealer"] == "Bruno"


def test_pasted_hand_with_other_players_is_refused(client: FlaskClient) -> None:
    token = start_match(client, names=("Ada", "Bea", "Cy"))
    response = submit(client, f"/m/{token}/import", {"text": (FIXTURES / "classic-points.json").read_text()})
    assert response.status_code == 400
    assert "are not this match" in response.get_data(as_text=True).replace("&#39;", "'")


def test_a_hand_under_other_rules_is_refused_and_the_same_rules_however_written_taken(client: FlaskClient) -> None:
    names = ("Anna", "Bruno", "Carla", "Dario")
    token = start_match(client, names, preset="classic", deal="four")
    hand = {"players": list(names), "dealer": "Anna", "points": {"Anna": 30, "Bruno": 20, "Carla": 18, "Dario": 10}}
    refused = submit(client, f"/m/{token}/import", {"text": json.dumps({**hand, "ruleset": "four"})})
    assert refused.status_code == 400
    said = html.unescape(refused.get_data(as_text=True))
    assert "The file's rules are not this match's rules: " in said  # and which, in words
    assert "Must overtrump: on in the file, off in this match" in said
    assert "Highest trump: " in said and "Fool in the last trick: " in said
    italian = submit(client, f"/m/{token}/import?lang=it", {"text": json.dumps({**hand, "ruleset": "four"})})
    assert ": sì nel file, no in questa partita" in html.unescape(italian.get_data(as_text=True))
    spelled_out = {"preset": "classic", "deal": "four", "top_trump": "T20", "overtrump": False}
    taken = submit(client, f"/m/{token}/import", {"text": json.dumps({**hand, "ruleset": spelled_out})})
    assert taken.status_code == 302


def test_pasted_hand_without_players_takes_the_match_players(client: FlaskClient) -> None:
    token = start_match(client)
    text = json.dumps({"dealer": "Anna", "points": {"Anna": "58/3", "Bruno": "80/3", "Carla": 32}})
    assert submit(client, f"/m/{token}/import", {"text": text}).status_code == 302
    standings = json.loads(client.get(f"/m/{token}/standings.json").data)
    assert standings["players"][0] == {"name": "Anna", "total": "-20/3"}


def test_view_token_cannot_import(client: FlaskClient) -> None:
    created = client.post("/api/matches", json=points_match(1))
    view = created.json["view_url"].rstrip("/").split("/m/")[1]
    assert client.get(f"/m/{view}/import").status_code == 403


def test_standings_csv(client: FlaskClient) -> None:
    created = client.post("/api/matches", json={**points_match(2), "language": "en"})
    token = created.json["edit_url"].rstrip("/").split("/m/")[1]
    response = client.get(f"/m/{token}/standings.csv")
    assert response.mimetype == "text/csv"
    lines = response.get_data(as_text=True).removeprefix("\ufeff").splitlines()
    assert lines[0].startswith("Hand,Dealer,Anna · Card points,Anna · Card points (exact fraction),Bruno")
    assert len(lines) == 3 and lines[1].startswith("1,Anna,")


HEADS = {"it": ("Mano", "Mazziere", "Anna · Punti carta"), "en": ("Hand", "Dealer", "Anna · Card points"),
         "de": ("Spiel", "Geber", "Anna · Kartenpunkte"), "fi": ("Jako", "Jakaja", "Anna · Korttipisteet"),
         "es": ("Mano", "Repartidor", "Anna · Puntos de cartas")}


EXACT = {"it": "frazione esatta", "en": "exact fraction", "de": "exakter Bruch", "fi": "tarkka murtoluku",
         "es": "fracción exacta"}


@pytest.mark.parametrize("language", list(HEADS))
def test_the_standings_csv_opens_in_a_spreadsheet_as_numbers_in_the_pages_language(
        client: FlaskClient, tmp_path: Path, language: str) -> None:
    """LibreOffice opens the file in the match's language: headers in that language, every score a
    number to two places (the Italian decimal comma too), beside the exact thirds as text; no date."""
    data = {**points_match(2), "language": language}
    data["hands"][0]["points"] = {"Anna": "58/3", "Bruno": "77/3", "Carla": "99/3"}
    token = client.post("/api/matches", json=data).json["edit_url"].rstrip("/").split("/m/")[1]
    head, first, second = open_csv(client.get(f"/m/{token}/standings.csv").data, language, tmp_path)
    assert tuple(c.value for c in head[:3]) == HEADS[language] and {c.kind for c in head} == {"string"}
    assert len(head) == 21 and head[3].value == f"{HEADS[language][2]} ({EXACT[language]})"
    assert [(c.kind, c.value) for c in first[:2]] == [("float", "1"), ("string", "Anna")]
    # the decimal columns (card points, scores, totals), each followed by its exact value
    assert [(c.kind, c.value) for c in first[2:20:2]] == [("float", v) for v in (
        "19.33", "25.67", "33", "-6.67", "-0.33", "7", "-6.67", "-0.33", "7")]
    assert [c.value for c in first[3:20:2]] == ["19⅓", "25⅔", "33", "−6⅔", "−⅓", "7", "−6⅔", "−⅓", "7"]
    assert {c.kind for c in first[3:20:2] if not c.value.isdigit()} == {"string"}
    assert second[0].value == "2" and [c.value for c in second[14:20:2]] == ["-20.67", "-2.33", "23"]
    assert not [c for row in (first, second) for c in row if c.kind not in ("float", "string")]


def test_file_names_in_any_script_travel_as_latin1_headers(client: FlaskClient) -> None:
    """Servers send headers as Latin-1: a Cyrillic or Japanese title must not break a download."""
    created = client.post("/api/matches", json=points_match(2, title="Партия Ōsaka"))
    token = created.json["edit_url"].rstrip("/").split("/m/")[1]
    for address in ("export.json", "standings.csv", "sheet.pdf"):
        header = client.get(f"/m/{token}/{address}").headers["Content-Disposition"]
        header.encode("latin-1")
        assert "filename*=UTF-8''" in header and "%D0%BF" in header  # п, whole in the UTF-8 form


def test_csv_names_are_not_formulas(client: FlaskClient) -> None:
    created = client.post("/api/matches", json={**points_match(1, players=("=HYPERLINK(1)", "+B", "Carla")),
                                                "language": "en"})
    token = created.json["edit_url"].rstrip("/").split("/m/")[1]
    text = client.get(f"/m/{token}/standings.csv").get_data(as_text=True)
    assert "'=HYPERLINK(1) · Card points" in text and "'+B · Card points" in text and ",=" not in text
    assert "\n1,'=HYPERLINK(1)," in text  # the dealer's cell too


def test_a_club_file_opened_as_a_match_says_where_club_files_open(client: FlaskClient) -> None:
    """It said "'scarto-club/1' is not a file this app reads": the app reads it, on another page."""
    club = {"format": "scarto-club/1", "name": "Circolo", "players": [], "matches": []}
    response = _upload(client, "/import?lang=en", json.dumps(club).encode())
    assert response.status_code == 400
    shown = _shown(response)
    assert "This is a club's file (scarto-club/1): open it with “Open a club file”" in shown
    assert "/clubs/import" in shown
