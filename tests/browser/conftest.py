"""Browser tests: real Chromium (Debian's package) driven by Playwright at a phone's size.

The app runs in a thread on a free loopback port with its own temporary database.
Screenshots of each page land in ``tests/screenshots/`` for review.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from scorer import create_app
from scorer.storage import store
from scorer.web import get_db
from tests.seed import INCIDENTAL_REVIEW_POSITIONS, hand_keys, seed_match

PHONE = {"width": 390, "height": 844}
SCREENSHOTS = Path(__file__).resolve().parent.parent / "screenshots"
POLL = 0.02
"""How often a test server's loop looks for shutdown(): werkzeug's default (0.5 s) made each test that
stops its server wait a quarter of a second on average."""
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium(program: str = "chromium-headless-shell") -> str:
    """Debian's Chromium: Playwright's own browser download does not work on these machines. The pages
    are driven in its headless shell (Debian's chromium-headless-shell, the build Playwright itself
    drives headless): the same Blink without the browser's own windows, it spent a quarter of the
    processor time the full browser did on the same tests, and these machines have two cores."""
    found = shutil.which(program)
    if found is None:
        pytest.fail(f"{program} is missing: `make test` installs Debian's package of that name (as root).")
    return found


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict[str, Any]:
    return {"executable_path": chromium(), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args() -> dict[str, Any]:
    """A phone, without the service worker: the tests of what it does (tests/browser/test_offline.py)
    let it in. Elsewhere it cost an eighth of the browser tests' processor time (installing it at each
    new phone, then answering every fetch) and changed nothing they look at; a page it does not yet
    control, a phone's first visit, is what these tests see."""
    return {"viewport": PHONE, "device_scale_factor": 1, "is_mobile": True, "has_touch": True,
            "locale": "en-GB", "service_workers": "block"}


@pytest.fixture(autouse=True)
def no_script_errors(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test's page may not throw: an uncaught script error fails the test, whatever it asserted (a
    refused save once left the counting-cards form without its grid, the page still answering)."""
    if "page" not in request.fixturenames:
        yield
        return
    page = request.getfixturevalue("page")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
    yield
    assert errors == [], "script errors on the page:\n" + "\n".join(errors)


TEST_PACE = 1
"""How often a watching page asks in the browser tests (seconds; the app's is 3): each test that waits
for another phone's change waits a third as long. Tests of the pace itself are marked ``real_pace``."""
TEST_SEND_WAIT = 4
"""How long the service worker waits for an answer to begin in the browser tests (seconds; the app's
is 10): the test of a send that hangs waits less. A local answer begins within a second, even under load."""


def serve(app: Any) -> Iterator[str]:
    """The app on a free loopback port in a thread, for the span of a fixture; yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(POLL,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


@pytest.fixture()
def live_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """The app served on 127.0.0.1 (a free port) from a temporary database; yields its base URL."""
    pace = {} if request.node.get_closest_marker("real_pace") else {"POLL_SECONDS": TEST_PACE,
                                                                   "SEND_WAIT_SECONDS": TEST_SEND_WAIT}
    app = create_app({"DATABASE": str(tmp_path / "browser.sqlite"), "SECRET_KEY": "browser-tests",
                      "REVIEW_POSITIONS": INCIDENTAL_REVIEW_POSITIONS, **pace})
    yield from serve(app)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """The app on a free port with a 12-hand match; yields its base URL and the pages to visit."""
    folder = tmp_path_factory.mktemp("languages")
    app = create_app({"DATABASE": str(folder / "languages.sqlite"), "SECRET_KEY": "browser-languages",
                      "REVIEW_POSITIONS": INCIDENTAL_REVIEW_POSITIONS})
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
    yield from ((base, pages) for base in serve(app))



AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"



@pytest.fixture(scope="session")
def axe_source() -> str:
    if not AXE.exists():
        pytest.fail("axe-core is missing: `make test` installs it (npm install --no-save axe-core@4).")
    return AXE.read_text()


def violations(page: Any, axe_source: str, *, leave_out: tuple[str, ...] = (), only: tuple[str, ...] = ()
               ) -> list[str]:
    """axe-core's findings on the page as it is now, one line each: every rule and impact but the rules
    named in ``leave_out``, or only the rules named in ``only``."""
    if not page.evaluate("() => !!window.axe"):
        page.evaluate(axe_source + "\n;0")  # through DevTools: the page's CSP does not apply
    found = page.evaluate("""async ([leaveOut, only]) => {
        const options = {resultTypes: ['violations']};
        if (only.length) options.runOnly = {type: 'rule', values: only};
        else options.rules = Object.fromEntries(leaveOut.map(id => [id, {enabled: false}]));
        const r = await axe.run(document, options);
        return r.violations.map(v => v.id + ' (' + v.impact + '): ' +
            v.nodes.slice(0, 4).map(n => n.target.join(' ') + (n.failureSummary ? ' — ' +
            n.failureSummary.split('\\n').slice(1, 2).join('') : '')).join(' | '));
    }""", [list(leave_out), list(only)])
    return list(found)


COLOUR_RULES = ("color-contrast", "link-in-text-block")
"""axe-core's rules that read the colours: the only ones a change of colour scheme can change."""


class Taps:
    """Counts the taps a flow takes (clicks and taps on the page; typed characters are not taps)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.count = 0

    def tap(self, selector: str) -> None:
        self.count += 1
        self.page.locator(selector).first.click()


@pytest.fixture()
def taps(page: Any) -> Taps:
    return Taps(page)


@pytest.fixture()
def shot(page: Any) -> Any:
    """Save a full-page screenshot under a name, for people to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)

    def take(name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


def no_overflow(page: Any) -> list[str]:
    """Elements wider than the viewport (nothing may scroll sideways but a .scroll box)."""
    return list(page.evaluate("""() => {
        const limit = document.documentElement.clientWidth;
        const bad = [];
        for (const el of document.querySelectorAll('body *')) {
            if (el.closest('.scroll')) continue;
            const r = el.getBoundingClientRect();
            if (r.right > limit + 1) bad.push(el.tagName + (el.id ? '#' + el.id : '') + '.' + el.className);
        }
        return bad;
    }"""))
