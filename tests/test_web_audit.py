"""The audit pages: a stored hand and a hand audited on its own."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from tests.webutil import submit

FIXTURES = Path(__file__).parent / "fixtures" / "hands"


def _audit_link(client: FlaskClient, name: str) -> str:
    response = submit(client, "/audit", {"text": (FIXTURES / f"{name}.json").read_text()})
    assert response.status_code == 302
    return response.headers["Location"]


def test_pasted_hand_is_audited_without_storing_anything(client: FlaskClient, app) -> None:  # type: ignore[no-untyped-def]
    link = _audit_link(client, "classic-breach")
    page = client.get(link).get_data(as_text=True)
    assert "1 problem" in page
    assert "Carla played the Cavalier of Batons to a trump lead" in page
    with app.app_context():
        from scorer.web import get_db
        assert get_db()["matches"].count == 0


def test_stepping_to_the_revoke_shows_it_and_the_proof(client: FlaskClient) -> None:
    link = _audit_link(client, "classic-breach")
    four = client.get(link + "?t=4").get_data(as_text=True)
    assert "Trick 4 of 25" in four
    assert 'class=" breach"' in four or "breach" in four
    assert "Anna won with Trump XIX, the highest trump." in four  # the card named as the pages name it
    five = client.get(link + "?t=5").get_data(as_text=True)
    assert "This trick proves the breach of trick 4: Carla shows the Bagatto (I)." in five
    assert f'href="{link}?t=4"'.replace("&", "&amp;") in five  # back to the breach


@pytest.mark.parametrize("query", ["?t=0", "?t=99", "?t=x", "?award=x", "?award=30-1", "?award=4-9", "?annul=2"])
def test_odd_parameters_never_fail(client: FlaskClient, query: str) -> None:
    link = _audit_link(client, "classic-valid-1")
    assert client.get(link + query).status_code == 200


def test_what_if_shows_both_scores(client: FlaskClient) -> None:
    link = _audit_link(client, "classic-breach")
    page = client.get(link + "?award=4-2").get_data(as_text=True)
    assert "Trick 4 awarded to Carla." in page
    table = page[page.index('id="what-if-scores"'):]
    assert "As recorded" in table and "With the change" in table
    annul = client.get(link + "?annul=1").get_data(as_text=True)
    assert "Annulled" in annul


def test_captured_and_points_hands_get_the_audit_their_detail_allows(client: FlaskClient) -> None:
    captured = client.get(_audit_link(client, "classic-captured")).get_data(as_text=True)
    assert "Trick by trick" not in captured and "The count in threes" in captured
    assert "Anna kept the Fool and owes Carla a 1-point card" in captured
    points = client.get(_audit_link(client, "classic-points")).get_data(as_text=True)
    assert "recorded as counted points" in points


def test_a_damaged_link_says_so(client: FlaskClient) -> None:
    response = client.get("/audit/not-a-record")
    assert response.status_code == 400
    assert "damaged" in response.get_data(as_text=True)


@pytest.mark.parametrize("text, message", [
    ("{not json", "not JSON"),
    ('{"players": ["A", "B", "C"], "dealer": "A", "points": {"A": 1}}', "every player must be named"),
    ('{"players": ["A", "B", "C"], "dealer": "A", "tricks": [["KX"]]}', "'KX' is not a card"),
    ("", "Choose a hand file or paste a record."),
])
def test_bad_records_are_refused_with_a_message(client: FlaskClient, text: str, message: str) -> None:
    response = submit(client, "/audit", {"text": text})
    assert response.status_code == 400
    assert message in response.get_data(as_text=True).replace("&#39;", "'")


@pytest.mark.parametrize("text, message", [
    ("{not json", "registrazione: non è JSON (riga 1, colonna 2: manca un nome tra virgolette doppie)"),
    ("[]", "registrazione: deve essere un oggetto JSON, non una lista"),
    ('{"players": ["A", "B", "C"], "dealer": "A", "points": {"A": 1}}',
     "points: devono esserci tutti i giocatori; manca: B, C"),
    ('{"players": ["A", "B", "C"], "dealer": "A", "tricks": [["KX"]]}',
     "tricks[0][0] (presa 1, carta 1): 'KX' non è una carta"),
    ('{"players": ["A", "B", "C"], "dealer": "A", "tricks": 5}',
     "tricks: deve essere una lista di prese, non un numero"),
])
def test_an_italian_page_refuses_a_bad_record_in_italian(client: FlaskClient, text: str, message: str) -> None:
    response = submit(client, "/audit?lang=it", {"text": text})
    assert response.status_code == 400
    assert message in response.get_data(as_text=True).replace("&#39;", "'")


def test_audit_pdf_has_the_trick_table_and_count(client: FlaskClient) -> None:
    import shutil
    import subprocess
    if shutil.which("pdftotext") is None:
        pytest.skip("make test installs poppler-utils")
    link = _audit_link(client, "classic-breach")
    response = client.get(link + ".pdf")
    assert response.mimetype == "application/pdf" and response.data.startswith(b"%PDF")
    text = subprocess.run(["pdftotext", "-layout", "-", "-"], input=response.data, capture_output=True,
                          check=True).stdout.decode()
    assert "The count in threes" in text
    assert re.search(r"\b25\b", text) and "Carla played the Cavalier of Batons" in text
    # the count's cards drawn as the sheet draws them: no screen-reader names printed ("XXIthe World"),
    # and the hand on one page (the web's faces, unstyled, spread it over eight)
    count = text.split("The count in threes")[1]
    assert "the World" not in count and "Queen of" not in count and "XXI XVII Q" in count
    assert text.count("\f") == 1


def test_stored_hand_audit(client: FlaskClient) -> None:
    body = json.loads((FIXTURES / "classic-breach.json").read_text())
    match = {"format": "scarto-match/1", "players": body["players"], "first_dealer": "Bruno", "ruleset": "classic",
             "hands": [{k: v for k, v in body.items() if k not in ("format", "players", "ruleset")}]}
    created = client.post("/api/matches", json=match)
    assert created.status_code == 201, created.json
    token = created.json["edit_url"].rstrip("/").split("/m/")[1]
    page = client.get(f"/m/{token}/").get_data(as_text=True)
    key = re.search(r"/hands/([0-9a-f]+)/", page).group(1)
    audit = client.get(f"/m/{token}/hands/{key}/audit?t=4").get_data(as_text=True)
    assert "Audit of hand 1" in audit and "Trick 4 of 25" in audit
    assert client.get(f"/m/{token}/hands/nope/audit").status_code == 404
    assert client.get(f"/m/wrong/hands/{key}/audit").status_code == 404


def _stored_breach(client: FlaskClient) -> tuple[str, str, str]:
    """classic-breach stored as the one hand of a match: (edit token, view token, hand key)."""
    body = json.loads((FIXTURES / "classic-breach.json").read_text())
    match = {"format": "scarto-match/1", "players": body["players"], "first_dealer": "Bruno", "ruleset": "classic",
             "hands": [{k: v for k, v in body.items() if k not in ("format", "players", "ruleset")}]}
    created = client.post("/api/matches", json=match).json
    edit, view = (created[k].rstrip("/").split("/m/")[1] for k in ("edit_url", "view_url"))
    key = re.search(r"/hands/([0-9a-f]+)/", client.get(f"/m/{edit}/").get_data(as_text=True)).group(1)
    return edit, view, key


def test_a_what_if_is_recorded_as_a_revision_the_history_can_undo(client: FlaskClient) -> None:
    edit, view, key = _stored_breach(client)
    audit = f"/m/{edit}/hands/{key}/audit?award=4-2"
    page = client.get(audit).get_data(as_text=True)
    ruled = re.search(r'<td>Carla</td><td class="num">[^<]+</td><td class="num">([^<]+)</td>', page).group(1)
    assert 'id="record-ruling"' in page and 'name="award" value="4-2"' in page
    assert 'id="record-ruling"' not in client.get(f"/m/{view}/hands/{key}/audit?award=4-2").get_data(as_text=True)
    before = client.get(f"/m/{edit}/export.json").get_json()["hands"][0]
    response = submit(client, f"/m/{edit}/hands/{key}/audit/ruling", {"version": "1", "award": "4-2"},
                      page_url=audit)
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/hands/{key}/history")
    history = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Recorded as version 2 of the hand: trick 4 to Carla. To undo it, restore version 1." in history
    after = client.get(f"/m/{edit}/export.json").get_json()["hands"][0]
    assert "captured" in after and "tricks" not in after and after["dealer"] == before["dealer"]
    standings = client.get(f"/m/{edit}/standings.json").get_json()
    assert str(standings["hands"][0]["scores"]["Carla"]) == ruled.replace("−", "-")
    # the history undoes it: version 1, trick by trick, is the hand again
    undo = submit(client, f"/m/{edit}/hands/{key}/restore/1", {"version": "2"},
                  page_url=f"/m/{edit}/hands/{key}/history")
    assert undo.status_code == 303
    assert client.get(f"/m/{edit}/export.json").get_json()["hands"][0] == before


def test_a_ruling_sent_twice_under_its_key_is_recorded_once(client: FlaskClient) -> None:
    """A double tap or the back button sends the ruling again: its key replays it, another ruling under
    that key is refused, and the hand keeps one new version."""
    edit, _view, key = _stored_breach(client)
    audit = f"/m/{edit}/hands/{key}/history"  # a page with a CSRF token, before and after the ruling
    ruling = {"version": "1", "award": "4-2", "entry_key": "ruling-key-0001"}
    first = submit(client, f"/m/{edit}/hands/{key}/audit/ruling", ruling, page_url=audit)
    again = submit(client, f"/m/{edit}/hands/{key}/audit/ruling", ruling, page_url=audit)
    assert first.status_code == again.status_code == 303
    other = submit(client, f"/m/{edit}/hands/{key}/audit/ruling", {**ruling, "award": "4-0"}, page_url=audit)
    assert other.status_code == 409 and "already used for another change" in other.get_data(as_text=True)
    history = client.get(f"/m/{edit}/hands/{key}/history").get_data(as_text=True)
    assert "version 3" not in history.lower() and "Version 2" in history


def test_an_annulled_what_if_is_recorded_as_a_revision_scoring_nothing(client: FlaskClient) -> None:
    edit, _view, key = _stored_breach(client)
    audit = f"/m/{edit}/hands/{key}/audit?annul=1"
    assert 'name="annul" value="1"' in client.get(audit).get_data(as_text=True)
    response = submit(client, f"/m/{edit}/hands/{key}/audit/ruling", {"version": "1", "annul": "1"}, page_url=audit)
    assert response.status_code == 303
    assert "Recorded as version 2 of the hand: the hand annulled." in client.get(
        response.headers["Location"]).get_data(as_text=True)
    assert client.get(f"/m/{edit}/export.json").get_json()["hands"][0]["points"] == {
        "Anna": 26, "Bruno": 26, "Carla": 26}
    assert set(client.get(f"/m/{edit}/standings.json").get_json()["hands"][0]["scores"].values()) == {0}


def test_a_ruling_on_a_hand_changed_meanwhile_records_nothing(client: FlaskClient) -> None:
    edit, view, key = _stored_breach(client)
    audit = f"/m/{edit}/hands/{key}/audit?award=4-2"
    stale = submit(client, f"/m/{edit}/hands/{key}/audit/ruling", {"version": "7", "award": "4-2"}, page_url=audit)
    assert stale.status_code == 409 and "nothing was recorded" in stale.get_data(as_text=True)
    nothing = submit(client, f"/m/{edit}/hands/{key}/audit/ruling", {"version": "1"}, page_url=audit)
    assert nothing.status_code == 400 and "Choose a trick to award" in nothing.get_data(as_text=True)
    refused = submit(client, f"/m/{view}/hands/{key}/audit/ruling", {"version": "1", "award": "4-2"},
                     page_url=audit)
    assert refused.status_code == 403
    assert "tricks" in client.get(f"/m/{edit}/export.json").get_json()["hands"][0]


@pytest.mark.parametrize("query", ["?t=" + "9" * 5000, "?award=" + "9" * 5000 + "-1", "?award=1-" + "9" * 5000])
def test_huge_numbers_in_the_address_never_fail(client: FlaskClient, query: str) -> None:
    link = _audit_link(client, "classic-valid-1")
    assert client.get(link + query).status_code == 200


def test_the_audit_names_the_deal_and_the_ultimo_choice_where_they_differ_from_the_preset(
        client: FlaskClient) -> None:
    """A classic hand played four-handed says so on the audit page and its PDF."""
    import subprocess

    link = _audit_link(client, "classic-four-valid")
    page = client.get(link + "?lang=it").get_data(as_text=True)
    assert "Distribuzione: quattro giocatori: 19 carte a testa, un monte di 2 carte" in page
    text = subprocess.run(["pdftotext", "-layout", "-", "-"], input=client.get(link + ".pdf").data,
                          capture_output=True, check=True).stdout.decode()
    assert "Distribuzione: quattro giocatori: 19 carte a testa" in " ".join(text.split())  # the page's language
    record = json.loads((FIXTURES / "ultimo-fool-tricks.json").read_text())
    response = submit(client, "/audit", {"text": json.dumps(record)})
    page = client.get(response.headers["Location"] + "?lang=de").get_data(as_text=True)
    assert "der Bagatto oder der Narr im letzten Stich genommen" in page


def test_a_json_address_that_finds_nothing_says_so_in_the_pages_language(client: FlaskClient) -> None:
    """It answered Werkzeug's English "The requested URL was not found on the server..." to an Italian phone."""
    response = client.get("/audit/k/" + "0" * 32 + ".json?lang=it")
    assert response.status_code == 404 and response.is_json
    assert response.get_json()["message"].startswith("A questo indirizzo non c'è niente")
