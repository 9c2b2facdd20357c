"""Ratings where people look (scorer/web/ratings.py): the club page's ratings table, the player page's
rating, chart and nights, a night's before and after, head to head, the season table's PDF."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer import rater
from scorer.engine import club_files, night_files
from scorer.engine.ratings import PROVISIONAL_MATCHES
from scorer.storage import club_transfer, store
from scorer.storage import clubs as club_store
from scorer.storage import nights as night_store
from scorer.web import get_db

ROSTER = ["Anna", "Bruno", "Carla", "Dora"]


def three(players: list[str], points: list[int], day: str) -> dict[str, Any]:
    """A club match of one hand: ``points`` are the seats' scores (the first seat deals)."""
    return {"format": "scarto-match/1", "title": "-".join(players), "date": day, "ruleset": "classic",
            "players": players, "first_dealer": players[0], "end": {"hands": 1}, "settle": "per_point",
            "hands": [{"dealer": players[0], "points": dict(zip(players, map(str, points), strict=True))}]}


def matches() -> list[dict[str, Any]]:
    """Anna wins eleven matches (more than :data:`PROVISIONAL_MATCHES`), Dora plays two."""
    out = [three(["Anna", "Bruno", "Carla"], [30, 24, 24], f"2026-11-{i + 1:02d}") for i in range(11)]
    out += [three(["Bruno", "Carla", "Dora"], [30, 24, 24], "2026-11-20"),
            three(["Dora", "Carla", "Anna"], [30, 24, 24], "2026-11-21")]
    return out


@pytest.fixture()
def club(app: Flask) -> dict[str, Any]:
    """A club of thirteen matches and a night of one round (Anna, Bruno, Carla at one table) on 2026-12-03."""
    with app.app_context():
        db = get_db()
        row = club_transfer.import_club(db, club_files.parse_club({
            "format": "scarto-club/1", "name": "Circolo", "players": [{"name": n} for n in ROSTER],
            "seasons": [{"name": "Novembre", "from": "2026-11-01", "to": "2026-11-30"}],
            "matches": matches()}))
        spec = night_files.parse_night({"title": "Giovedì", "date": "2026-12-03", "players": ROSTER[:3],
                                        "rounds": 1, "hands_per_round": 1, "seed": 3}, row.settings)
        night = night_store.create_night(db, row, spec)
        table = night_store.tables(db, night.id)[0]
        seats = list(table.players)
        store.add_hand(db, table.match_id, {"dealer": seats[0], "points": {seats[0]: "10", seats[1]: "20",
                                                                          seats[2]: "48"}})
        ids = {p.name: p.id for p in club_store.roster(db, row.id)}
        ratings = rater.club_ratings(club_store.summaries(db, row.id), club_store.seats(db, row.id))
        season = club_store.seasons(db, row.id)[0]
        return {"edit": row.edit_token, "view": row.view_token, "ids": ids, "night": night.view_token,
                "ratings": {n: ratings[i] for n, i in ids.items()}, "seats": seats, "season": season.id}


def section(page: str, heading: str) -> str:
    return page.split(f"<h2>{heading}</h2>")[1].split("<h2>")[0]


def test_the_club_page_has_a_ratings_table_as_the_file_has_them(client: FlaskClient, club: dict[str, Any]) -> None:
    page = client.get(f"/c/{club['view']}/?lang=en").get_data(as_text=True)
    table = section(page, "Ratings")
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td><a href="/c/[^/]+/p/(\d+)">([^<]+)</a>(.*?)</tr>', table,
                      re.S)
    document = client.get(f"/c/{club['view']}/ratings.json").get_json()["players"]
    assert [name for _place, _id, name, _rest in rows] == [p["name"] for p in document]
    for (_place, _id, name, rest), entry in zip(rows, document, strict=True):
        assert f"<b>{entry['rating']}</b>" in rest and f'<td class="num more">{entry["matches"]}</td>' in rest
        assert ("provisional" in rest) == (entry["matches"] < PROVISIONAL_MATCHES), name
    assert [int(r[0]) for r in rows] == sorted(int(r[0]) for r in rows)
    assert f"until the player has {PROVISIONAL_MATCHES} counted matches" in table


def test_the_player_page_shows_the_rating_its_chart_and_the_night(client: FlaskClient, club: dict[str, Any]) -> None:
    anna = club["ratings"]["Anna"]
    page = client.get(f"/c/{club['edit']}/p/{club['ids']['Anna']}?lang=en").get_data(as_text=True)
    rating = section(page, "Rating")
    assert f'<b class="big">{anna.rating}</b>' in rating and "provisional" not in rating
    assert f"from {anna.matches} counted matches" in rating
    chart = rating.split('<div class="chart-box">')[1].split("</svg>")[0]
    assert "Rating, match by match" in chart and chart.count("<polyline") == 1
    points = chart.split('<polyline points="')[1].split('"')[0].split()
    assert len(points) == anna.matches + 1  # from the rating before the first match
    steps = anna.shown_steps()
    night = f"{steps[-1][1]}&nbsp;→&nbsp;{steps[-1][2]}"
    assert "Club night: " in rating and "Giovedì" in rating and night in rating  # one night: not best and worst
    assert f"<b>{steps[-1][2] - steps[-1][1]:+d}</b>" in rating
    dora = client.get(f"/c/{club['edit']}/p/{club['ids']['Dora']}?lang=en").get_data(as_text=True)
    assert f"provisional until {PROVISIONAL_MATCHES} counted matches (2 so far)" in section(dora, "Rating")
    assert "Club night" not in section(dora, "Rating")  # she played no night


def test_a_player_without_a_counted_match_has_no_rating(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        row = club_transfer.import_club(get_db(), club_files.parse_club({
            "format": "scarto-club/1", "name": "Nuovo", "players": [{"name": "Anna"}], "matches": []}))
        anna = club_store.roster(get_db(), row.id)[0].id
    assert "<h2>Rating</h2>" not in client.get(f"/c/{row.view_token}/p/{anna}?lang=en").get_data(as_text=True)
    assert "<h2>Ratings</h2>" not in client.get(f"/c/{row.view_token}/?lang=en").get_data(as_text=True)


def test_a_nights_page_shows_each_players_rating_before_and_after_it(client: FlaskClient,
                                                                    club: dict[str, Any]) -> None:
    page = client.get(f"/n/{club['night']}/?lang=en").get_data(as_text=True)
    table = section(page, "Ratings before and after the night")
    rows = re.findall(r'<tr><td>([^<]+)</td><td class="num">(\d+)</td>'
                      r'<td class="num"><b>(\d+)</b><small class="muted less">[-+]?\d+</small></td>'
                      r'<td class="num more">([-+]?\d+)</td></tr>', table)
    ranking = section(page, "Final ranking")
    assert [name for name, *_numbers in rows] == sorted(  # in the night's ranking order
        ["Anna", "Bruno", "Carla"], key=lambda n: ranking.index(f"<td>{n}<small"))
    for name, before, after, change in rows:
        _step, shown_before, shown_after = club["ratings"][name].shown_steps()[-1]  # the night's one match
        assert (int(before), int(after), int(change)) == (shown_before, shown_after, shown_after - shown_before)
    assert "Dora" not in table


def test_head_to_head_says_how_often_each_rival_was_finished_above_and_how_often_expected(
        client: FlaskClient, club: dict[str, Any]) -> None:
    anna, ratings = club["ids"]["Anna"], club["ratings"]
    page = client.get(f"/c/{club['view']}/p/{anna}?lang=en").get_data(as_text=True)
    table = section(page, "Head to head")
    cells = dict(re.findall(r'p/\d+">([^<]+)</a>.*?<td class="num">([^<]+)</td></tr>', table))
    mine = {s.match_id: s for s in ratings["Anna"].steps}
    for rival in ("Bruno", "Carla", "Dora"):
        shared = [(mine[s.match_id], s) for s in ratings[rival].steps if s.match_id in mine]
        actual = sum(1 if a.place < b.place else 0.5 if a.place == b.place else 0 for a, b in shared)
        expected = sum(rater.DEFAULT.ahead(a.before, b.before) for a, b in shared)
        assert cells[rival] == f"{actual:g} / {expected:.1f}", rival
    assert set(cells) == {"Bruno", "Carla", "Dora"}
    italian = client.get(f"/c/{club['view']}/p/{anna}?lang=it").get_data(as_text=True)
    assert re.search(r'<td class="num">\d+(,5)? / \d+,\d</td>', italian)  # the decimal comma


def test_head_to_head_in_a_season_counts_only_its_matches(client: FlaskClient, club: dict[str, Any]) -> None:
    anna, ratings = club["ids"]["Anna"], club["ratings"]
    page = client.get(f"/c/{club['view']}/p/{anna}?lang=en&season={club['season']}").get_data(as_text=True)
    cells = dict(re.findall(r'p/\d+">([^<]+)</a>.*?<td class="num">([^<]+)</td></tr>', section(page, "Head to head")))
    assert cells["Bruno"].startswith("11 / ")  # November: the eleven wins, not the night of December
    assert ratings["Anna"].matches == 13


def pdf_rows(pdf: bytes) -> dict[str, list[str]]:
    """The PDF's table, a row per player: its cells after the name (pdftotext -layout)."""
    text = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True).stdout
    rows = [line.split() for line in text.decode().splitlines()]
    return {row[1]: row[2:] for row in rows if len(row) > 2 and row[1] in ROSTER}


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="make test installs poppler-utils")
def test_the_season_tables_pdf_has_each_players_rating_at_the_seasons_end(client: FlaskClient,
                                                                          club: dict[str, Any]) -> None:
    ratings = club["ratings"]
    pdf = client.get(f"/c/{club['view']}/table.pdf?lang=en").data
    text = subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    assert "Rating" in text and "Rating: each player's today" in text
    assert {name: row[-1] for name, row in pdf_rows(pdf).items()} == {n: str(r.rating) for n, r in ratings.items()}
    november = pdf_rows(client.get(f"/c/{club['view']}/table.pdf?season={club['season']}").data)
    before_the_night = {n: str(r.shown_steps()[-1][2] if n == "Dora" else r.shown_steps()[-2][2])
                        for n, r in ratings.items()}  # Anna, Bruno and Carla played the night in December
    assert {name: row[-1] for name, row in november.items()} == before_the_night


def test_the_player_page_names_the_night_the_rating_rose_most_and_the_one_it_fell_most(
        app: Flask, client: FlaskClient, club: dict[str, Any]) -> None:
    with app.app_context():
        db = get_db()
        row, _edit = club_store.find_club(db, club["edit"])
        spec = night_files.parse_night({"title": "Venerdì", "date": "2026-12-04", "players": ROSTER[:3],
                                        "rounds": 1, "hands_per_round": 1, "seed": 3}, row.settings)
        night = night_store.create_night(db, row, spec)
        table = night_store.tables(db, night.id)[0]
        others = [name for name in table.players if name != "Anna"]
        points = {"Anna": "48", others[0]: "20", others[1]: "10"}  # Anna wins this one (78 card points)
        store.add_hand(db, table.match_id, {"dealer": table.players[0], "points": points})
        anna = rater.club_ratings(club_store.summaries(db, row.id), club_store.seats(db, row.id))[club["ids"]["Anna"]]
    thursday, friday = anna.shown_steps()[-2:]
    changes = {"Giovedì": thursday[2] - thursday[1], "Venerdì": friday[2] - friday[1]}
    best, worst = max(changes, key=changes.__getitem__), min(changes, key=changes.__getitem__)
    assert best != worst
    page = client.get(f"/c/{club['view']}/p/{club['ids']['Anna']}?lang=en").get_data(as_text=True)
    lines = section(page, "Rating").split('<ul class="matches">')[1].split("</ul>")[0]
    assert re.search(rf"Best night: <a [^>]+>{best}</a> <b>{re.escape(f'{changes[best]:+d}')}</b>", lines)
    assert re.search(rf"Worst night: <a [^>]+>{worst}</a> <b>{re.escape(f'{changes[worst]:+d}')}</b>", lines)
    assert "Club night" not in lines
