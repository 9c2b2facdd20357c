"""Every page a player sees, in each of the five languages, at a phone's width.

German and Finnish words are long ("Stapelgrößen", "pistekortteja"): nothing may
stick out sideways. One browser page and one match (every record form, a revoke,
an edited and a deleted hand) serve all languages; the test only navigates, and
leaves a screenshot of each page in each language in ``tests/screenshots/``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from scorer import create_app
from scorer.storage import store
from scorer.web import LANGUAGES, get_db
from tests.browser.conftest import SCREENSHOTS, no_overflow
from tests.seed import hand_keys, seed_match

pytestmark = pytest.mark.browser

HEADING = {"en": "Start a match", "it": "Inizia una partita", "de": "Partie beginnen", "fi": "Aloita peli",
           "es": "Empezar una partida"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """The app on a free port with a 12-hand match; yields its base URL and the pages to visit."""
    folder = tmp_path_factory.mktemp("languages")
    app = create_app({"DATABASE": str(folder / "languages.sqlite"), "SECRET_KEY": "browser-languages"})
    edit, view = seed_match(app, hands=12)
    keys = hand_keys(app, edit)
    points, breach, honours = keys[1], keys[5], keys[3]
    with app.app_context():
        db = get_db()
        row, _ = store.find_match(db, edit)
        hand = store.get_hand(db, row.id, keys[0])
        store.update_hand(db, row.id, hand.key, {**hand.record, "notes": "Rivista al tavolo"},
                          expected_version=hand.version)
        gone = store.get_hand(db, row.id, keys[11])
        store.delete_hand(db, row.id, gone.key, expected_version=gone.version)
    m = f"/m/{edit}"
    pages = {
        "home": "/",
        "new-match": "/new",
        "match": f"{m}/",
        "match-view-only": f"/m/{view}/",
        "share": f"{m}/share",
        "hand-points": f"{m}/hands/{points}/",
        "hand-revoke": f"{m}/hands/{breach}/",
        "entry-points": f"{m}/hands/new/points",
        "entry-cards": f"{m}/hands/new/cards",
        "entry-honours": f"{m}/hands/new/honours",
        "entry-live": f"{m}/hands/new/live",
        "edit-honours": f"{m}/hands/{honours}/edit",
        "edit-live-revoke": f"{m}/hands/{breach}/edit",
        "history": f"{m}/hands/{keys[0]}/history",
        "deleted-hands": f"{m}/deleted",
        "audit": f"{m}/hands/{breach}/audit",
        "audit-trick-4": f"{m}/hands/{breach}/audit?t=4",
        "audit-what-if": f"{m}/hands/{breach}/audit?t=20&award=4-2",
        "import": "/import",
        "import-hand": f"{m}/import",
        "audit-upload": "/audit",
        "error-404": "/m/no-such-match/",
    }
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", pages
    finally:
        server.shutdown()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def phone(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """One page in one browser context for every language and page: only navigation between them."""
    context = browser.new_context(**browser_context_args)
    page = context.new_page()
    yield page
    context.close()


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_fits_a_phone_in_each_language(phone: Any, site: tuple[str, dict[str, str]],
                                                  language: str) -> None:
    base, pages = site
    too_wide: dict[str, list[str]] = {}
    for name, path in pages.items():
        url = f"{base}{path}{'&' if '?' in path else '?'}lang={language}"
        # live pages ask the server about the tricks as they open: wait for that answer to be shown
        response = phone.goto(url, wait_until="networkidle" if "live" in name else "load")
        assert response is not None
        assert response.status == (404 if name.startswith("error") else 200), (name, response.status)
        assert phone.locator("html").get_attribute("lang") == language, name
        overflow = no_overflow(phone)
        if overflow:
            too_wide[name] = overflow
        screenshot(phone, f"lang-{language}-{name}")
    assert too_wide == {}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_start_page_in_each_language(phone: Any, site: tuple[str, dict[str, str]], language: str) -> None:
    base, _pages = site
    phone.goto(f"{base}/?lang={language}")
    assert phone.locator("a.button.primary").inner_text() == HEADING[language]
    phone.goto(f"{base}/new")  # the choice sticks without ?lang=
    assert phone.locator("h1").inner_text() == HEADING[language]
