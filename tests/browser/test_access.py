"""Everyone at the table: axe-core finds nothing on any page or state, light and dark.

axe-core comes from the npm registry into the git-ignored node_modules (``make test`` installs it); it
is run in the page through Playwright, every rule of every impact. English goes through every page
and every state the flows reach (a card grid with all three piles, the pile check, errors shown, the
live entry mid-trick, the audit with a what-if) in both colour schemes, and leaves a screenshot of
each, nothing sticking out sideways; test_languages does the same on every page in the other
languages (two of them dark). Also here: no sideways scrolling at 320 px on the card grid, every tap
target at least 44 x 44 px.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.browser.conftest import COLOUR_RULES, SCREENSHOTS, no_overflow, violations

pytestmark = pytest.mark.browser

SCHEMES = ("light", "dark")

def small_targets(page: Any) -> list[str]:
    """Visible controls smaller than 44 x 44 px; links inside a sentence are exempt (WCAG 2.5.8)."""
    return list(page.evaluate("""() => {
        const bad = [];
        const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex="0"]';
        for (const el of document.querySelectorAll(sel)) {
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
            if (el.tagName === 'A' && el.closest('p, li, td, small, .muted')) continue;
            let box = r;
            if (el.tagName === 'INPUT' && (el.type === 'radio' || el.type === 'checkbox')) {
                const label = el.closest('label');  // the label is the target
                if (label) box = label.getBoundingClientRect();
            }
            if (box.width < 43.5 || box.height < 43.5)
                bad.push(el.tagName + (el.id ? '#' + el.id : '') + ' ' +
                         Math.round(box.width) + 'x' + Math.round(box.height));
        }
        return bad;
    }"""))


def state_steps(base: str, pages: dict[str, str]) -> dict[str, Callable[[Any], None]]:
    """The states the flows reach beyond a page as it opens: what to do on it to get there."""

    def forget_entries(page: Any) -> None:
        """The entry pages keep what was tapped on this phone: a state starts from an empty form."""
        page.evaluate("() => localStorage.clear()")

    def cards_three_piles(page: Any) -> None:
        forget_entries(page)
        page.goto(base + pages["entry-cards"])
        page.locator("#pick-0").click()
        for code in ("KC", "QC", "T1"):
            page.locator(f'#grid [data-card="{code}"]').click()
        page.locator("#pick-1").click()
        for code in ("KD", "T21"):
            page.locator(f'#grid [data-card="{code}"]').click()
        page.locator("#pick-2").click()
        page.locator('#grid [data-card="M"]').click()  # and the rest goes to Carla too

    def pile_check(page: Any) -> None:
        cards_three_piles(page)
        page.locator("#save").click()
        page.locator("#pile-check").wait_for()
        assert page.locator("#pile-check li").all_inner_texts() == ["Anna: 3", "Bruno: 2", "Carla: 73"]

    def points_refused(page: Any) -> None:
        page.goto(base + pages["entry-points"])
        for field, value in (("#points_0", "31"), ("#points_1", "22")):
            page.locator(field).fill(value)
        page.locator("#points_2").fill("24")
        page.locator("#save").click()
        page.locator("#outcome").wait_for()

    def new_match_refused(page: Any) -> None:
        page.goto(base + pages["new-match"])
        page.locator("form button[type=submit]").last.click()
        page.locator(".problem").first.wait_for()

    def live_mid_trick(page: Any) -> None:
        forget_entries(page)
        page.goto(base + pages["entry-live"], wait_until="networkidle")
        page.locator("#grid button[aria-disabled=false]").first.click()
        page.locator("#grid button[aria-disabled=false]").nth(5).click()
        page.wait_for_load_state("networkidle")

    def live_breach(page: Any) -> None:
        page.goto(base + pages["edit-live-revoke"], wait_until="networkidle")
        page.locator("#problems li").first.wait_for()

    return {"state-cards-three-piles": cards_three_piles, "state-pile-check": pile_check,
            "state-points-refused": points_refused, "state-new-match-refused": new_match_refused,
            "state-live-mid-trick": live_mid_trick, "state-live-breach": live_breach}


@pytest.fixture(scope="module")
def phone(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """One page kept for the whole sweep; its colour scheme is switched at each state."""
    context = browser.new_context(**browser_context_args)
    yield context.new_page()
    context.close()


def _visit(page: Any, base: str, path: str, language: str) -> None:
    url = f"{base}{path}{'&' if '?' in path else '?'}lang={language}"
    page.goto(url, wait_until="networkidle" if "/live" in path or "new/live" in path else "load")


@pytest.mark.slow
def test_every_page_and_state_in_english_has_no_axe_violation_light_or_dark(phone: Any, site: Any,
                                                                          axe_source: str) -> None:
    """Each page and state is reached once and looked at in both schemes (the stylesheet answers
    ``prefers-color-scheme`` at once), so a state costs its clicks once."""
    base, pages = site
    SCREENSHOTS.mkdir(exist_ok=True)
    found: dict[str, list[str]] = {}
    small: dict[str, list[str]] = {}
    too_wide: dict[str, list[str]] = {}

    def look(name: str) -> None:
        if s := small_targets(phone):  # sizes and widths do not depend on the colours
            small[name] = s
        if w := no_overflow(phone):
            too_wide[name] = w
        for scheme in SCHEMES:  # every rule in the first; the rules that read colours in the other
            phone.emulate_media(color_scheme=scheme)
            if v := violations(phone, axe_source, only=() if scheme == SCHEMES[0] else COLOUR_RULES):
                found[f"{scheme}-{name}"] = v
            phone.screenshot(path=str(SCREENSHOTS / f"{scheme}-{name}.png"), full_page=True)
        phone.emulate_media(color_scheme="light")

    _visit(phone, base, "/", "en")  # the language sticks for the states below
    for name, path in pages.items():
        _visit(phone, base, path, "en")
        look(name)
    for name, step in state_steps(base, pages).items():
        step(phone)
        look(name)
    assert found == {}, json.dumps(found, indent=1)
    assert small == {}, json.dumps(small, indent=1)
    assert too_wide == {}, json.dumps(too_wide, indent=1)


def test_the_card_grid_fits_320_px_without_sideways_scrolling(browser: Any, browser_context_args: dict[str, Any],
                                                              site: Any) -> None:
    base, pages = site
    context = browser.new_context(**{**browser_context_args, "viewport": {"width": 320, "height": 640}})
    page = context.new_page()
    try:
        for name in ("entry-cards", "entry-honours", "entry-live", "match", "audit-what-if"):
            for language in ("en", "de", "fi"):
                _visit(page, base, pages[name], language)
                page.screenshot(path=str(SCREENSHOTS / f"320px-{language}-{name}.png"), full_page=True)
                assert page.evaluate("document.documentElement.scrollWidth") <= 320, (name, language)
                assert no_overflow(page) == [], (name, language)
                assert small_targets(page) == [], (name, language)
    finally:
        context.close()


FACES_OUTSIDE = """() => [...document.querySelectorAll('#grid button')].filter(button => {
    const r = button.getBoundingClientRect(), edge = parseFloat(getComputedStyle(button).borderLeftWidth);
    return [...button.querySelectorAll('*')].some(e => { const x = e.getBoundingClientRect();
        return x.width && (x.left < r.left + edge - .5 || x.right > r.right - edge + .5); });
}).map(button => button.dataset.card)"""
"""The cards of the grid whose drawn face reaches into (or past) the button's border."""

LEGENDS_ON_BORDER = """() => [...document.querySelectorAll('fieldset > legend')].filter(legend => {
    const fieldset = legend.parentElement, box = fieldset.getBoundingClientRect();
    const line = parseFloat(getComputedStyle(fieldset).borderTopWidth);
    return legend.getClientRects().length && legend.getBoundingClientRect().top < box.top + line;
}).map(legend => legend.textContent.trim())"""
"""The legends not inside their box: a fieldset's legend sits on its top border by default, and one of two
lines had the border running through its second line."""


@pytest.mark.parametrize("width", [320, 390, 1024])
def test_card_faces_and_legends_stay_inside_their_boxes(browser: Any, browser_context_args: dict[str, Any],
                                                        site: Any, width: int) -> None:
    """XVIII, the longest numeral, overflowed its button; 10 and its mark did in a desktop's 14 columns."""
    base, pages = site
    context = browser.new_context(**{**browser_context_args, "viewport": {"width": width, "height": 800}})
    page = context.new_page()
    try:
        for language in ("it", "de", "fi"):
            for name in ("entry-cards", "entry-live", "entry-points", "new-match"):
                _visit(page, base, pages[name], language)
                assert page.evaluate(FACES_OUTSIDE) == [], (name, language)
                assert page.evaluate(LEGENDS_ON_BORDER) == [], (name, language)
    finally:
        context.close()


def test_the_content_is_one_tab_stop_away(page: Any, site: Any) -> None:
    """The first Tab shows a skip link (in sight), which takes the next Tab into the page's content; without
    it, the header holds at most six stops (the page's own language is no link)."""
    base, pages = site
    for name in ("match", "new-match"):
        _visit(page, base, pages[name], "it")
        page.keyboard.press("Tab")
        skip = page.locator(":focus")
        assert skip.get_attribute("href") == "#content" and skip.inner_text() == "Vai al contenuto"
        box = skip.bounding_box()
        assert box["y"] >= 0 and box["height"] >= 44, box
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        assert page.evaluate("!!document.activeElement.closest('main')"), name
        _visit(page, base, pages[name], "it")
        stops = []
        while not page.evaluate("!!document.activeElement.closest('main')"):
            page.keyboard.press("Tab")
            stops.append(page.evaluate("document.activeElement.outerHTML.slice(0, 60)"))
        assert len(stops) - 2 <= 6, stops  # the skip link, the header's stops, the content's first
