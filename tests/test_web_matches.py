"""Starting a match, its page, its links and files."""

from __future__ import annotations

import html
import json
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.engine.records import parse_match
from scorer.storage import store
from tests.webutil import start_match, submit


def test_start_page_offers_a_new_match(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert b"Start a match" in page.data


def test_create_match_and_see_who_deals(client: FlaskClient) -> None:
    token = start_match(client, first_dealer="2", title="Thursday", place="Pinerolo")
    page = client.get(f"/m/{token}/").get_data(as_text=True)
    assert "Thursday" in page
    assert "Hand 1 — Bruno deals" in page
    assert "No hand recorded yet." in page


def test_draw_for_first_dealer_picks_a_player(client: FlaskClient) -> None:
    token = start_match(client, first_dealer="draw")
    data = json.loads(client.get(f"/m/{token}/export.json").data)
    assert data["first_dealer"] in ("Anna", "Bruno", "Carla")


def test_switches_and_settlement_are_stored(client: FlaskClient) -> None:
    token = start_match(client, preset="saari", overtrump="true", ultimo="false", end_kind="target",
                        end_target="50", settle="loser_pays", stake="0,50", currency="chf")
    data = json.loads(client.get(f"/m/{token}/export.json").data)
    assert data["ruleset"] == {"preset": "saari", "overtrump": True}
    assert data["end"] == {"target": 50}
    assert data["settle"] == "loser_pays"
    assert data["stake"] == {"per_point": "0.50", "currency": "CHF"}
    assert parse_match(data).ruleset.fool_forfeit is True


def test_four_players_need_four_names(client: FlaskClient) -> None:
    response = submit(client, "/new", {"preset": "four", "player_1": "A", "player_2": "B", "player_3": "C",
                                       "first_dealer": "1", "end_kind": "hands", "settle": "per_point"})
    assert response.status_code == 400
    assert "Enter the names of all 4 players" in response.get_data(as_text=True)


def test_spaces_inside_a_typed_name_are_one_and_a_currency_word_keeps_its_spelling(client: FlaskClient) -> None:
    token = start_match(client, names=("Anna  Maria", "Bruno", "Carla"), stake="0.5", currency="Bier")
    data = json.loads(client.get(f"/m/{token}/export.json").data)
    assert data["players"][0] == "Anna Maria" and data["stake"] == {"per_point": "0.5", "currency": "Bier"}
    token = start_match(client, stake="1,50", currency="eur")
    assert json.loads(client.get(f"/m/{token}/export.json").data)["stake"] == {"per_point": "1.50",
                                                                                "currency": "EUR"}
    refused = submit(client, "/new", {"preset": "classic", "player_1": "Anna Maria", "player_2": "Anna   maria",
                                      "player_3": "Carla", "first_dealer": "1", "end_kind": "hands",
                                      "settle": "per_point"})
    assert refused.status_code == 400 and "is given twice" in refused.get_data(as_text=True)


def test_same_name_twice_is_refused(client: FlaskClient) -> None:
    response = submit(client, "/new", {"preset": "classic", "player_1": "Anna", "player_2": "anna",
                                       "player_3": "Carla", "first_dealer": "1", "end_kind": "hands",
                                       "settle": "per_point"})
    assert response.status_code == 400
    assert "anna is given twice: each player needs a different name" in response.get_data(as_text=True)


def test_bad_stake_is_refused_with_a_message(client: FlaskClient) -> None:
    response = submit(client, "/new", {"preset": "classic", "player_1": "A", "player_2": "B", "player_3": "C",
                                       "first_dealer": "1", "end_kind": "hands", "settle": "per_point",
                                       "stake": "ten"})
    assert response.status_code == 400
    assert "Write the stake as an amount" in response.get_data(as_text=True)


def test_unknown_token_is_404(client: FlaskClient) -> None:
    assert client.get("/m/not-a-token/").status_code == 404
    assert client.get("/m/not-a-token/export.json").status_code == 404


def test_tokens_are_long_and_random(client: FlaskClient, app) -> None:  # type: ignore[no-untyped-def]
    token = start_match(client)
    with app.app_context():
        from scorer.web import get_db
        row, can_edit = store.find_match(get_db(), token)
    assert can_edit and len(row.edit_token) >= 22 and len(row.view_token) >= 22
    assert row.edit_token != row.view_token


def test_share_page_has_both_links_and_qr_codes(client: FlaskClient) -> None:
    token = start_match(client)
    page = client.get(f"/m/{token}/share").get_data(as_text=True)
    assert page.count('class="segno"') == 2
    assert f"/m/{token}/" in page


def test_view_link_shows_only_the_view_link(client: FlaskClient) -> None:
    token = start_match(client)
    share = client.get(f"/m/{token}/share").get_data(as_text=True)
    view_token = [t for t in share.split("/m/")[1:] if not t.startswith(token)][0].split("/")[0]
    page = client.get(f"/m/{view_token}/share").get_data(as_text=True)
    assert token not in page and page.count('class="segno"') == 1
    match_page = client.get(f"/m/{view_token}/").get_data(as_text=True)
    assert "view only" in match_page and "record-points" not in match_page


def test_forms_work_over_https_without_a_referer(client: FlaskClient) -> None:
    """Browsers send no Referer (Referrer-Policy: no-referrer); the CSRF token alone must do."""
    page = client.get("/new", base_url="https://scarto.test")
    from tests.webutil import csrf_token
    response = client.post("/new", base_url="https://scarto.test", data={
        "csrf_token": csrf_token(page.get_data(as_text=True)), "preset": "classic", "player_1": "A",
        "player_2": "B", "player_3": "C", "first_dealer": "1", "end_kind": "hands", "settle": "per_point"})
    assert response.status_code == 302


def test_a_first_dealer_beyond_the_seats_is_refused(client: FlaskClient) -> None:
    response = submit(client, "/new", {"preset": "classic", "player_1": "A", "player_2": "B", "player_3": "C",
                                       "first_dealer": "4", "end_kind": "hands", "settle": "per_point"})
    assert response.status_code == 400
    assert "Tick who deals first." in response.get_data(as_text=True)


# --- the deal beside the preset, the Ultimo choice -------------------------------------------

DEAL_WORDS = {  # the four-player deal, as the new-match page and the match page name it
    "en": "four players: 19 cards each, a 2-card talon",
    "it": "quattro giocatori: 19 carte a testa, un monte di 2 carte",
    "de": "vier Spieler: je 19 Karten, ein Talon von 2 Karten",
    "fi": "neljä pelaajaa: 19 korttia kullekin, 2 kortin lisäpakka",
    "es": "cuatro jugadores: 19 cartas cada uno, un talón de 2 cartas",
}
ULTIMO_WORDS = {
    "en": "the Bagatto or the Fool taken in the last trick",
    "it": "il Bagatto o il Matto preso nell'ultima presa",
    "de": "der Bagatto oder der Narr im letzten Stich genommen",
    "fi": "Bagatto tai narri otettu viimeisessä tikissä",
    "es": "el Bagatto o el Loco ganado en la última baza",
}


def test_a_classic_table_of_four_picks_its_reading_then_four_players(client: FlaskClient) -> None:
    token = start_match(client, ("Anna", "Bruno", "Carla", "Dario"), preset="classic", deal="four")
    data = json.loads(client.get(f"/m/{token}/export.json").data)
    assert data["ruleset"] == {"preset": "classic", "deal": "four"}
    assert data["players"] == ["Anna", "Bruno", "Carla", "Dario"] and data["end"] == {"hands": 4}
    rules = parse_match(data).ruleset
    assert (rules.players, rules.top_trump, rules.fool_last_trick) == (4, "T20", "kept")


def test_the_deal_as_the_preset_says_is_not_written(client: FlaskClient) -> None:
    token = start_match(client, ("Anna", "Bruno", "Carla", "Dario"), preset="four", deal="four")
    assert json.loads(client.get(f"/m/{token}/export.json").data)["ruleset"] == "four"
    token = start_match(client, preset="four", deal="three")  # the sheet's reading, three-handed
    assert json.loads(client.get(f"/m/{token}/export.json").data)["ruleset"] == {"preset": "four", "deal": "three"}


@pytest.mark.parametrize(("fields", "message"), [
    ({"preset": "saari", "deal": "four"}, "Enter the names of all 4 players"),  # the deal says how many
    ({"deal": "five"}, "Not a valid choice"),
    ({"player_2": "An\u200bna"}, "is given twice: each player needs a different name"),  # as the engine reads
    ({"player_2": " anna "}, "anna is given twice"),
    ({"player_4": "Dario"}, "A fourth player plays only the four-player deal"),  # it was dropped without a word
    ({"stake": "0.001"}, "at most two decimals"),  # 4 points came to 0.00 EUR
    ({"stake": "1e3"}, "at most two decimals"),  # stored as 1E+3
    ({"stake": "0"}, "at most two decimals"),
], ids=["four-names", "unknown-deal", "invisible-character", "spaces-and-case", "fourth-name", "stake-mills",
        "stake-exponent", "stake-nothing"])
def test_a_new_match_form_is_refused_with_a_message(client: FlaskClient, fields: dict[str, str], message: str) -> None:
    data = {"preset": "classic", "player_1": "Anna", "player_2": "Bruno", "player_3": "Carla", "first_dealer": "1",
            "end_kind": "hands", "settle": "per_point", **fields}
    response = submit(client, "/new", data)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)


@pytest.mark.parametrize("lang", list(DEAL_WORDS))
def test_the_new_match_page_offers_the_deal_and_its_table_has_a_deal_row(client: FlaskClient, lang: str) -> None:
    page = client.get(f"/new?lang={lang}").get_data(as_text=True)
    for value in ("three", "four", "piccolo"):
        assert re.search(rf'<input[^>]*name="deal"[^>]*value="{value}"', page), value
    assert DEAL_WORDS[lang] in page
    table = page[page.index('<table class="switches">'):page.index("</table>")]
    first_row = re.search(r"<tbody><tr><th>([^<]+)</th>((?:<td>[^<]*</td>)+)</tr>", table)
    assert first_row is not None
    cells = re.findall(r"<td>([^<]*)</td>", first_row.group(2))
    assert len(cells) == 5 and cells[3] == DEAL_WORDS[lang]  # the presets' order: classic ... four, piccolo
    assert cells[0] == cells[1] == cells[2] != cells[4]


@pytest.mark.parametrize("lang", list(DEAL_WORDS))
def test_the_match_page_shows_the_deal_and_the_ultimo_choice(client: FlaskClient, lang: str) -> None:
    token = start_match(client, ("Anna", "Bruno", "Carla", "Dario"), preset="classic", deal="four",
                        ultimo="bagatto_or_fool", language=lang)
    page = html.unescape(client.get(f"/m/{token}/?lang={lang}").get_data(as_text=True))
    assert DEAL_WORDS[lang] in page
    assert ULTIMO_WORDS[lang] in page


@pytest.mark.parametrize(("lang", "message"), [("it", "Il numero deve essere compreso tra 1 e 500."),
                                               ("de", "Zahl muss zwischen 1 und 500 liegen."),
                                               ("en", "Number must be between 1 and 500.")])
def test_the_forms_own_messages_come_in_the_pages_language(client: FlaskClient, lang: str, message: str) -> None:
    """WTForms' messages from its catalogue (read once a process), in the language of each request in turn."""
    for _ in range(2):
        response = submit(client, f"/new?lang={lang}", {
            "preset": "classic", "player_1": "Anna", "player_2": "Bruno", "player_3": "Carla",
            "first_dealer": "1", "end_kind": "hands", "end_hands": "9999", "settle": "per_point"},
            page_url=f"/new?lang={lang}")
        assert response.status_code == 400
        assert message in html.unescape(response.get_data(as_text=True))


def test_the_start_page_lists_the_matches_opened_newest_first_the_cookie_sent_only_when_it_changes(
        client: FlaskClient) -> None:
    first, second = start_match(client), start_match(client)

    def sent(path: str) -> list[str]:
        return [c for c in client.get(path).headers.getlist("Set-Cookie") if c.startswith("recent=")]

    def listed() -> list[str]:
        cookie = client.get_cookie("recent", domain="scarto.test")
        return cookie.value.split(".")[:2] if cookie is not None else []

    assert sent(f"/m/{first}/") and listed() == [first, second]
    assert sent(f"/m/{first}/") == []  # already the newest: a table's phones look again and again
    assert sent(f"/m/{second}/") and listed() == [second, first]


def test_a_name_refused_by_the_reader_is_told_at_its_box_in_words(client: FlaskClient) -> None:
    """A name of only a zero-width space read "players[0] (player 1): a player name must be non-empty text"
    at the top of the form; it is the first player's box that is wrong."""
    data = {"preset": "classic", "first_dealer": "1", "end_kind": "hands", "settle": "per_point",
            "currency": "EUR", "end_target": "100", "player_1": "\u200b", "player_2": "Bruno", "player_3": "Carla"}
    response = submit(client, "/new?lang=it", data)
    page = html.unescape(response.get_data(as_text=True))
    assert response.status_code == 400 and "players[" not in page
    said = re.search(r'id="player_1-error">([^<]*)</span>', page)
    assert said is not None and said.group(1) == "il nome di un giocatore deve essere un testo non vuoto"


@pytest.mark.parametrize(("title", "date", "plain", "whole"), [
    ("Giovedì al circolo", "2026-11-30", "giovedi-al-circolo-2026-11-30.json",
     "gioved%C3%AC-al-circolo-2026-11-30.json"),
    ('Anna\'s "big" night / round 2', "2026-12-04", "anna-s-big-night-round-2-2026-12-04.json",
     "anna-s-big-night-round-2-2026-12-04.json"),
    ("Партия в Осаке", "2027-01-02", "2027-01-02.json",
     "%D0%BF%D0%B0%D1%80%D1%82%D0%B8%D1%8F-%D0%B2-%D0%BE%D1%81%D0%B0%D0%BA%D0%B5-2027-01-02.json"),
    ("A very long title " * 4, "2026-11-30", "a-very-long-title-a-very-long-title-a-very-long-t-2026-11-30.json",
     "a-very-long-title-a-very-long-title-a-very-long-t-2026-11-30.json"),
])
def test_the_export_is_named_by_the_matchs_title_and_date(client: FlaskClient, title: str, date: str, plain: str,
                                                          whole: str) -> None:
    """A week's file told from the next: title and date, safe on every system, whole in filename*."""
    from tests.matchutil import points_match

    created = client.post("/api/matches", json={**points_match(1, title=title), "date": date})
    token = created.get_json()["edit_url"].rstrip("/").split("/m/")[1]
    header = client.get(f"/m/{token}/export.json").headers["Content-Disposition"]
    assert header == f"attachment; filename=\"{plain}\"; filename*=UTF-8''{whole}"


def test_an_untitled_match_exports_as_the_page_is_titled_and_dated(client: FlaskClient) -> None:
    token = start_match(client)
    header = client.get(f"/m/{token}/export.json").headers["Content-Disposition"]
    assert re.fullmatch(r"attachment; filename=\"scarto-match-\d{4}-\d\d-\d\d\.json\"; filename\*=UTF-8''"
                        r"scarto-match-\d{4}-\d\d-\d\d\.json", header), header
    italian = client.get(f"/m/{token}/export.json?lang=it").headers["Content-Disposition"]
    assert "filename=\"partita-a-scarto-" in italian


NEW_MATCH = {"preset": "classic", "first_dealer": "1", "end_kind": "hands", "settle": "per_point",
             "currency": "EUR", "end_target": "100", "player_1": "Anna", "player_2": "Bruno", "player_3": "Carla"}


@pytest.mark.parametrize(("box", "typed"), [("title", "\x00messages\x00"), ("place", "Bar\u2028Sport"),
                                            ("title", "Finale\x1b[31m")])
def test_a_title_or_place_with_a_control_character_is_refused_at_its_box(client: FlaskClient, box: str,
                                                                          typed: str) -> None:
    response = submit(client, "/new", {**NEW_MATCH, box: typed, "player_1": "Annamaria"})
    assert response.status_code == 400
    page = html.unescape(response.get_data(as_text=True))
    said = re.search(rf'id="{box}-error">([^<]*)</span>', page)
    assert said is not None and said.group(1).startswith("holds a control character (U+")
    assert "<title>Start a match" in page and "Annamaria" in page  # the rest as typed


def test_a_title_with_a_nul_is_a_read_error_in_the_api(client: FlaskClient) -> None:
    match = {"format": "scarto-match/1", "players": ["Anna", "Bruno", "Carla"], "first_dealer": "Anna",
             "title": "\u0000messages\u0000", "hands": []}
    response = client.post("/api/matches", json=match)
    assert response.status_code == 400
    assert response.get_json()["problems"][0] == {
        "code": "read_error", "where": "title",
        "message": "holds a control character (U+0000), a tab or a line break: this text is one line of what can "
                   "be seen, remove it"}


@pytest.mark.parametrize(("typed", "key"), [
    ("\u2063", "invisible"), ("\u3164", "invisible"), ("\u2800\u2800", "invisible"),
    ("\U000e0061\U000e0062", "invisible"),
    ("Anna\u2063", "format"), ("An\u00adna", "format"), ("\u202eanna\u202c", "format"),
])
def test_a_name_that_shows_nothing_or_hides_a_character_is_refused_at_its_box(client: FlaskClient, typed: str,
                                                                              key: str) -> None:
    response = submit(client, "/new?lang=it", {**NEW_MATCH, "player_2": typed})
    assert response.status_code == 400
    page = html.unescape(response.get_data(as_text=True))
    said = re.search(r'id="player_2-error">([^<]*)</span>', page)
    words = {"invisible": "non mostra nulla", "format": "carattere di formattazione invisibile"}
    assert said is not None and words[key] in said.group(1), said.group(1) if said else page[:3000]


def test_look_alike_names_are_two_players_with_a_warning(client: FlaskClient) -> None:
    response = submit(client, "/new", {**NEW_MATCH, "player_2": "\u0410nna"}, follow=True)
    assert response.status_code == 200  # a warning, not a refusal
    page = html.unescape(response.get_data(as_text=True))
    assert ('<div class="flash warning" role="status">“Anna” and “\u0410nna” look alike but are written with '
            'different letters, so they are two players. If they are one person, give them one name.</div>') in page
    plain = submit(client, "/new", {**NEW_MATCH, "player_2": "Annie"}, follow=True).get_data(as_text=True)
    assert "look alike" not in plain


def test_the_api_says_which_names_look_alike(client: FlaskClient) -> None:
    match = {"format": "scarto-match/1", "players": ["Anna", "\u0410nna", "Carla"], "first_dealer": "Anna",
             "hands": []}
    response = client.post("/api/matches", json=match)
    assert response.status_code == 201  # two players, kept
    assert response.get_json()["warnings"] == [
        "“Anna” and “\u0410nna” look alike but are written with different letters, so they are two players. If "
        "they are one person, give them one name."]
    plain = client.post("/api/matches", json={**match, "players": ["Anna", "Bruno", "Carla"]}).get_json()
    assert "warnings" not in plain
    club = client.post("/api/clubs", json={"format": "scarto-club/1", "name": "Circolo",
                                           "players": ["Ivo", "lvo", "Carla"]}).get_json()
    assert [w[:16] for w in club["warnings"]] == ["“Ivo” and “lvo” "]


LOOP_ROWS = """  {% for line in view.table.lines %}{% set hand = view.hands[loop.index0] if view.hands else none %}
  {#- a row's cells unindented: 20 rows, 300 bytes of the match page's budget #}
  <tr class="{% if link_hands and hand %}open{% endif %}{% if line.problems %} marked{% endif %}{% if not line.counted %} after-end{% endif %}"{% if not line.counted %} title="{{ _('After the end of the match: not counted') }}"{% endif %}>
<td>{% if link_hands and hand %}<a class="row-link" href="{{ view.hand_url(hand.key) }}" aria-label="{{ _('Hand %(n)s, dealt by %(dealer)s', n=line.number, dealer=line.dealer) }}">{{ line.number }}<span> ›</span></a>{% else %}{{ line.number }}{% endif %}{% if line.problems %} <span class="flag" title="{{ _('Rule breach marked') }}">!</span>{% endif %}</td>
{% for p in players %}<td{% if p == line.dealer %} class="d"{% endif %}>{{ line.scores[p]|points if p in line.scores else "–" }}<br><small>{{ line.totals[loop.index0]|points }}</small></td>{% endfor %}
</tr>
  {%- endfor %}
"""  # noqa: E501
"""The standings' rows as a template loop wrote them, a call to escape a value: the reference."""


@pytest.mark.parametrize("language", ["en", "it", "de"])
def test_the_standings_rows_made_in_one_pass_are_the_template_loops(app: Flask, client: FlaskClient, language: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The same HTML as the loop they replace: breaches marked, thirds, hands after the end, names to
    escape, an earlier page of hands, the view link; in three languages."""
    from jinja2 import ChoiceLoader, DictLoader

    from scorer.web import get_db
    from tests.seed import PLAYERS, _rename, match_file

    app.config["PAGE_CACHE_BYTES"] = 0
    names = dict(zip(PLAYERS, ["Anna", "Zoë <Z>", "Carla & \"Co\""], strict=True))
    long_match = _rename(match_file(30), names)
    after_end = {**match_file(9, title="Over"), "end": {"hands": 4}}
    with app.app_context():
        rows = [store.create_match(get_db(), parse_match(data)) for data in (long_match, after_end)]
    urls = [f"/m/{rows[0].edit_token}/", f"/m/{rows[0].edit_token}/?page=2", f"/m/{rows[0].view_token}/",
            f"/m/{rows[1].edit_token}/"]
    pages = [client.get(f"{url}{'&' if '?' in url else '?'}lang={language}").get_data(as_text=True) for url in urls]
    loader = app.jinja_env.loader
    assert loader is not None
    source = loader.get_source(app.jinja_env, "_standings.html")[0]
    assert "  {{ standings_rows(view, link_hands) }}\n" in source
    monkeypatch.setattr(app.jinja_env, "loader", ChoiceLoader([DictLoader({"_standings.html": source.replace(
        "  {{ standings_rows(view, link_hands) }}\n", LOOP_ROWS)}), loader]))
    monkeypatch.setattr(app.jinja_env, "cache", {})  # the app is the session's: both put back after
    looped = [client.get(f"{url}{'&' if '?' in url else '?'}lang={language}").get_data(as_text=True) for url in urls]
    assert pages == looped
    joined = "".join(pages)
    assert 'class="open marked"' in joined and "after-end" in joined and "Zoë &lt;Z&gt;" in joined
