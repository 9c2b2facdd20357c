"""Every page a player sees, in each of the five languages, at a phone's width.

German and Finnish words are long ("Stapelgrößen", "pistekortteja"): nothing may
stick out sideways. One browser page and one match (every record form, a revoke,
an edited and a deleted hand) serve all languages; the test only navigates, and
leaves a screenshot of each page in each language in ``tests/screenshots/``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorer.web import LANGUAGES
from tests.browser.conftest import SCREENSHOTS, no_overflow, violations

pytestmark = pytest.mark.browser

HEADING = {"en": "Start a match", "it": "Inizia una partita", "de": "Partie beginnen", "fi": "Aloita peli",
           "es": "Empezar una partida"}


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


SCHEME = {"it": "dark", "de": "light", "fi": "dark", "es": "light"}
"""The colour scheme each language is seen in here (English is swept in both by test_access)."""


TRANSLATED = [language for language in LANGUAGES if language != "en"]


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_page_fits_a_phone_in_each_language(phone: Any, site: tuple[str, dict[str, str]],
                                                  language: str, axe_source: str) -> None:
    """Every page in each language: its ``lang``, nothing sticking out sideways, a screenshot, in the
    colour scheme that language is seen in (dark for it and fi); and axe-core (every rule, every
    impact) on a quarter of the pages, each page in one of the four languages.

    English is walked by test_access: every page and state, light and dark, overflow, axe-core,
    screenshots. The pages are the same templates in every language, so what axe-core reads of
    their structure is the same; what a language changes is their words, which the quarter shared
    out finds on every page in some language (a label or name left empty, too long, in the wrong
    language) and tests/test_i18n.py checks on every string. Contrast is a matter of the colours,
    not the words: test_access checks it everywhere in both schemes, so it is left out here."""
    base, pages = site
    too_wide: dict[str, list[str]] = {}
    found: dict[str, list[str]] = {}
    phone.emulate_media(color_scheme=SCHEME[language])
    for number, (name, path) in enumerate(pages.items()):
        url = f"{base}{path}{'&' if '?' in path else '?'}lang={language}"
        # live pages ask the server about the tricks as they open: wait for that answer to be shown
        response = phone.goto(url, wait_until="networkidle" if "live" in name else "load")
        assert response is not None
        assert response.status == (404 if name.startswith("error") else 200), (name, response.status)
        assert phone.locator("html").get_attribute("lang") == language, name
        overflow = no_overflow(phone)
        if overflow:
            too_wide[name] = overflow
        if number % len(TRANSLATED) == TRANSLATED.index(language) and (
                v := violations(phone, axe_source, leave_out=("color-contrast",))):
            found[name] = v
        screenshot(phone, f"lang-{language}-{name}")
    phone.emulate_media(color_scheme="light")
    assert too_wide == {}
    assert found == {}, json.dumps(found, indent=1)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_start_page_in_each_language(phone: Any, site: tuple[str, dict[str, str]], language: str) -> None:
    base, _pages = site
    phone.goto(f"{base}/?lang={language}")
    assert phone.locator("a.button.primary").inner_text() == HEADING[language]
    phone.goto(f"{base}/new")  # the choice sticks without ?lang=
    assert phone.locator("h1").inner_text() == HEADING[language]
