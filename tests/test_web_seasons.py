"""A season ranked by each player's best N matches or nights, where it shows: the season form, the
table's page, its PDF, its CSV and ``players.json`` (scorer/web/clubs.py; the rule: engine/seasons.py)."""

from __future__ import annotations

import html
import re
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.engine.limits import MAX_BEST_RESULTS
from scorer.engine.seasons import SeasonRule, season_table
from scorer.storage import clubs as club_store
from scorer.web import get_db
from tests.spreadsheetutil import open_csv
from tests.test_club_store import points_match
from tests.test_pdf import pdf_text
from tests.webutil import submit

ABC = ["Anna", "Bruno", "Carla"]
ABD = ["Anna", "Bruno", "Dora"]
MATCHES = [  # five matches on three nights; Anna's worst is the first night's second match
    points_match(ABC, [(0, [40, 20, 18])], date="2026-10-01"),
    points_match(ABD, [(1, [10, 40, 28])], date="2026-10-01"),
    points_match(ABC, [(2, [30, 30, 18])], date="2026-10-08"),
    points_match(ABD, [(0, [20, 30, 28])], date="2026-10-15"),
    points_match(ABC, [(1, [35, 25, 18])], date="2026-10-15"),
]


def club_with_a_season(client: FlaskClient, ranking: dict | None) -> tuple[str, str, str]:  # type: ignore[type-arg]
    """A club of five matches and the season "Coppa" with this ranking: (edit, view, season id)."""
    season = {"name": "Coppa", "from": "2026-10-01", "to": "2026-12-31", **({"ranking": ranking} if ranking else {})}
    response = client.post("/api/clubs", json={"format": "scarto-club/1", "name": "Bar Sport",
                                               "defaults": {"language": "it"}, "players": [*ABC, "Dora"],
                                               "seasons": [season], "matches": MATCHES})
    assert response.status_code == 201, response.get_json()
    edit = response.get_json()["edit_url"].split("/c/")[1].strip("/")
    view = response.get_json()["view_url"].split("/c/")[1].strip("/")
    page = client.get(f"/c/{view}/").get_data(as_text=True)
    season_id = re.search(r"table\?season=(\d+)", page).group(1)  # type: ignore[union-attr]
    return edit, view, season_id


def expected(app: Flask, view: str, rule: SeasonRule) -> dict[str, tuple[Fraction, int, int]]:
    """Each player's score, results counted and results, from the engine over the stored club."""
    with app.app_context():
        db = get_db()
        club, _ = club_store.find_club(db, view)
        names: dict[object, str] = {p.id: p.name for p in club_store.roster(db, club.id)}
        lines = season_table(club_store.summaries(db, club.id), club_store.seats(db, club.id), rule,
                             "2026-10-01", "2026-12-31")
    return {names[line.key]: (line.score, line.counted, len(line.results)) for line in lines}


def test_best_nights_rank_the_table_and_say_so_with_the_counted_results_in_bold(app: Flask,
                                                                                client: FlaskClient) -> None:
    _edit, view, season = club_with_a_season(client, {"best": 2, "of": "nights"})
    want = expected(app, view, SeasonRule("nights", 2))
    assert want["Anna"][1:] == (2, 3) and want["Dora"][1:] == (2, 2)  # Dora played two nights: both count
    page = html.unescape(client.get(f"/c/{view}/table?season={season}&lang=en").get_data(as_text=True))
    assert "Ranked by each player's best 2 nights of the 3 played in the season" in page
    assert "a player with fewer nights counts them all" in page
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td><a [^>]*>([^<]+)</a>', page)
    order = sorted(want, key=lambda name: -want[name][0])
    assert [name for _place, name in rows] == order
    assert "2 of 3 nights" in page and "2 of 2 nights" in page
    counted = re.search(r"<li>Anna: (.*?)</li>", page).group(1)  # type: ignore[union-attr]
    assert counted.count("<b ") == 2 and counted.count('<span class="muted"') == 1
    italian = html.unescape(client.get(f"/c/{view}/table?season={season}&lang=it").get_data(as_text=True))
    assert "Classifica sulle 2 serate migliori di ciascun giocatore delle 3 giocate nella stagione" in italian


def test_a_season_by_the_total_says_so_and_ranks_as_before(client: FlaskClient) -> None:
    _edit, view, season = club_with_a_season(client, None)
    page = client.get(f"/c/{view}/table?season={season}&lang=en").get_data(as_text=True)
    assert "Ranked by each player&#39;s total over the season&#39;s matches." in page
    assert "Which results counted" not in page


def test_the_json_csv_and_pdf_rank_by_the_seasons_rule(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    _edit, view, season = club_with_a_season(client, {"best": 2, "of": "matches"})
    want = expected(app, view, SeasonRule("matches", 2))
    document = client.get(f"/c/{view}/players.json?season={season}").get_json()
    assert document["format"] == "scarto-players/1"
    assert document["season"] == {"name": "Coppa", "from": "2026-10-01", "to": "2026-12-31",
                                  "ranking": {"best": 2, "of": "matches"}}
    got = {p["name"]: (Fraction(str(p["score"])), p["counted"], p["results"]) for p in document["players"]}
    assert got == want
    assert [p["name"] for p in document["players"]] == sorted(want, key=lambda name: -want[name][0])
    assert client.get(f"/c/{view}/players.json?season=999").status_code == 400
    assert client.get(f"/c/{view}/players.json?season={season}&from=2026-01-01").status_code == 400
    head, *rows = open_csv(client.get(f"/c/{view}/table.csv?season={season}").data, "it", tmp_path)
    assert [c.value for c in head][-3:] == ["Migliori 2", "Migliori 2 (frazione esatta)", "Contati"]
    assert {row[1].value: row[-1].value for row in rows}["Anna"] == "2 di 5 partite"
    if shutil.which("pdftotext") is None:
        pytest.skip("make test installs poppler-utils")
    text = pdf_text(client.get(f"/c/{view}/table.pdf?season={season}").data)
    assert "Classifica sulle 2 partite migliori di ciascun giocatore" in text
    assert "2 di 5 partite" in text and "Migliori 2" in text


@pytest.mark.parametrize(("language", "fields", "message"), [
    ("en", {"counts": "nights", "best": ""}, "Write how many of each player's results count: a whole number "
                                            f"from 1 to {MAX_BEST_RESULTS}."),
    ("it", {"counts": "matches", "best": "0"}, "Scrivi quanti risultati di ciascun giocatore contano: un numero "
                                             f"intero da 1 a {MAX_BEST_RESULTS}."),
    ("de", {"counts": "nights", "best": str(MAX_BEST_RESULTS + 1)},
     f"Gib an, wie viele Ergebnisse jedes Spielers zählen: eine ganze Zahl von 1 bis {MAX_BEST_RESULTS}."),
    ("fi", {"counts": "matches", "best": "viisi"}, "Kirjoita, montako kunkin pelaajan tulosta lasketaan: "
                                                   f"kokonaisluku 1–{MAX_BEST_RESULTS}."),
    ("es", {"counts": "nights", "best": "2.5"}, "Escribe cuántos resultados de cada jugador cuentan: un número "
                                               f"entero del 1 al {MAX_BEST_RESULTS}."),
])
def test_a_season_form_with_a_bad_n_says_why_and_keeps_what_was_typed(
        client: FlaskClient, language: str, fields: dict[str, str], message: str) -> None:
    edit, _view, _season = club_with_a_season(client, None)
    typed = {"name": "Primavera", "start": "2027-03-01", "end": "2027-05-31", **fields}
    refused = submit(client, f"/c/{edit}/seasons?lang={language}", typed, page_url=f"/c/{edit}/")
    page = html.unescape(refused.get_data(as_text=True))
    assert refused.status_code == 400 and '<details id="new-season" open>' in page
    assert f'id="best-error">{message}</span>' in page
    assert 'value="Primavera"' in page and f'<option selected value="{fields["counts"]}">' in page


def test_a_season_is_made_with_its_rule_and_its_rule_changed_on_its_table(app: Flask, client: FlaskClient) -> None:
    edit, view, _season = club_with_a_season(client, None)
    made = submit(client, f"/c/{edit}/seasons", {"name": "Primavera", "start": "2026-10-01", "end": "2026-10-31",
                                                 "counts": "nights", "best": "1"}, page_url=f"/c/{edit}/")
    assert made.status_code == 302
    season = made.headers["Location"].split("season=")[1]
    with app.app_context():
        club, _ = club_store.find_club(get_db(), edit)
        assert club_store.get_season(get_db(), club.id, int(season)).rule == SeasonRule("nights", 1)
    table = f"/c/{edit}/table?season={season}"
    listed = html.unescape(client.get(f"/c/{view}/?lang=it").get_data(as_text=True))
    assert "31 ott 2026 · serata migliore</span>" in listed and "31 dic 2026</span>" in listed  # Coppa: the total
    one = html.unescape(client.get(f"{table}&lang=en").get_data(as_text=True))
    assert "Ranked by each player's best night of the 3 played in the season: their total that night." in one
    assert submit(client, f"/c/{view}/seasons/{season}/rule", {"counts": "all"}, page_url=table).status_code == 403
    bad = submit(client, f"/c/{edit}/seasons/{season}/rule?lang=en", {"counts": "matches", "best": "x"},
                 page_url=table)
    assert bad.status_code == 400 and 'id="best-error"' in bad.get_data(as_text=True)
    assert '<details id="season-rule" open>' in bad.get_data(as_text=True)
    changed = submit(client, f"/c/{edit}/seasons/{season}/rule", {"counts": "matches", "best": "3"}, page_url=table)
    assert changed.status_code == 302
    page = client.get(f"{table}&lang=en").get_data(as_text=True)
    assert "best 3 matches of the season" in html.unescape(page)
    exported = client.get(f"/c/{view}/export.json").get_json()
    assert exported["seasons"][1]["ranking"] == {"best": 3, "of": "matches"}
    assert submit(client, f"/c/{edit}/seasons/999/rule", {"counts": "all"}, page_url=table).status_code == 404
