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

PHONE = {"width": 390, "height": 844}
SCREENSHOTS = Path(__file__).resolve().parent.parent / "screenshots"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict[str, Any]:
    """Debian's Chromium: Playwright's own browser download does not work on these machines."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("Chromium is missing: `make test` installs Debian's chromium package (as root).")
    return {"executable_path": chromium, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args() -> dict[str, Any]:
    return {"viewport": PHONE, "device_scale_factor": 1, "is_mobile": True, "has_touch": True,
            "locale": "en-GB"}


@pytest.fixture()
def live_server(tmp_path: Path) -> Iterator[str]:
    """The app served on 127.0.0.1 (a free port) from a temporary database; yields its base URL."""
    app = create_app({"DATABASE": str(tmp_path / "browser.sqlite"), "SECRET_KEY": "browser-tests"})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


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
