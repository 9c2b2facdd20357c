"""At the table with no signal: the service worker keeps the pages, keeps the hands, sends them once.

Each phone is its own browser context at phone size; ``context.set_offline`` cuts its network
(the service worker's requests included). 127.0.0.1 is a secure context, so the worker runs.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from scorer.storage import db as database
from scorer.web import LANGUAGES
from scorer.web import db as web_db
from tests.browser.conftest import (
    CHROMIUM_ARGS,
    COLOUR_RULES,
    PHONE,
    SCREENSHOTS,
    TEST_PACE,
    chromium,
    no_overflow,
    violations,
)
from tests.browser.handflows import new_match, new_match_links, stored_hands, totals, tricks_as_played
from tests.seed import dealt_by, match_file
from tests.serverutil import csrf_token, hidden

pytestmark = pytest.mark.browser

UPDATE_SECONDS = 6
"""A watching match page shows another phone's hand within this (it polls every TEST_PACE s)."""
PACE_MS = TEST_PACE * 1000


def until(page: Any, script: str, *, seconds: float = 15) -> Any:
    """Wait until a script (a function body's expression, run with evaluate) is truthy.

    ``page.wait_for_function`` evaluates a string, which the strict CSP forbids: poll instead.
    """
    deadline = time.monotonic() + seconds
    while True:
        value = page.evaluate(script)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {seconds} s: {script}")
        time.sleep(0.1)


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    """The phone of the other browser tests, with the service worker: these tests are about it."""
    return {**browser_context_args, "service_workers": "allow"}


def install(page: Any, match_url: str) -> None:
    """Open the match online until the service worker controls it and has kept its pages, and the
    numbers that count the hands waiting on the phone (kept last: under load they came after)."""
    page.goto(match_url)
    until(page, "navigator.serviceWorker.controller !== null")
    path = match_url.split("127.0.0.1", 1)[1].split("/", 1)[1]
    until(page, "caches.open('scarto-pages').then(c => c.keys()).then(k => k.map(r => r.url))"
                f".then(urls => ['', 'hands/new/points', 'hands/new/cards', 'hands/new/honours', 'hands/new/live',"
                f" 'tally.json']"
                f".every(p => urls.some(u => u.endsWith('/{path}' + p))))")


@pytest.fixture()
def phone(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Callable[[], Any]]:
    """More phones: each a context of its own (cookies, service worker, IndexedDB)."""
    contexts: list[Any] = []

    def make() -> Any:
        context = browser.new_context(**browser_context_args)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def add_hand(page: Any, match_url: str, dealer: str, points: tuple[int, int, int]) -> None:
    """A counted-points hand saved through the entry form by this phone's cookies (not its pages)."""
    form = page.request.get(match_url + "hands/new/points").text()
    fields = {"csrf_token": csrf_token(form) or "", "expected_count": hidden(form, "expected_count") or "",
              "dealer": dealer, **{f"points_{i}": str(p) for i, p in enumerate(points)}}
    response = page.request.post(match_url + "hands/new/points", form=fields, max_redirects=0)
    assert response.status == 302, response.text()


def snap(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def waiting(page: Any) -> Any:
    return page.locator("#waiting li")


@pytest.mark.slow
def test_offline_the_match_opens_marked_and_hands_in_all_four_forms_are_sent_once_in_order(
        page: Any, live_server: str) -> None:
    match_url = new_match(page, live_server)
    install(page, match_url)
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("#offline-mark")).to_have_text(re.compile(r"^No connection — as of \d\d:\d\d$"))
    expect(page.locator("h1")).to_have_text("Friday at the circolo")
    snap(page, "offline-match")

    # hand 1: counted points (Anna deals)
    page.locator("#record-points").click()
    expect(page.locator("#offline-mark")).to_be_visible()
    expect(page.locator("#dealer-0")).to_be_checked()
    page.locator("#points_0").fill("31")
    page.locator("#points_1").fill("22")
    page.locator("#save").click()
    expect(waiting(page)).to_have_count(1)
    expect(waiting(page).nth(0)).to_have_text("Hand 1, dealt by Anna — waiting")

    # hand 2: captured cards, as text (Bruno deals: the form knows hand 1 is waiting)
    piles = dealt_by("classic-captured", "Bruno")["captured"]
    page.locator("#record-cards").click()
    expect(page.locator("h1")).to_contain_text("Hand 2")
    expect(page.locator("#dealer-1")).to_be_checked()
    expect(page.locator("#grid")).to_be_visible()  # cards.js has run (it closes the text box when it starts)
    page.locator("#as-text summary").click()
    page.locator("#cards_0").fill(" ".join(piles["Anna"]))
    page.locator("#cards_1").fill(" ".join(piles["Bruno"]))
    page.locator("#save").click()  # the counts to check against the real piles come first, offline too
    expect(page.locator("#pile-check")).to_be_visible()
    expect(page.locator("#pile-check-list li")).to_have_text(
        [f"{name}: {len(piles[name])}" for name in ("Anna", "Bruno", "Carla")])
    page.locator("#pile-check-ok").click()  # one tap says they match: the hand is kept waiting
    expect(waiting(page)).to_have_count(2)

    # hand 3: counting cards and pile sizes (Carla deals)
    honours = dealt_by("classic-honours", "Carla")
    page.locator("#record-cards").click()
    page.locator("#to-honours").click()
    expect(page.locator("h1")).to_contain_text("Hand 3")
    expect(page.locator("#dealer-2")).to_be_checked()
    page.locator("#as-text summary").click()
    page.locator("#cards_0").fill(" ".join(honours["honours"]["Anna"]))
    page.locator("#cards_1").fill(" ".join(honours["honours"]["Bruno"]))
    page.locator("#size_0").fill(str(honours["sizes"]["Anna"]))
    page.locator("#size_1").fill(str(honours["sizes"]["Bruno"]))
    page.locator("#save").click()
    expect(waiting(page)).to_have_count(3)

    # hand 4: live, trick by trick (Anna deals again); nothing can be checked offline, it is kept
    page.locator("#record-live").click()
    expect(page.locator("h1")).to_contain_text("Hand 4")
    expect(page.locator("#dealer-0")).to_be_checked()
    for trick in tricks_as_played("classic-valid-1"):
        for card in trick["cards"]:
            page.locator(f'#grid [data-card="{card}"]').click()
    expect(page.locator("#live-note")).to_have_text(
        "Not checked yet: no connection. Your entry is kept on this phone.")
    page.locator("#save").click()
    expect(waiting(page)).to_have_count(4)
    expect(waiting(page)).to_have_text(["Hand 1, dealt by Anna — waiting", "Hand 2, dealt by Bruno — waiting",
                                        "Hand 3, dealt by Carla — waiting", "Hand 4, dealt by Anna — waiting"])
    # the phone counts the points hand; the others are the server's to score, and the page says so
    expect(page.locator("#tally .tally-hands li > span")).to_have_text(
        ["Anna 5 · Bruno -4 · Carla -1"] + ["Scored when it is sent."] * 3)
    expect(page.locator("#tally > p.muted")).to_have_text(
        "This phone counts the hands entered as points; the others count once they are sent.")
    expect(page.locator("section.next h2")).to_have_text("Hand 5 — Bruno deals with the hands not yet sent")
    expect(page.locator("#to-play")).to_be_hidden()  # the match's 3 hands are played: hand 4 counts for nothing
    snap(page, "offline-waiting")
    assert stored_hands(page, match_url) == []

    # the connection returns: the page sends them (the `online` event) and shows the match as stored
    page.context.set_offline(False)
    expect(page.locator("#waiting")).to_have_count(0, timeout=15000)
    expect(page.locator("table.standings tbody tr")).to_have_count(4)
    expect(page.locator("#offline-mark")).to_have_count(0)
    hands = stored_hands(page, match_url)
    assert [h["dealer"] for h in hands] == ["Anna", "Bruno", "Carla", "Anna"]
    assert [next(k for k in ("points", "captured", "honours", "tricks") if k in h) for h in hands] == [
        "points", "captured", "honours", "tricks"]
    assert hands[0]["points"] == {"Anna": 31, "Bruno": 22, "Carla": 25}
    assert sorted(hands[1]["captured"]["Carla"]) == sorted(piles["Carla"])
    assert hands[2]["sizes"] == honours["sizes"]
    page.reload()
    expect(page.locator("table.standings tbody tr")).to_have_count(4)
    assert len(stored_hands(page, match_url)) == 4


def test_entries_still_waiting_are_sent_once_the_server_answers_even_if_the_online_try_failed(
        page: Any, live_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``online`` event's try can fail (the connection not really back yet: seen in CI under load;
    here the server busy with another save, a 503): the next answer from the server (the page's poll)
    sends the entries instead of leaving them waiting until the next time the phone goes offline."""
    match_url = new_match(page, live_server)
    install(page, match_url)
    page.context.set_offline(True)
    page.reload()
    page.locator("#record-points").click()
    page.locator("#points_0").fill("31")
    page.locator("#points_1").fill("22")
    page.locator("#save").click()
    expect(waiting(page)).to_have_count(1)
    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.1)
    assert web_db._SAVING.acquire(timeout=1)  # the live server's process is this one: its saves answer 503
    try:
        page.context.set_offline(False)  # the online try (and Background Sync's) get the 503
        page.wait_for_timeout(1500)
        assert stored_hands(page, match_url) == [] and waiting(page).count() == 1
    finally:
        web_db._SAVING.release()
    expect(page.locator("#waiting")).to_have_count(0, timeout=10000)  # the poll, every 3 s: then sent
    assert [h["points"]["Anna"] for h in stored_hands(page, match_url)] == [31]


def test_a_waiting_hand_whose_sending_hangs_is_given_up_and_sent_again_with_the_next(page: Any,
                                                                                   live_server: str) -> None:
    """A queued hand sent when the connection returns, whose request then neither answers nor fails (a
    connection gone dead without a word), held that hand and every one after it, and every later try,
    for good. sw.js gives it up after 10 s as a network failure; the next try sends both, in order."""
    match_url = new_match(page, live_server)
    install(page, match_url)
    page.context.set_offline(True)
    page.reload()
    for number, points in ((1, ("31", "22")), (2, ("40", "20"))):
        page.locator("#record-points").click()
        expect(page.locator("h1")).to_contain_text(f"Hand {number}")
        page.locator("#points_0").fill(points[0])
        page.locator("#points_1").fill(points[1])
        page.locator("#save").click()
        expect(waiting(page)).to_have_count(number)
    hung: list[Any] = []

    def hang_the_first(route: Any) -> None:
        if route.request.method == "POST" and not hung:
            hung.append(route)  # never answered
        else:
            route.continue_()

    page.context.route("**/hands/new/points", hang_the_first)
    try:
        page.context.set_offline(False)
        page.wait_for_timeout(2000)
        assert len(hung) == 1 and stored_hands(page, match_url) == []
        expect(page.locator("#waiting")).to_have_count(0, timeout=20000)  # TEST_SEND_WAIT, then the next try
        assert [h["points"]["Anna"] for h in stored_hands(page, match_url)] == [31, 40]
    finally:
        page.context.unroute("**/hands/new/points")


def test_an_entry_waiting_behind_a_held_one_does_not_make_the_page_fetch_itself_every_few_seconds(
        page: Any, phone: Callable[[], Any], live_server: str) -> None:
    """Hand 1 entered offline is held (another phone saved hand 1 meanwhile); hand 2 waits behind it,
    as their order matters. Each poll tried to send it and fetched the whole page again, every 3 s,
    with nothing new to show."""
    match_url = new_match(page, live_server)
    install(page, match_url)
    page.context.set_offline(True)
    page.reload()
    for number, points in ((1, ("31", "22")), (2, ("40", "20"))):
        page.locator("#record-points").click()
        page.locator("#points_0").fill(points[0])
        page.locator("#points_1").fill(points[1])
        page.locator("#save").click()
        expect(waiting(page)).to_have_count(number)
    add_hand(phone(), match_url, "Anna", (25, 25, 28))  # another phone saves hand 1 first
    page.context.set_offline(False)
    expect(page.locator("#waiting li[data-state=held]")).to_have_count(1, timeout=10000)
    expect(page.locator("#waiting li[data-state=waiting]")).to_have_count(1)
    expect(page.locator("table.standings tbody tr")).to_have_count(1, timeout=UPDATE_SECONDS * 1000)
    page.wait_for_timeout(PACE_MS)
    seen: list[str] = []
    page.on("request", lambda r: seen.append("refresh" if r.headers.get("x-scarto-refresh")
                                            else "ask" if "state.json" in r.url else "other"))
    page.wait_for_timeout(3 * PACE_MS + 500)  # three asks
    assert seen.count("ask") >= 2 and seen.count("refresh") == 0, seen
    expect(page.locator("#waiting li")).to_have_count(2)  # both still listed for the player to decide


def test_a_save_whose_answer_was_lost_is_sent_again_and_stored_once(page: Any, live_server: str) -> None:
    match_url = new_match(page, live_server)
    install(page, match_url)
    posts: list[int] = []

    def lose_the_first_answer(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        posts.append(route.request.post_data.count("entry_key="))
        if len(posts) == 1:
            stored = route.fetch(max_redirects=0)  # the server stores the hand...
            assert stored.status == 302
            route.abort("connectionreset")  # ...and the answer never reaches the phone
        else:
            route.continue_()

    page.context.route("**/hands/new/points", lose_the_first_answer)
    page.locator("#record-points").click()
    page.locator("#points_0").fill("31")
    page.locator("#points_1").fill("22")
    page.locator("#save").click()
    expect(page.locator(".flash")).to_have_text("Hand 1 saved: Anna 5 · Bruno -4 · Carla -1.", timeout=15000)
    expect(page.locator("table.standings tbody tr")).to_have_count(1)
    assert posts == [1, 1]  # sent twice, each time with its key
    assert len(stored_hands(page, match_url)) == 1
    page.reload()
    expect(page.locator("table.standings tbody tr")).to_have_count(1)
    expect(page.locator("#waiting")).to_have_count(0)


@pytest.mark.slow
def test_two_phones_save_hand_4_one_of_them_offline_and_the_player_decides(
        page: Any, phone: Callable[[], Any], live_server: str) -> None:
    match_url = new_match(page, live_server, hands=6)  # hand 4 within the match: its buttons not behind the warning
    for dealer in ("Anna", "Bruno", "Carla"):
        add_hand(page, match_url, dealer, (25, 25, 28))
    other = phone()
    install(page, match_url)
    page.context.set_offline(True)
    page.locator("#record-points").click()
    expect(page.locator("h1")).to_contain_text("Hand 4")
    page.locator("#points_0").fill("40")
    page.locator("#points_1").fill("20")
    page.locator("#save").click()
    expect(waiting(page)).to_have_text(["Hand 4, dealt by Anna — waiting"])

    # meanwhile the other phone saves hand 4 online
    other.goto(match_url)
    other.locator("#record-points").click()
    other.locator("#points_0").fill("31")
    other.locator("#points_1").fill("22")
    other.locator("#save").click()
    expect(other.locator(".flash")).to_have_text("Hand 4 saved: Anna 5 · Bruno -4 · Carla -1.")

    page.context.set_offline(False)
    held = waiting(page).nth(0)
    expect(held).to_contain_text("Not saved: another phone saved hand 4 meanwhile. If yours is a different hand, "
                                 "save it as hand 5; if it is the same hand, throw yours away.", timeout=15000)
    expect(page.locator("table.standings tbody tr")).to_have_count(4)  # the page shows the other phone's hand
    snap(page, "offline-conflict")
    assert len(stored_hands(page, match_url)) == 4
    page.reload()
    expect(held).to_contain_text("another phone saved hand 4")  # kept until the player decides
    held.locator("button[data-action=next]").click()
    expect(page.locator("#waiting")).to_have_count(0, timeout=15000)
    expect(page.locator("table.standings tbody tr")).to_have_count(5)
    hands = stored_hands(page, match_url)
    assert [h["points"]["Anna"] for h in hands[3:]] == [31, 40]


def test_a_held_entry_can_be_thrown_away_when_it_was_the_same_hand(
        page: Any, phone: Callable[[], Any], live_server: str) -> None:
    match_url = new_match(page, live_server)
    other = phone()
    install(page, match_url)
    page.context.set_offline(True)
    page.locator("#record-points").click()
    page.locator("#points_0").fill("31")
    page.locator("#points_1").fill("22")
    page.locator("#save").click()
    other.goto(match_url + "hands/new/points")
    other.locator("#points_0").fill("31")
    other.locator("#points_1").fill("22")
    other.locator("#save").click()
    expect(other.locator(".flash")).to_contain_text("Hand 1 saved")
    page.context.set_offline(False)
    held = waiting(page).nth(0)
    expect(held.locator("button[data-action=discard]")).to_be_visible(timeout=15000)
    page.once("dialog", lambda dialog: dialog.accept())
    held.locator("button[data-action=discard]").click()
    expect(page.locator("#waiting")).to_have_count(0)
    assert len(stored_hands(page, match_url)) == 1


@pytest.mark.slow
def test_an_edit_a_delete_and_a_restore_made_offline_are_sent_once(page: Any, live_server: str) -> None:
    match_url = new_match(page, live_server)
    add_hand(page, match_url, "Anna", (31, 22, 25))
    add_hand(page, match_url, "Bruno", (22, 31, 25))
    install(page, match_url)
    first = page.locator("table.standings tbody tr:nth-child(1) a")
    first.click()
    hand_url = page.url
    page.locator("#edit").click()  # the edit form and the hand page are kept once opened
    page.goto(match_url)
    page.locator("table.standings tbody tr:nth-child(2) a").click()
    second_url = page.url
    page.goto(hand_url + "history")
    page.goto(match_url)

    page.context.set_offline(True)
    page.goto(hand_url + "edit")
    expect(page.locator("#offline-mark")).to_be_visible()
    page.locator("#points_0").fill("40")
    page.locator("#points_1").fill("20")
    page.locator("#points_2").fill("18")
    page.locator("#save").click()
    page.goto(second_url)
    page.locator("#delete button").click()
    expect(waiting(page)).to_have_text(["A change to a hand — waiting", "Deleting a hand — waiting"])
    assert [h["points"]["Anna"] for h in stored_hands(page, match_url)] == [31, 22]

    page.context.set_offline(False)
    expect(page.locator("#waiting")).to_have_count(0, timeout=15000)
    expect(page.locator("table.standings tbody tr")).to_have_count(1)
    assert [h["points"]["Anna"] for h in stored_hands(page, match_url)] == [40]

    # restore the first version offline from the kept history page
    page.goto(hand_url + "history")
    page.context.set_offline(True)
    page.reload()
    page.locator("#v1 form button").click()
    expect(waiting(page)).to_have_text(["Restoring an old version of a hand — waiting"])
    page.context.set_offline(False)
    expect(page.locator("#waiting")).to_have_count(0, timeout=15000)
    assert [h["points"]["Anna"] for h in stored_hands(page, match_url)] == [31]


def test_pages_kept_in_the_background_leave_the_players_message_for_the_page_shown(
        page: Any, live_server: str) -> None:
    """The worker keeps the entry forms while the player moves on: "Hand 1 deleted — undo" is not
    taken by a page fetched for offline use (seen in CI as a lost undo message)."""
    match_url = new_match(page, live_server)
    install(page, match_url)
    # off the match page, whose own poll would bring it up to date after the save and show the message
    # there (seen under load: the message gone before the page below was opened); the form polls nothing
    page.goto(match_url + "hands/new/points")
    add_hand(page, match_url, "Anna", (31, 22, 25))  # its message waits in this phone's session
    warmed = page.evaluate("""urls => new Promise(resolve => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve(true);
        navigator.serviceWorker.controller.postMessage({type: "warm", urls}, [channel.port2]);
    })""", [match_url, match_url + "hands/new/points", match_url + "hands/new/live"])
    assert warmed
    page.goto(match_url)
    expect(page.locator(".flash")).to_have_text("Hand 1 saved: Anna 5 · Bruno -4 · Carla -1.")
    page.reload()
    expect(page.locator(".flash")).to_have_count(0)


KEPT_FORM = """path => caches.open('scarto-pages').then(c => c.keys().then(keys => {
    const key = keys.find(k => k.url.endsWith(path));
    return key ? c.match(key).then(r => r.text()) : null;
}))"""


def after_the_pages_warm(page: Any) -> None:
    """Wait for the match page's first state.json answer, then for the worker's warming of it to end
    (a warm asked for after it is done after it)."""
    time.sleep(0.5)
    assert page.evaluate("""() => new Promise(resolve => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve(true);
        navigator.serviceWorker.controller.postMessage({type: "warm", urls: []}, [channel.port2]);
    })""")


def test_the_entry_forms_are_fetched_again_only_when_the_match_changed(page: Any, live_server: str) -> None:
    match_url = new_match(page, live_server)
    install(page, match_url)
    form = match_url.split("127.0.0.1", 1)[1].split("/", 1)[1] + "hands/new/points"
    assert "Hand 1" in page.evaluate(KEPT_FORM, form)
    # a copy the worker did not fetch: still there after another look at the unchanged match
    page.evaluate("""path => caches.open('scarto-pages').then(c => c.keys().then(keys =>
        c.put(keys.find(k => k.url.endsWith(path)), new Response('left as it was'))))""", form)
    with page.expect_response(lambda r: r.url.endswith("/state.json")):
        page.reload()
    after_the_pages_warm(page)
    assert page.evaluate(KEPT_FORM, form) == "left as it was"
    add_hand(page, match_url, "Anna", (31, 22, 25))  # the match moves on: the next look keeps hand 2's form
    with page.expect_response(lambda r: r.url.endswith("/state.json")):
        page.reload()
    until(page, f"({KEPT_FORM})({form!r}).then(text => text !== null && text.includes('Hand 2'))")
    page.context.set_offline(True)
    page.goto(match_url + "hands/new/points")
    expect(page.locator("#offline-mark")).to_be_visible()
    expect(page.locator("h1")).to_contain_text("Hand 2")


@pytest.mark.slow
def test_watching_phones_show_a_new_hand_without_a_reload(page: Any, phone: Callable[[], Any],
                                                          live_server: str) -> None:
    match_url, view_url = new_match_links(page, live_server)
    watchers = [phone(), phone()]
    for watcher, url in zip(watchers, (match_url, view_url), strict=True):  # the edit link and the view link
        watcher.goto(url)
        expect(watcher.locator(".next h2")).to_have_text("Hand 1 — Anna deals")
        watcher.evaluate("window.scarto_marker = 'not reloaded'")
        watcher.locator("details summary").first.click()  # a section the player opened stays open
    page.goto(match_url + "hands/new/points")
    page.locator("#points_0").fill("31")
    page.locator("#points_1").fill("22")
    saved_at = time.monotonic()
    page.locator("#save").click()
    expect(page.locator(".flash")).to_contain_text("Hand 1 saved")
    for watcher in watchers:
        expect(watcher.locator(".next h2")).to_have_text("Hand 2 — Bruno deals", timeout=UPDATE_SECONDS * 1000)
    assert time.monotonic() - saved_at < UPDATE_SECONDS
    for watcher in watchers:
        expect(watcher.locator("table.standings tbody tr")).to_have_count(1)
        assert watcher.evaluate("window.scarto_marker") == "not reloaded"
        assert watcher.evaluate("document.querySelector('main details').open")
    expect(watchers[1].locator("#record-points")).to_have_count(0)  # the view link stays view-only

    # a delete shows too
    page.goto(match_url)
    page.locator("table.standings tbody tr:nth-child(1) a").click()
    page.locator("#delete button").click()
    for watcher in watchers:
        expect(watcher.locator(".next h2")).to_have_text("Hand 1 — Anna deals", timeout=UPDATE_SECONDS * 1000)


def test_a_watching_page_of_earlier_hands_stays_on_them_when_it_updates(page: Any, phone: Callable[[], Any],
                                                                        live_server: str) -> None:
    """A long match's page 2 (the earlier hands) fetched the address without its query when another
    phone saved a hand, and so turned into page 1 under the watcher's eyes."""
    made = page.request.post(live_server + "/api/matches", data=match_file(21))
    assert made.status == 201, made.text()
    match_url = made.json()["edit_url"]
    page.goto(match_url + "?page=2")
    expect(page.locator("#later")).to_be_visible()
    rows = page.locator("table.standings tbody tr")
    expect(rows).to_have_count(1)  # hand 1 of 21 (20 to a page)
    dealer = re.search(r"— (\w+) ", page.request.get(match_url).text().split('<section class="next">')[1])
    assert dealer
    add_hand(phone(), match_url, dealer.group(1), (31, 22, 25))
    expect(rows).to_have_count(2, timeout=UPDATE_SECONDS * 1000)  # hands 1 and 2 of 22, still page 2
    expect(page.locator("#later")).to_be_visible()
    assert page.url.endswith("?page=2")


@pytest.mark.real_pace
@pytest.mark.parametrize("failure", ["lost", "busy"])
def test_after_a_failed_ask_the_first_answer_brings_the_pace_back(browser: Any, browser_context_args: dict[str, Any],
                                                                  live_server: str, failure: str) -> None:
    """A poll that fails (a lost connection; a busy server's 503) makes the page wait twice as long
    before the next; the next answer, a 304 as much as a 200, brings the server's pace back. A 304
    used to keep the long wait until the match changed, and a 503 was asked again at the full pace
    (sync.js)."""
    context = browser.new_context(**{**browser_context_args, "service_workers": "block"})  # page.route sees all
    try:
        watch_paced(context.new_page(), live_server, failure)
    finally:
        context.close()


START = 1_800_000_000_000
"""The watching page's clock at the start (ms), in the tests that move it themselves."""


def watch_paced(page: Any, live_server: str, failure: str) -> None:
    """The asks of a watching page, on a clock moved by the test: one ask fails, then the pace."""
    match_url, _view = new_match_links(page, live_server)
    asks: list[str] = []
    failing = [0]

    def answer(route: Any) -> None:  # counted once the answer is handed to the page
        if failing[0]:
            failing[0] -= 1
            if failure == "lost":
                route.abort()
            else:
                route.fulfill(status=503, headers={"Retry-After": "5"}, body="busy")
            asks.append("failed")
        else:
            route.fulfill(response=route.fetch())
            asks.append("answered")

    page.clock.install(time=START)
    page.clock.pause_at(START + 1000)  # the page's timers move only when the test moves them
    page.route("**/state.json", answer)
    page.goto(match_url)

    def waited(until_asks: int, *, at_most: int = 20_000) -> int:
        """The page's time (ms) until it has asked ``until_asks`` times, moved on half a second at a time
        (each step given time to settle: the page's answers come in real time)."""
        elapsed = 0
        while len(asks) < until_asks and elapsed < at_most:
            page.clock.run_for(500)
            elapsed += 500
            deadline = time.monotonic() + 0.2
            while len(asks) < until_asks and time.monotonic() < deadline:
                page.wait_for_timeout(20)  # in real time, and Playwright hands over the routes meanwhile
        return elapsed

    page.clock.run_for(0)
    deadline = time.monotonic() + 10
    while not asks and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert asks == ["answered"]  # the first look, at once
    page.wait_for_timeout(300)
    failing[0] = 1
    assert waited(2) <= 3500 and asks == ["answered", "failed"]  # every 3 s
    assert 5500 <= waited(3) <= 7000 and asks[-1] == "answered"  # a failure doubles the wait; a 304 then
    assert waited(4) <= 3500  # and the pace is 3 s again


def test_a_refresh_that_failed_is_made_again_at_the_next_ask(browser: Any, browser_context_args: dict[str, Any],
                                                             page: Any, live_server: str) -> None:
    """The page's tag is taken as seen only once the page shows it. It was taken when the poll saw it,
    so a refresh that failed (a lost connection, a busy server's 503) left the phone on the old
    standings, every later ask answered 304, until the match changed again."""
    match_url, _view = new_match_links(page, live_server)
    context = browser.new_context(**{**browser_context_args, "service_workers": "block"})  # page.route sees all
    try:
        watcher = context.new_page()
        refreshes: list[str] = []

        def answer(route: Any) -> None:
            if route.request.headers.get("x-scarto-refresh") != "1":
                route.continue_()
            elif not refreshes:
                refreshes.append("failed")
                route.fulfill(status=503, body="busy")
            else:
                refreshes.append("answered")
                route.continue_()

        watcher.route(match_url, answer)
        watcher.goto(match_url)
        expect(watcher.locator(".next h2")).to_have_text("Hand 1 — Anna deals")
        page.goto(match_url + "hands/new/points")
        page.locator("#points_0").fill("31")
        page.locator("#points_1").fill("22")
        page.locator("#save").click()
        expect(page.locator(".flash")).to_contain_text("Hand 1 saved")
        expect(watcher.locator(".next h2")).to_have_text("Hand 2 — Bruno deals", timeout=UPDATE_SECONDS * 1000 + 3000)
        assert refreshes == ["failed", "answered"]
    finally:
        context.close()


def test_a_hand_saved_before_the_first_ask_shows_on_the_watching_page(
        browser: Any, browser_context_args: dict[str, Any], page: Any, live_server: str) -> None:
    """The page carries the tag of what it shows and sync.js starts from it. The first answer's tag used
    to be taken as seen, so a hand saved between the page's rendering and its first ask was never shown
    (every later ask answered 304) until the match changed again."""
    match_url, _view = new_match_links(page, live_server)
    context = browser.new_context(**{**browser_context_args, "service_workers": "block"})  # page.route sees all
    try:
        watcher = context.new_page()
        held: list[Any] = []

        def hold_the_first(route: Any) -> None:
            if held:
                route.continue_()
            else:
                held.append(route)  # answered once the test has saved a hand

        watcher.route("**/state.json", hold_the_first)
        watcher.goto(match_url)
        expect(watcher.locator(".next h2")).to_have_text("Hand 1 — Anna deals")
        deadline = time.monotonic() + 10
        while not held and time.monotonic() < deadline:
            watcher.wait_for_timeout(50)
        assert held, "the page never asked state.json"
        add_hand(page, match_url, "Anna", (31, 22, 25))
        held[0].continue_()
        expect(watcher.locator(".next h2")).to_have_text("Hand 2 — Bruno deals", timeout=UPDATE_SECONDS * 1000)
    finally:
        context.close()


def test_a_page_the_worker_brought_up_to_date_keeps_the_tag_of_what_it_shows(
        browser: Any, browser_context_args: dict[str, Any], page: Any, live_server: str) -> None:
    """The worker's news (an entry sent or refused) makes the page fetch itself. sync.js kept the tag of
    the page before it, so the next ask answered 200 and the page was fetched once more with nothing new
    (a CI run caught it: ['ask', 'refresh', 'ask']). The page's tag now comes with the page."""
    match_url, _view = new_match_links(page, live_server)
    context = browser.new_context(**{**browser_context_args, "service_workers": "block"})  # page.route sees all
    try:
        watcher = context.new_page()
        watcher.route("**/state.json", lambda route: route.fulfill(status=304))  # the asks see no change
        watcher.goto(match_url)
        expect(watcher.locator(".next h2")).to_have_text("Hand 1 — Anna deals")
        add_hand(page, match_url, "Anna", (31, 22, 25))
        watcher.evaluate("navigator.serviceWorker.dispatchEvent(new MessageEvent('message', {data: {type: 'queue'}}))")
        expect(watcher.locator(".next h2")).to_have_text("Hand 2 — Bruno deals")
        seen: list[str] = []
        watcher.on("response", lambda r: seen.append("refresh" if r.request.headers.get("x-scarto-refresh")
                                                     else str(r.status) if "state.json" in r.url else "other"))
        watcher.unroute("**/state.json")
        watcher.wait_for_timeout(PACE_MS + 1000)  # one ask at least
        assert "304" in seen and "refresh" not in seen and "200" not in seen, seen
    finally:
        context.close()


def test_a_copy_shown_offline_for_another_page_asks_its_matchs_state_and_opens_that_page_once_online(
        page: Any, live_server: str) -> None:
    """Offline, a page this phone never kept is shown as the last copy of its match's page. That copy
    asked state.json next to the address shown (``hands/<key>/state.json``, a 404 every few seconds) and,
    once online, put the other page's content into the match page's frame; it now asks its match's and
    loads the page asked for."""
    match_url = new_match(page, live_server)
    install(page, match_url)
    page.goto("about:blank")  # the match page no longer watches: the copy kept stays the one before the hand
    add_hand(page, match_url, "Anna", (31, 22, 25))  # its page never opened here: not kept
    key = re.search(r'hands/([0-9a-f]+)/"', page.request.get(match_url).text())
    assert key, "no hand link on the match page"
    hand_url = f"{match_url}hands/{key.group(1)}/"
    asks: list[str] = []
    page.on("request", lambda r: asks.append(r.url) if r.url.split("?")[0].endswith("state.json") else None)
    page.context.set_offline(True)
    page.goto(hand_url)
    expect(page.locator("#offline-mark")).to_be_visible()
    expect(page.locator(".next h2")).to_have_text("Hand 1 — Anna deals")  # the match as kept
    snap(page, "offline-copy-for-another-page")
    page.wait_for_timeout(2 * PACE_MS + 500)  # an ask or two, offline
    page.context.set_offline(False)
    expect(page.locator("h1")).to_contain_text("Hand 1", timeout=UPDATE_SECONDS * 1000)
    expect(page.locator("#offline-mark")).to_have_count(0)
    assert page.url == hand_url
    assert asks and set(asks) == {match_url + "state.json"}, asks


def test_chromium_finds_the_app_installable(live_server: str, playwright: Any, tmp_path: Path) -> None:
    """The DevTools protocol's installability check, in a profile that is not incognito, in the full
    browser a phone's user installs from (the headless shell has no installing)."""
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=chromium("chromium"), args=CHROMIUM_ARGS,
        viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    try:
        page = context.new_page()
        page.goto(live_server + "/")
        until(page, "navigator.serviceWorker.controller !== null")
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest.get("errors") == [], manifest
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    finally:
        context.close()


def taken_over(page: Any) -> None:
    """Wait until the new worker is the active one, as a phone's browser would let it be.

    Chromium retires the old worker once it is idle. With DevTools attached, as Playwright is, it
    counts as idle only if it was running at the moment the new one asked to skip waiting; if it was
    still starting then, it is kept up to five minutes (Chromium's "lame duck" limit) while the page's
    polls keep it busy. A phone's browser stops an idle worker on its own; here DevTools stops the old
    one when it holds on, which is what a full run under load once met (40 s without a take-over)."""
    done = "navigator.serviceWorker.getRegistration().then(r => !r.waiting && !r.installing)"
    until(page, "navigator.serviceWorker.getRegistration().then(r => !r.installing)", seconds=30)
    try:
        until(page, done, seconds=5)
    except AssertionError:
        session = page.context.new_cdp_session(page)
        session.send("ServiceWorker.enable")
        session.send("ServiceWorker.stopAllWorkers")
        until(page, done, seconds=30)


def test_a_new_version_takes_over_at_the_next_page_load(page: Any, live_server: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from scorer.web import offline

    match_url = new_match(page, live_server)
    install(page, match_url)
    version = re.search(r"/static/app\.css\?v=([0-9a-f]{12})", page.content())
    assert version
    old = page.evaluate("caches.keys()")
    assert [k for k in old if k.startswith("scarto-assets-")] == [f"scarto-assets-{version.group(1)}"]
    monkeypatch.setattr(offline, "static_version", lambda: "0123456789ab")  # the static files changed
    page.goto(match_url)  # this load finds the new worker; it installs beside the old files
    until(page, "caches.keys().then(k => k.includes('scarto-assets-0123456789ab'))")
    taken_over(page)
    page.goto(match_url)  # the next load: the new version's page, with the new version's files
    assert "/static/app.css?v=0123456789ab" in page.content()
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("#offline-mark")).to_be_visible()
    # the page and its files belong together: its style sheets came from the new version's cache
    sheets = page.evaluate("[...document.styleSheets].map(s => s.href)")
    assert sheets and all("v=0123456789ab" in href for href in sheets)
    assert page.evaluate("document.styleSheets[0].cssRules.length") > 10


def test_the_home_screen_is_offered_once(page: Any, live_server: str) -> None:
    """Where the browser fires beforeinstallprompt, the match page offers it, once, out of the way."""
    match_url = new_match(page, live_server)
    page.goto(match_url)
    fire = """() => {
        const event = new Event('beforeinstallprompt', { cancelable: true });
        event.prompt = () => { window.prompted = (window.prompted || 0) + 1; return Promise.resolve(); };
        window.dispatchEvent(event);
        return event.defaultPrevented;
    }"""
    assert page.evaluate(fire) is True  # the browser's own banner is held back for ours
    offer = page.locator("#install")
    expect(offer).to_contain_text("Keep Scarto on the home screen: it opens even without a connection.")
    expect(page.locator("main > *").last).to_have_id("install")  # below the match, not over it
    offer.get_by_role("button", name="Add to home screen").click()
    assert page.evaluate("window.prompted") == 1
    expect(offer).to_have_count(0)
    page.reload()
    assert page.evaluate(fire) is False  # asked once: never again
    expect(page.locator("#install")).to_have_count(0)


def projected(page: Any) -> dict[str, Any]:
    """What the match page says of the match: next hand, hands to play, totals, who pays whom."""
    return dict(page.evaluate("""() => {
        const text = e => e ? e.textContent.replace(/\\s+/g, ' ').trim() : null;
        const tally = document.getElementById('tally');
        const totals = tally ? [...tally.querySelectorAll('.tally-totals tbody td')].map(text)
                             : [...document.querySelectorAll('table.standings tfoot th.num')].map(text);
        const pays = tally ? tally.querySelectorAll('.settlement li')
                           : document.querySelectorAll('#settlement .settlement li');
        return {next: text(document.querySelector('section.next h2')), left: text(document.getElementById('to-play')),
                totals: totals, pays: [...pays].map(text)};
    }"""))


def test_offline_the_match_page_counts_the_hands_waiting_on_the_phone_as_the_server_then_does(
        page: Any, live_server: str, axe_source: str) -> None:
    match_url = new_match(page, live_server, hands=6)
    install(page, match_url)
    until(page, "caches.open('scarto-pages').then(c => c.match(location.href + 'tally.json')).then(Boolean)")
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("section.next h2")).to_have_text("Hand 1 — Anna deals")
    for dealer, typed in (("Anna", ("31", "22")), ("Bruno", ("20", "47")), ("Carla", ("25 1/3", "30 2/3"))):
        page.locator("#record-points").click()
        expect(page.locator("#offline-mark")).to_be_visible()
        expect(page.locator("input[name=dealer]:checked")).to_have_value(dealer)
        page.locator("#points_0").fill(typed[0])
        page.locator("#points_1").fill(typed[1])
        page.locator("#save").click()
    expect(waiting(page)).to_have_count(3)
    expect(page.locator("#tally")).to_be_visible()
    assert projected(page) == {
        "next": "Hand 4 — Anna deals with the hands not yet sent",
        "left": "3 hands to play. with the hands not yet sent",
        "totals": ["-1⅔", "21⅔", "-20"],
        "pays": ["Carla pays Bruno 20 points", "Anna pays Bruno 1⅔ points"]}
    expect(page.locator("#tally .tally-hands li")).to_have_text([
        "Hand 1, dealt by AnnaAnna 5 · Bruno -4 · Carla -1", "Hand 2, dealt by BrunoAnna -6 · Bruno 21 · Carla -15",
        "Hand 3, dealt by CarlaAnna -⅔ · Bruno 4⅔ · Carla -4"])
    expect(page.locator("#no-hands")).to_be_hidden()
    expect(page.locator("#tally h2 .unsent")).to_have_text("with the hands not yet sent")
    assert violations(page, axe_source) == []
    offline = projected(page)
    for width in (390, 320):
        page.set_viewport_size({"width": width, "height": 844})
        assert no_overflow(page) == []
        snap(page, f"offline-tally-{width}")
    page.set_viewport_size(PHONE)
    assert stored_hands(page, match_url) == []

    # back online: sent once, and the server's page says what the phone said
    page.context.set_offline(False)
    expect(page.locator("#waiting")).to_have_count(0, timeout=15000)
    expect(page.locator("#tally")).to_have_count(0)
    expect(page.locator("table.standings tbody tr")).to_have_count(3)
    assert len(stored_hands(page, match_url)) == 3
    online = projected(page)
    marked = " with the hands not yet sent"
    assert online == {**offline, "next": offline["next"].replace(marked, ""),
                      "left": offline["left"].replace(marked, "")}
    assert totals(page, match_url) == {"Anna": "-5/3", "Bruno": "65/3", "Carla": -20}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_hands_waiting_are_counted_in_the_pages_language_and_fit_a_small_phone(
        page: Any, live_server: str, axe_source: str, language: str) -> None:
    """Four players, a long name, a hand waiting: every total and payment whole and in sight at 320 px."""
    players = ["Giulia Ferrari", "Bruno", "Carla", "Dario"]
    body = {"format": "scarto-match/1", "title": "Circolo", "ruleset": "four", "players": players,
            "first_dealer": "Bruno", "end": {"hands": 8}, "stake": {"per_point": "0.10", "currency": "EUR"},
            "hands": []}
    created = page.request.post(live_server + "/api/matches", data=body, headers={"Content-Type": "application/json"})
    match_url = str(created.json()["edit_url"])
    texts = page.request.get(f"{match_url}tally.json?lang={language}").json()["texts"]
    page.goto(f"{match_url}?lang={language}")
    install(page, match_url)
    until(page, "caches.open('scarto-pages').then(c => c.match(location.href + 'tally.json')).then(Boolean)")
    page.context.set_offline(True)
    page.reload()
    page.locator("#record-points").click()
    for i, typed in enumerate(("30 1/3", "10", "25 2/3")):
        page.locator(f"#points_{i}").fill(typed)
    page.locator("#save").click()
    expect(page.locator("#tally")).to_be_visible()
    expect(page.locator("#tally h2 .unsent")).to_have_text(texts["unsent"])
    expect(page.locator("section.next h2")).to_contain_text(texts["next"].split("%")[0].strip())
    expect(page.locator("section.next h2")).to_contain_text("Carla")
    expect(page.locator("#tally .tally-totals tbody td")).to_have_text(["10⅚", "-9½", "6⅙", "-7½"])
    expect(page.locator("#tally .settlement li")).to_have_count(3)
    page.set_viewport_size({"width": 320, "height": 700})
    assert no_overflow(page) == []
    for cell in page.locator("#tally td, #tally .settlement li").all():
        box = cell.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 320, cell.text_content()
    if language == "fi":
        page.emulate_media(color_scheme="dark")
        assert violations(page, axe_source, only=COLOUR_RULES) == []
        snap(page, "offline-tally-320-fi-dark")
    snap(page, f"offline-tally-320-{language}")
