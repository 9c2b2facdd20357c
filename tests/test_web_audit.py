"""The audit pages: a stored hand and a hand audited on its own."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


# --- the hand's review ----------------------------------------------------------------


@pytest.fixture(autouse=True)
def _short_review(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The review of the last 4 tricks: the same code, a second of search instead of several; each test
    starts with no review being made and none kept in memory."""
    from scorer.storage import reviews
    from scorer.web import reviews as web_reviews

    def settled() -> None:
        for each in list(web_reviews._REVIEWERS.values()):
            assert each.idle(180)
        web_reviews._LOOSE.clear()

    settled()
    monkeypatch.setitem(reviews.REVIEW_TRICKS, "three", 4)
    yield
    settled()


def _stored_hand(client: FlaskClient, name: str) -> tuple[str, str]:
    """A fixture hand stored as the one hand of a match: (edit token, hand key)."""
    body = json.loads((FIXTURES / f"{name}.json").read_text())
    match = {"format": "scarto-match/1", "players": body["players"], "first_dealer": body["dealer"],
             "ruleset": body["ruleset"],
             "hands": [{k: v for k, v in body.items() if k not in ("format", "players", "ruleset")}]}
    created = client.post("/api/matches", json=match)
    assert created.status_code == 201, created.json
    edit = created.json["edit_url"].rstrip("/").split("/m/")[1]
    key = re.search(r"/hands/([0-9a-f]+)/", client.get(f"/m/{edit}/").get_data(as_text=True)).group(1)
    return edit, key


def _review_rows(page: str) -> list[tuple[str, str, str, str]]:
    """The review's table: (player, par, given up, score) per row."""
    section = page.split('id="review"')[1].split("</table>")[0]
    return re.findall(r'<tr><td>([^<]+)</td><td class="num">([^<]+)</td><td class="num[^"]*">([^<]+)</td>'
                      r'<td class="num">([^<]+)</td></tr>', section)


def _counted(monkeypatch: pytest.MonkeyPatch, answer: dict[str, str] | None = None) -> list[int]:
    """Count the reviews made (each one made as ever, or ``answer`` given instead)."""
    from scorer.storage import reviews

    made: list[int] = []
    real = reviews.make_review

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        made.append(1)
        return answer if answer is not None else real(*args, **kwargs)

    monkeypatch.setattr(reviews, "make_review", counted)
    return made


def _made(app) -> None:  # type: ignore[no-untyped-def]
    from scorer.web.reviews import reviewer
    with app.app_context():
        assert reviewer().idle(180)


def test_the_review_is_made_apart_then_shown_with_the_engines_numbers_and_kept(
        client: FlaskClient, app, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from scorer.engine.analysis import analyse
    from scorer.engine.numbers import fraction_text
    from scorer.engine.records import parse_hand
    from scorer.engine.scoring import score_hand
    from scorer.storage import reviews

    made = _counted(monkeypatch)
    edit, key = _stored_hand(client, "classic-valid-1")
    first = client.get(f"/m/{edit}/hands/{key}/audit")
    assert first.status_code == 200 and 'id="review-making"' in first.get_data(as_text=True)
    assert "The count in threes" in first.get_data(as_text=True)  # the rest of the audit meanwhile
    _made(app)
    page = client.get(f"/m/{edit}/hands/{key}/audit").get_data(as_text=True)
    record = parse_hand(json.loads((FIXTURES / "classic-valid-1.json").read_text()))
    review = analyse(record, reviews.first_trick(record))
    scores = score_hand(record).scores()
    assert _review_rows(page) == [(name, fraction_text(par), fraction_text(given), fraction_text(scores[name]))
                                  for name, par, given in zip(record.players, review.par, review.given_up(),
                                                              strict=True)]
    assert f"From trick {reviews.first_trick(record)} on" in page
    costly = [p for p in review.plays if p.lost]
    assert page.count('<b class="lost">') == len(costly) and costly
    assert f'<b class="lost">{fraction_text(-costly[0].lost)}</b>' in page
    assert made == [1]
    again = client.get(f"/m/{edit}/hands/{key}/audit?t=3").get_data(as_text=True)  # a lookup, nothing made
    assert _review_rows(again) == _review_rows(page) and made == [1]


def test_an_edited_hand_is_reviewed_again(client: FlaskClient, app) -> None:  # type: ignore[no-untyped-def]
    from scorer.storage import store
    from scorer.web.db import get_db

    edit, key = _stored_hand(client, "classic-valid-1")
    client.get(f"/m/{edit}/hands/{key}/audit")
    _made(app)
    assert _review_rows(client.get(f"/m/{edit}/hands/{key}/audit").get_data(as_text=True))
    with app.test_request_context():
        db = get_db()
        row, _can_edit = store.find_match(db, edit)
        hand = store.get_hand(db, row.id, key)
        store.update_hand(db, row.id, key, {**hand.record, "notes": "checked"}, expected_version=hand.version)
    page = client.get(f"/m/{edit}/hands/{key}/audit").get_data(as_text=True)
    assert 'id="review-making"' in page and not _review_rows(page)
    _made(app)
    assert _review_rows(client.get(f"/m/{edit}/hands/{key}/audit").get_data(as_text=True))


@pytest.mark.parametrize(("name", "why"), [
    ("classic-points", "A review needs the hand&#39;s full trick record: this one holds counted points."),
    ("classic-captured", "A review needs the hand&#39;s full trick record: this one holds captured cards."),
])
def test_a_hand_without_its_tricks_has_no_review_and_says_why(client: FlaskClient, name: str, why: str) -> None:
    edit, key = _stored_hand(client, name)
    page = client.get(f"/m/{edit}/hands/{key}/audit")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert why in text and 'id="review-making"' not in text


def test_a_hand_audited_on_its_own_is_reviewed_and_its_review_kept_in_memory(
        client: FlaskClient, app, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]

    made = _counted(monkeypatch)
    link = _audit_link(client, "classic-valid-1")
    assert 'id="review-making"' in client.get(link).get_data(as_text=True)
    _made(app)
    rows = _review_rows(client.get(link).get_data(as_text=True))
    assert [name for name, *_rest in rows] == ["Anna", "Bruno", "Carla"]
    assert _review_rows(client.get(link + "?t=2").get_data(as_text=True)) == rows and made == [1]
    pasted = client.get(_audit_link(client, "classic-points")).get_data(as_text=True)
    assert "this one holds counted points" in pasted


def test_the_audit_sheet_carries_the_review(client: FlaskClient, app) -> None:  # type: ignore[no-untyped-def]
    import shutil
    import subprocess
    if shutil.which("pdftotext") is None:
        pytest.skip("make test installs poppler-utils")
    from scorer.engine.analysis import analyse
    from scorer.engine.numbers import fraction_text
    from scorer.engine.records import parse_hand
    from scorer.storage import reviews

    edit, key = _stored_hand(client, "classic-valid-1")

    def text() -> str:
        pdf = client.get(f"/m/{edit}/hands/{key}/audit.pdf")
        assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
        return subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf.data, capture_output=True,
                              check=True).stdout.decode()

    assert "The review is being made" in text()
    _made(app)
    sheet = text()
    record = parse_hand(json.loads((FIXTURES / "classic-valid-1.json").read_text()))
    review = analyse(record, reviews.first_trick(record))
    assert "Review: what each card cost" in sheet
    for name, par, given in zip(record.players, review.par, review.given_up(), strict=True):
        assert re.search(rf"{name}\s+{re.escape(fraction_text(par))}\s+{re.escape(fraction_text(given))}\b", sheet)
    assert sheet.count("kept by") == len([p for p in review.plays if p.lost])


def test_a_review_past_its_limits_says_so_and_is_not_made_again(
        client: FlaskClient, app, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]

    made = _counted(monkeypatch, {"problem": "too_large"})
    edit, key = _stored_hand(client, "classic-valid-1")
    client.get(f"/m/{edit}/hands/{key}/audit")
    _made(app)
    for _ in range(2):
        page = client.get(f"/m/{edit}/hands/{key}/audit").get_data(as_text=True)
        assert "The review took longer than its limit and was stopped." in page and 'id="review-making"' not in page
    assert made == [1]
