"""The page cache (scorer/web/page_cache.py): a page served again only while nothing it shows changed."""

from __future__ import annotations

import html
import json
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from jinja2 import ChoiceLoader, DictLoader

from scorer.storage import clubs as club_store
from scorer.storage import store
from scorer.web import get_db
from scorer.web.page_cache import PAGE_CACHE, PageCache
from tests.handutil import flashes, points_data, record, view_token
from tests.seed import hand_keys, match_file
from tests.test_web_clubs import new_club, player_ids, start
from tests.webutil import csrf_token, start_match

PLAYERS = ("Anna", "Bruno", "Carla")


@pytest.fixture(autouse=True)
def _empty() -> None:
    PAGE_CACHE.clear()


def rows(page: str) -> list[str]:
    """The hand numbers in the page's standings table."""
    return re.findall(r'<a class="row-link" href="[^"]+" aria-label="[^"]+">(\d+)<', page)


def test_the_second_look_is_served_kept_and_the_same(client: FlaskClient) -> None:
    token = start_match(client)
    record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, "Anna"))
    client.get(f"/m/{token}/")  # the flash of the save is shown (and the page rendered) once
    hits = PAGE_CACHE.hits
    first = client.get(f"/m/{token}/").get_data(as_text=True)
    second = client.get(f"/m/{token}/").get_data(as_text=True)
    assert PAGE_CACHE.hits == hits + 2
    assert first == second and rows(first) == ["1"]


def test_every_change_to_the_hands_shows_at_once(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, "Anna"))
    assert rows(client.get(f"/m/{token}/").get_data(as_text=True)) == ["1"]
    client.get(f"/m/{token}/")
    record(client, token, "points", points_data({"Anna": 10, "Bruno": 60}, PLAYERS, "Bruno"))
    page = client.get(f"/m/{token}/").get_data(as_text=True)
    assert rows(page) == ["1", "2"]
    with app.app_context():  # a delete from another phone (or any other path): the page shows it too
        row, _edit = store.find_match(get_db(), token)
        store.delete_hand(get_db(), row.id, hand_keys(app, token)[1])
    assert rows(client.get(f"/m/{token}/").get_data(as_text=True)) == ["1"]


def test_standings_json_is_kept_until_the_hands_change(app: Flask, client: FlaskClient) -> None:
    """It lists every hand: made once a change and served kept between, a save or a delete from any
    path shown at once."""
    token = start_match(client)

    def hands() -> list[int]:
        return [h["number"] for h in client.get(f"/m/{token}/standings.json").get_json()["hands"]]

    record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, "Anna"))
    assert hands() == [1]
    hits = PAGE_CACHE.hits
    assert hands() == [1] and PAGE_CACHE.hits == hits + 1
    record(client, token, "points", points_data({"Anna": 10, "Bruno": 60}, PLAYERS, "Bruno"))
    assert hands() == [1, 2]
    with app.app_context():
        row, _edit = store.find_match(get_db(), token)
        store.delete_hand(get_db(), row.id, hand_keys(app, token)[0])
    assert hands() == [1]


def test_what_depends_on_the_phone_is_not_kept(client: FlaskClient) -> None:
    token = start_match(client)
    record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, "Anna"))
    assert flashes(client, token) == ["Hand 1 saved: Anna 34 · Bruno -16 · Carla -18."]
    assert flashes(client, token) == []  # the kept part has no flash in it, the next look none
    italian = client.get(f"/m/{token}/?lang=it").get_data(as_text=True)
    assert "Chi paga chi" in italian and "Who pays whom" not in italian
    view = view_token(client, token)
    page = client.get(f"/m/{view}/?lang=en").get_data(as_text=True)
    assert "view only" in page and f"/m/{token}/" not in page and 'id="record-points"' not in page


def test_a_page_kept_for_offline_use_leaves_the_message_for_the_page_shown(client: FlaskClient) -> None:
    token = start_match(client)
    record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, "Anna"))
    for path in (f"/m/{token}/", f"/m/{token}/hands/new/live", f"/m/{token}/"):  # rendered, then kept
        warm = client.get(path, headers={"X-Scarto-Warm": "1"}).get_data(as_text=True)
        assert flashes_text(warm) == "" and "<main" in warm
    assert flashes(client, token) == ["Hand 1 saved: Anna 34 · Bruno -16 · Carla -18."]
    assert flashes(client, token) == []


def test_the_club_link_is_the_phones_own(app: Flask, client: FlaskClient) -> None:
    edit, _view = new_club(client)
    ids = player_ids(app, edit)
    token = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    assert "← Circolo Arci" in client.get(f"/m/{token}/").get_data(as_text=True)
    stranger = app.test_client()  # has the match's link only: no way to the club
    assert "← Circolo Arci" not in stranger.get(f"/m/{token}/").get_data(as_text=True)


def test_nothing_is_kept_when_told_so(app: Flask, client: FlaskClient) -> None:
    app.config["PAGE_CACHE_BYTES"] = 0
    token = start_match(client)
    client.get(f"/m/{token}/")
    client.get(f"/m/{token}/")
    assert len(PAGE_CACHE) == 0 and PAGE_CACHE.hits == 0


def test_cached_pages_are_bounded_by_size_oldest_out_first() -> None:
    kept = PageCache()
    one = sys.getsizeof("x" * 100)  # memory, not characters: a "—" makes every character two bytes
    assert sys.getsizeof("—" + "x" * 99) > one + 90
    for n in range(10):
        kept.put(n, "x" * 100, limit=4 * one + 50)
    assert len(kept) == 4 and kept.size == 4 * one
    assert kept.get(5) is None and kept.get(6) == "x" * 100
    kept.put(10, "y" * 100, limit=4 * one + 50)  # 6 was used last: 7 goes
    assert kept.get(6) is not None and kept.get(7) is None
    kept.put("big", "z" * 1000, limit=4 * one + 50)  # larger than the whole store: not kept
    assert kept.get("big") is None and kept.size == 4 * one


def test_links_under_another_prefix_are_kept_apart(client: FlaskClient) -> None:
    """Behind a proxy the path the app is served under comes with the request (X-Forwarded-Prefix):
    one phone's prefix must never reach another phone's links."""
    token = start_match(client)
    record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, "Anna"))
    client.get(f"/m/{token}/")
    odd = client.get(f"/m/{token}/", environ_overrides={"SCRIPT_NAME": "//elsewhere.example"})
    assert "//elsewhere.example/m/" in odd.get_data(as_text=True)
    for path in (f"/m/{token}/", f"/m/{token}/hands/new/points"):
        client.get(path, environ_overrides={"SCRIPT_NAME": "//elsewhere.example"})
        assert "elsewhere" not in client.get(path).get_data(as_text=True)


def test_a_page_number_past_the_last_is_the_last_page_kept_once(client: FlaskClient) -> None:
    token = start_match(client)
    client.get(f"/m/{token}/")
    before = len(PAGE_CACHE)
    for page in ("2", "7", "99999"):
        client.get(f"/m/{token}/?page={page}")
    assert len(PAGE_CACHE) == before


def entry_page(client: FlaskClient, token: str) -> str:
    return client.get(f"/m/{token}/hands/new/points").get_data(as_text=True)


def test_a_kept_entry_form_carries_each_phones_own_csrf_token(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    other = app.test_client()  # another phone with the same link: a session of its own
    mine = csrf_token(entry_page(client, token))
    hits = PAGE_CACHE.hits
    theirs_page = entry_page(other, token)
    assert PAGE_CACHE.hits == hits + 1  # kept: the second phone got the same form
    theirs = csrf_token(theirs_page)
    assert theirs != mine and "\x00" not in theirs_page
    fields = {"csrf_token": theirs, "expected_count": "0", "dealer": "Anna", "points_0": "60", "points_1": "10",
              "points_2": ""}
    assert other.post(f"/m/{token}/hands/new/points", data=fields).status_code == 302
    assert client.post(f"/m/{token}/hands/new/points", data={**fields, "csrf_token": theirs}).status_code == 400


def test_the_kept_new_match_form_carries_each_phones_own_csrf_token_and_language(app: Flask,
                                                                                  client: FlaskClient) -> None:
    other = app.test_client()  # another phone: a session of its own
    mine = csrf_token(client.get("/new").get_data(as_text=True))
    hits = PAGE_CACHE.hits
    theirs_page = other.get("/new").get_data(as_text=True)
    assert PAGE_CACHE.hits == hits + 1  # kept: the second phone got the same form
    theirs = csrf_token(theirs_page)
    assert theirs != mine and "\x00" not in theirs_page
    fields = {"csrf_token": theirs, "preset": "classic", "player_1": "A", "player_2": "B", "player_3": "C",
              "first_dealer": "1", "end_kind": "hands", "settle": "per_point"}
    assert other.post("/new", data=fields).status_code == 302
    assert client.post("/new", data=fields).status_code == 400  # another phone's token is refused
    italian = client.get("/new?lang=it").get_data(as_text=True)
    assert 'lang="it"' in italian and '<option selected value="it">' in italian  # kept per language


def test_the_entry_form_after_a_save_is_the_next_hands_and_shows_the_message(client: FlaskClient) -> None:
    token = start_match(client)
    entry_page(client, token)
    record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, "Anna"))  # no page opened
    page = entry_page(client, token)
    assert "Hand 1 saved" in page and "<h1>Hand 2 " in page
    again = entry_page(client, token)
    assert "Hand 1 saved" not in again and "<h1>Hand 2 " in again


def _checked_dealer(page: str) -> list[str]:
    return re.findall(r'<input type="radio" name="dealer" id="dealer-\d" value="([^"]+)" checked(?: data-rotation)?>',
                      page)


def test_the_entry_form_is_kept_from_hand_to_hand_with_the_next_hands_number_count_and_dealer(
        client: FlaskClient) -> None:
    """Only the table's scorer opens the form, once a hand: kept under the match's state it was never
    served twice. Kept across hands, each phone gets the next hand's number, count and dealer."""
    token = start_match(client)
    first = entry_page(client, token)
    assert "<h1>Hand 1 " in first and _checked_dealer(first) == ["Anna"]
    assert re.search(r'name="expected_count" type="hidden" value="0"', first)
    for number, dealer in ((2, "Bruno"), (3, "Carla"), (4, "Anna")):
        record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, dealer=PLAYERS[number - 2]))
        client.get(f"/m/{token}/")  # the save's message shown on the match page
        hits = PAGE_CACHE.hits
        page = entry_page(client, token)
        assert PAGE_CACHE.hits == hits + 1, "the form kept from the last hand"
        assert f"<h1>Hand {number} " in page and f"Save hand {number}<" in page
        assert re.search(rf'name="expected_count" type="hidden" value="{number - 1}"', page)
        assert _checked_dealer(page) == [dealer]
        assert re.findall(r'value="([^"]+)"[^>]* data-rotation>', page) == [dealer], "what the phone asks about"
        assert "\x00" not in page
    # the table chose another dealer: the next is the one after them
    record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, dealer="Carla"))
    client.get(f"/m/{token}/")
    assert _checked_dealer(entry_page(client, token)) == ["Anna"]


def _live_config(page: str) -> dict[str, object]:
    found = re.search(r"data-config='([^']*)'", page)
    assert found, "the live page has live.js's data"
    return dict(json.loads(html.unescape(found.group(1))))


def test_the_live_page_is_kept_from_hand_to_hand_with_live_js_told_the_count_and_dealer(
        client: FlaskClient) -> None:
    """The live page was rendered anew after every hand (7 ms, the costliest entry form): now kept like
    the others, live.js's data filled in too."""
    token = start_match(client, names=("Anna", "Bruno", "Zoë <Z>"))
    players = ("Anna", "Bruno", "Zoë <Z>")
    first = client.get(f"/m/{token}/hands/new/live").get_data(as_text=True)
    assert _live_config(first)["count"] == "0" and _live_config(first)["dealer"] == "Anna"
    for number, dealer in ((2, "Bruno"), (3, "Zoë <Z>"), (4, "Anna")):
        record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, players, dealer=players[number - 2]))
        client.get(f"/m/{token}/")
        hits = PAGE_CACHE.hits
        page = client.get(f"/m/{token}/hands/new/live").get_data(as_text=True)
        assert PAGE_CACHE.hits == hits + 1, "the live page kept from the last hand"
        config = _live_config(page)
        assert config["count"] == str(number - 1) and config["dealer"] == dealer
        assert f"<h1>Hand {number} " in page and _checked_dealer(page) == [html.escape(dealer, quote=True)]
        assert "\x00" not in page and "\\u0000" not in page


def test_a_kept_entry_form_follows_the_names_of_the_match(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, names=("Anna", "Bruno", "Carla & Co"))
    assert _checked_dealer(entry_page(client, token)) == ["Anna"]
    hits = PAGE_CACHE.hits
    with app.app_context():
        db = get_db()
        row, _edit = store.find_match(db, token)
        settings = {**row.settings, "players": ["Anna", "Bruno", "Carla & Co"], "first_dealer": "Carla & Co"}
        db["matches"].update(row.id, {"settings": json.dumps(settings)})  # as a roster rename writes it
    page = entry_page(client, token)
    assert PAGE_CACHE.hits == hits, "other settings: rendered anew"
    assert _checked_dealer(page) == ["Carla &amp; Co"]


def test_the_processes_of_one_run_share_what_they_render(app: Flask, client: FlaskClient,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process (here: this one with nothing cached in memory) finds the page in the shared cache
    instead of rendering it again; another run (new code) does not."""
    from scorer.web import page_cache

    renders: list[str] = []
    real = page_cache._render_with_slots

    def counted(render: object) -> str:
        renders.append("page")
        return real(render)  # type: ignore[arg-type]

    app.config["PAGE_CACHE_RUN"] = "run-1"
    token = start_match(client)
    monkeypatch.setattr(page_cache, "_render_with_slots", counted)  # the match's pages, not the new-match form
    record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, "Anna"))
    client.get(f"/m/{token}/")  # the save's message: this look is the phone's own
    first = client.get(f"/m/{token}/").get_data(as_text=True)
    entry = client.get(f"/m/{token}/hands/new/points").get_data(as_text=True)
    assert len(renders) == 2
    PAGE_CACHE.clear()
    assert client.get(f"/m/{token}/").get_data(as_text=True) == first
    assert client.get(f"/m/{token}/hands/new/points").get_data(as_text=True) == entry
    assert len(renders) == 2, "rendered again though the shared cache had it"
    other = app.test_client()  # another phone, served from the shared cache: its own token, no other phone's message
    other_entry = other.get(f"/m/{token}/hands/new/points").get_data(as_text=True)
    assert len(renders) == 2
    assert csrf_token(other_entry) not in (None, csrf_token(entry)) and "\x00" not in other_entry
    record(client, token, "points", points_data({"Anna": 10, "Bruno": 60}, PLAYERS, "Bruno"))  # a message waits
    PAGE_CACHE.clear()
    saver = flashes_text(client.get(f"/m/{token}/").get_data(as_text=True))  # its message, on a page rendered
    assert saver and flashes_text(other.get(f"/m/{token}/").get_data(as_text=True)) == ""  # and put in the shared cache
    assert other.post(f"/m/{token}/hands/new/points", data={
        "csrf_token": csrf_token(other_entry) or "", "expected_count": "2", "version": "", "save_anyway": "",
        **points_data({"Anna": 30, "Bruno": 40}, PLAYERS, "Carla")}).status_code == 302
    PAGE_CACHE.clear()
    app.config["PAGE_CACHE_RUN"] = "run-2"
    before = len(renders)
    client.get(f"/m/{token}/")
    assert len(renders) == before + 1


def flashes_text(page: str) -> str:
    return " ".join(re.findall(r'<div class="flash[^"]*" role="status">([^<]*)</div>', page))


def test_without_a_run_mark_there_is_no_shared_cache(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    client.get(f"/m/{token}/")
    assert not Path(app.config["DATABASE"]).with_name("test.cache.sqlite").exists()


def test_the_entry_forms_markup_changes_without_the_cache_knowing(app: Flask, client: FlaskClient,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Whoever edits the dealer's choice (attributes in another order, one more) needs to know nothing of
    the page cache: the checked dealer, the count and the number come from the request's data."""
    loader = app.jinja_env.loader
    assert loader is not None
    source = loader.get_source(app.jinja_env, "_hand_parts.html")[0]
    moved = source.replace('id="dealer-{{ loop.index0 }}" value="{{ p }}"',
                           'value="{{ p }}" data-seat="{{ loop.index0 }}" id="dealer-{{ loop.index0 }}"')
    assert moved != source
    monkeypatch.setattr(app.jinja_env, "loader", ChoiceLoader([DictLoader({"_hand_parts.html": moved}), loader]))
    monkeypatch.setattr(app.jinja_env, "cache", {})  # the app is the session's: both put back after
    token = start_match(client)
    entry_page(client, token)
    record(client, token, "points", points_data({"Anna": 60, "Bruno": 10}, PLAYERS, "Anna"))
    client.get(f"/m/{token}/")
    hits = PAGE_CACHE.hits
    page = entry_page(client, token)
    assert PAGE_CACHE.hits == hits + 1
    assert re.findall(r'value="([^"]+)" data-seat="\d" id="dealer-\d" checked data-rotation>', page) == ["Bruno"]
    assert '<h1>Hand 2 ' in page and re.search(r'name="expected_count" type="hidden" value="1"', page)


def test_the_service_worker_knows_nothing_of_the_entry_forms_markup() -> None:
    """Offline, the hands waiting on the phone move a cached form on through the page's data (offline.js
    reads the form's own fields): the worker edits none of the form's markup (its number, count, dealer)."""
    worker = (Path(__file__).resolve().parent.parent / "static" / "sw.js").read_text()
    for markup in ('"dealer": ', 'name="dealer"', "<h1>", "<title>", 'id="save">', '"count": "'):
        assert markup not in worker


# --- the club and player pages --------------------------------------------------------------


def _without_tokens(page: bytes) -> bytes:
    """A page but for its CSRF token (signed with the time: two looks a second apart differ there)."""
    return re.sub(rb'name="csrf_token" type="hidden" value="[^"]*"', b"", page)


def _served(client: FlaskClient, url: str) -> bytes:
    """The page as the cache serves it (looked at twice: the second look must be a hit)."""
    client.get(url)
    hits = PAGE_CACHE.hits
    page = client.get(url)
    assert page.status_code == 200 and PAGE_CACHE.hits == hits + 1, f"{url} served from the cache"
    return _without_tokens(page.data)


def _fresh(client: FlaskClient, url: str) -> bytes:
    """The page rendered now, nothing cached."""
    PAGE_CACHE.clear()
    return _without_tokens(client.get(url).data)


@pytest.fixture
def club_pages(app: Flask, client: FlaskClient) -> dict[str, object]:
    """A club of four with a match of two hands, its club page and Anna's page (edit link)."""
    edit, view = new_club(client)
    ids = player_ids(app, edit)
    token = start(client, edit, [ids["Anna"], ids["Bruno"], ids["Carla"]])
    for dealer, anna in (("Anna", 30), ("Bruno", 40)):
        client.post(f"/m/{token}/hands.json", json={"dealer": dealer, "points": {"Anna": anna, "Bruno": 24,
                                                                                 "Carla": 78 - 24 - anna}})
    client.get(f"/c/{edit}/")  # the saves' messages shown
    return {"edit": edit, "view": view, "ids": ids, "match": token,
            "urls": [f"/c/{edit}/", f"/c/{edit}/p/{ids['Anna']}", f"/c/{edit}/p/{ids['Bruno']}?lang=en"]}


def _change(app: Flask, token: str, change: str) -> None:
    """A change to a club match's hands, from any path (here: the store, as another phone's save)."""
    with app.app_context():
        db = get_db()
        row, _edit = store.find_match(db, token)
        first = store.list_hands(db, row.id)[0]
        if change == "edited":
            store.update_hand(db, row.id, first.key, {**first.record, "points": {"Anna": 50, "Bruno": 14,
                                                                                 "Carla": 14}})
        else:
            store.delete_hand(db, row.id, first.key)


@pytest.mark.parametrize("change", ["edited", "deleted", "restored"])
def test_a_hand_edited_deleted_or_restored_shows_on_the_club_and_player_pages(
        app: Flask, client: FlaskClient, club_pages: dict[str, Any], change: str) -> None:
    urls = club_pages["urls"]
    before = [_served(client, url) for url in urls]
    if change == "restored":  # deleted first, the pages looked at meanwhile, then brought back
        with app.app_context():
            db = get_db()
            row, _edit = store.find_match(db, club_pages["match"])
            first = store.list_hands(db, row.id)[0]
            store.delete_hand(db, row.id, first.key)
        deleted = [_served(client, url) for url in urls]
        assert deleted != before
        with app.app_context():
            store.undelete_hand(get_db(), row.id, first.key)
    else:
        _change(app, club_pages["match"], change)
    after = [_served(client, url) for url in urls]
    assert after == [_fresh(client, url) for url in urls]
    assert (after == before) is (change == "restored")


def test_a_match_added_to_the_club_shows_on_its_pages(app: Flask, client: FlaskClient,
                                                     club_pages: dict[str, Any]) -> None:
    urls = club_pages["urls"]
    before = [_served(client, url) for url in urls]
    assert client.post(f"/c/{club_pages['edit']}/matches", json=match_file(3)).status_code == 201
    after = [_served(client, url) for url in urls]
    assert all(a != b for a, b in zip(after, before, strict=True))
    assert after == [_fresh(client, url) for url in urls]


@pytest.mark.parametrize("change", ["rename", "merge", "season added", "season deleted"])
def test_a_roster_or_season_change_shows_on_the_club_and_player_pages(
        app: Flask, client: FlaskClient, club_pages: dict[str, Any], change: str) -> None:
    urls = club_pages["urls"]
    ids = club_pages["ids"]
    with app.app_context():
        club, _edit = club_store.find_club(get_db(), club_pages["edit"])
        if change == "season deleted":
            season = club_store.add_season(get_db(), club.id, "Autunno", "2020-09-01", "2030-12-31")
    before = [_served(client, url) for url in urls]
    with app.app_context():
        db = get_db()
        if change == "rename":
            club_store.rename_player(db, club.id, ids["Bruno"], "Bruno Bianchi", None)
        elif change == "merge":
            club_store.merge_players(db, club.id, ids["Dora"], ids["Anna"])
        elif change == "season added":
            club_store.add_season(db, club.id, "Autunno", "2020-09-01", "2030-12-31")
        else:
            club_store.delete_season(db, club.id, season.id)
    after = [_served(client, url) for url in urls]
    assert after[0] != before[0] and after[1] != before[1]  # the club's page, Anna's page
    assert after == [_fresh(client, url) for url in urls]


def test_club_pages_are_cached_per_language_and_per_link(club_pages: dict[str, Any], client: FlaskClient) -> None:
    edit, view, anna = club_pages["edit"], club_pages["view"], club_pages["ids"]["Anna"]
    for page in ("/c/{}/?lang={}", f"/c/{{}}/p/{anna}?lang={{}}"):
        english = _served(client, page.format(edit, "en"))
        italian = _served(client, page.format(edit, "it"))
        assert b'<html lang="en"' in english and b'<html lang="it"' in italian
        seen = _served(client, page.format(view, "en"))  # the view link: no form, no edit link
        assert b"<form" in english and b"<form" not in seen and edit.encode() not in seen


def test_a_cached_club_page_carries_each_phones_own_csrf_token_and_messages(
        app: Flask, club_pages: dict[str, Any], client: FlaskClient) -> None:
    url = club_pages["urls"][0]
    other = app.test_client()
    mine = csrf_token(client.get(url).get_data(as_text=True))
    hits = PAGE_CACHE.hits
    theirs = csrf_token(other.get(url).get_data(as_text=True))
    assert PAGE_CACHE.hits == hits + 1 and theirs not in (None, mine)
    client.post(f"/m/{club_pages['match']}/hands.json", json={"dealer": "Carla",
                                                               "points": {"Anna": 30, "Bruno": 24, "Carla": 24}})
    with client.session_transaction() as session:
        session["_flashes"] = [("message", "Hand 3 saved")]
    assert "Hand 3 saved" in client.get(url).get_data(as_text=True)
    assert "Hand 3 saved" not in other.get(url).get_data(as_text=True)


def test_a_change_made_by_another_process_shows_on_the_club_page(app: Flask, client: FlaskClient,
                                                                 club_pages: dict[str, Any]) -> None:
    """The club's state is read again when anyone committed since (SQLite's data_version), not only
    this process's connection: another server process renaming a player is seen at the next look."""
    url = club_pages["urls"][0]
    before = _served(client, url)
    other = sqlite3.connect(app.config["DATABASE"])
    with other:
        other.execute("UPDATE club_players SET name = 'Bruno Bianchi' WHERE id = ?", [club_pages["ids"]["Bruno"]])
    other.close()
    after = _served(client, url)
    assert after != before and b"Bruno Bianchi" in after
