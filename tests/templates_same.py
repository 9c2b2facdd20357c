"""Whether the templates still say what they said at a revision: the check for rewrapping them.

    .venv/bin/python -m tests.templates_same [REV] [--no-pages]

Wrapping a template's long lines must not change a byte a phone receives (the pages have byte
budgets, tests/test_page_weight.py) nor a word a translator sees. Two checks, against the
templates of REV (default HEAD, so: the work tree's uncommitted change):

1. Each template compiled by the app's Jinja environment, line numbers left out: the same
   Python code means the same output for every input. Where the code differs, the template's
   text is compared with the whitespace inside HTML tags collapsed (a line break between two
   attributes is the same tag) and the difference is shown.
2. The pages themselves: every page tests/test_page_weight.py's walk reaches (a match, a club,
   a night, audit links), and what that site does not show (hands with a kept review: their audit
   page and sheet, a club player's points given up; seasons ranked by the best N), the PDFs' HTML,
   forms posted empty (their error messages) and a 404, rendered from REV's templates and from the
   work tree's, in turn, from the same database; the kinds of page, and those, in every language.
   Identical, or identical with the whitespace inside tags collapsed (then the bytes it adds are
   shown). No review is made meanwhile: one not kept beforehand is "being made" in both renders.

Exit status 0 when nothing differs but whitespace inside tags.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from flask import Flask
from flask.testing import FlaskClient
from jinja2 import FileSystemLoader, nodes

from scorer import create_app
from scorer.engine.seasons import SeasonRule
from scorer.resources import TEMPLATES
from scorer.storage import clubs, reviews, store
from scorer.web import LANGUAGES, downloads, get_db
from scorer.web import reviews as web_reviews
from tests.test_page_weight import HOST, crawl, seed_site

IN_TAG = re.compile(r"<[A-Za-z/!][^>]*>")
QUOTED = re.compile(r"(\"[^\"]*\"|'[^']*')")
VOLATILE = re.compile(r'(csrf_token"[^>]*? value="|nonce=")[^"]*')  # Flask-WTF signs its token with the time
FORM = re.compile(r'<form[^>]*method="post"[^>]*action="([^"]*)"|<form[^>]*action="([^"]*)"[^>]*method="post"')


def tags_collapsed(text: str) -> str:
    """``text`` with each whitespace run inside a tag (not inside a quoted value) one space:
    what a browser reads of a tag does not depend on them."""
    def tag(m: re.Match[str]) -> str:
        parts = QUOTED.split(m.group(0))
        return "".join(p if i % 2 else re.sub(r"\s+", " ", p) for i, p in enumerate(parts))
    return IN_TAG.sub(tag, text)


def old_templates(revision: str, into: Path) -> Path:
    """The templates folder as it was at ``revision``."""
    archive = subprocess.run(["git", "archive", revision, "templates"], check=True, capture_output=True,
                             cwd=TEMPLATES.parent).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "templates"


def compiled(app: Flask, source: str, name: str) -> str:
    """The template's Python code without line numbers (its line table, the message of an import
    that fails, and the hint of an inline if without else, which renders as nothing)."""
    code = app.jinja_env.compile(source, name, raw=True)
    return re.sub(r"^debug_info = .*$|\(imported on line \d+ |(?<=inline if-expression on line )\d+", "", code,
                  flags=re.M)


def flat_text(app: Flask, source: str) -> str:
    """The template's text as written, each expression or tag a mark, in the order of the file."""
    def walk(node: nodes.Node) -> Iterator[str]:
        if isinstance(node, nodes.TemplateData):
            yield node.data
            return
        if not isinstance(node, (nodes.Template, nodes.Output)):
            yield "\x00"
        for child in node.iter_child_nodes():
            yield from walk(child)
    return "".join(walk(app.jinja_env.parse(source)))


def compare_templates(app: Flask, old: Path) -> list[str]:
    """Step 1: every template's compiled code, REV's against the work tree's."""
    problems = []
    for path in sorted(TEMPLATES.glob("*.html")):
        before = old / path.name
        if not before.exists():
            continue
        a, b = before.read_text(), path.read_text()
        if a == b:
            continue
        if compiled(app, a, path.name) == compiled(app, b, path.name):
            print(f"same code       {path.name}")
            continue
        flat_a, flat_b = tags_collapsed(flat_text(app, a)), tags_collapsed(flat_text(app, b))
        if flat_a == flat_b:
            print(f"same but tags   {path.name} (whitespace inside tags: {len(b) - len(a):+d} bytes of source)")
        else:
            at = next(i for i, (x, y) in enumerate(zip(flat_a, flat_b, strict=False)) if x != y) \
                if any(x != y for x, y in zip(flat_a, flat_b, strict=False)) else min(len(flat_a), len(flat_b))
            problems.append(f"{path.name}: text differs at {flat_a[at - 60:at + 60]!r}\n"
                            f"{' ' * len(path.name)}                 now {flat_b[at - 60:at + 60]!r}")
    return problems


class Pages:
    """One app whose templates are switched between REV's and the work tree's for each request."""

    def __init__(self, app: Flask, old: Path) -> None:
        self.app, self.client = app, app.test_client()
        self.loaders = {"old": FileSystemLoader(str(old)), "new": FileSystemLoader(str(TEMPLATES))}
        self.pdf_html: list[str] = []
        vars(downloads)["html_to_pdf"] = self._pdf  # the PDF's HTML kept, no PDF made
        vars(web_reviews)["reviewer"] = lambda: _Unasked()  # no review made between two renders
        self.compared = self.spaced = 0
        self.problems: list[str] = []

    def _pdf(self, html: str, folder: str, resources: Mapping[str, bytes] | None = None) -> bytes:
        self.pdf_html.append(html)
        return b"%PDF-1.7\n"

    def _with(self, which: str, ask: Callable[[FlaskClient], tuple[int, str]]) -> tuple[int, str]:
        self.app.jinja_env.loader = self.loaders[which]
        self.app.jinja_env.cache.clear()  # type: ignore[union-attr]
        self.pdf_html.clear()
        status, text = ask(self.client)
        return status, VOLATILE.sub(r"\1…", text + "".join(self.pdf_html))

    def compare(self, label: str, ask: Callable[[FlaskClient], tuple[int, str]]) -> str:
        """The answer rendered from both sets of templates, compared; the new one's text."""
        (s1, a), (s2, b) = self._with("old", ask), self._with("new", ask)
        self.compared += 1
        if (s1, a) == (s2, b):
            return b
        if s1 == s2 and tags_collapsed(a) == tags_collapsed(b):
            self.spaced += 1
            print(f"same but tags   {label} ({len(b.encode()) - len(a.encode()):+d} bytes)")
            return b
        diff = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        self.problems.append(f"{label} ({s1} / {s2}): {a[diff - 80:diff + 80]!r}\n   now {b[diff - 80:diff + 80]!r}")
        return b


class _Unasked:
    """A reviewer that makes nothing: a hand whose review was not kept beforehand is "being made"."""

    def ask(self, key: object, work: Callable[[], None]) -> bool:
        return True


def seed_more(app: Flask, starts: list[str]) -> list[str]:
    """What the seed site does not show, added to it: kept reviews of some of its match's hands (one past
    its limits), so their audit pages and sheets show the review and the club's players the points they
    gave up; seasons ranked by each player's best matches or nights. The pages that show them."""
    edit = next(m.group(1) for url in starts if (m := re.fullmatch(r"/m/([^/]+)/", url)))
    club_token = next(m.group(1) for url in starts if (m := re.fullmatch(r"/c/([^/]+)/", url)))
    reviews.REVIEW_TRICKS["three"] = 4  # the last 4 tricks: a second of search each (tests/test_web_audit.py)
    more = []
    with app.app_context():
        db = get_db()
        row, _can_edit = store.find_match(db, edit)
        full = [h for h in store.list_hands(db, row.id) if reviews.reviewable(h.parsed)]
        for n, hand in enumerate(full[:4]):
            first = reviews.first_trick(hand.parsed)
            made = reviews.make_review(hand.parsed, first, 60, int(app.config["REVIEW_POSITIONS"])) if n < 3 \
                else {"problem": "too_large"}
            assert "problem" not in made or n == 3, made
            reviews.keep_review(db, hand.id, hand.version, first, made)
            more.append(f"/m/{edit}/hands/{hand.key}/audit")
        club, _can_edit = clubs.find_club(db, club_token)
        for name, rule in [("Coppa", SeasonRule("matches", 2)), ("Serate", SeasonRule("nights", 1)),
                           ("Giovedì", SeasonRule("nights", 2))]:
            season = clubs.add_season(db, club.id, name, "2026-01-01", "2026-12-31", rule)
            table = f"/c/{club_token}/table?season={season.id}"
            more += [table, f"{table}&sort=per_hand"]
        more += [f"/c/{club_token}/p/{player.id}" for player in clubs.roster(db, club.id)]
    return more


def get(url: str) -> Callable[[FlaskClient], tuple[int, str]]:
    def ask(client: FlaskClient) -> tuple[int, str]:
        with client.get(url) as response:
            return response.status_code, response.get_data(as_text=True) if response.mimetype != "application/pdf" \
                else ""
    return ask


def post(url: str, token: str) -> Callable[[FlaskClient], tuple[int, str]]:
    def ask(client: FlaskClient) -> tuple[int, str]:
        with client.post(url, data={"csrf_token": token}) as response:
            return response.status_code, response.get_data(as_text=True) if response.status_code == 200 else ""
    return ask


def compare_pages(pages: Pages) -> None:
    """Step 2: every page of the walk, its PDFs, its forms posted empty, in every language."""
    app = pages.app
    starts = seed_site(app)
    more = seed_more(app, starts)
    urls = [w.url for w in crawl(app, app.test_client(), starts + more, [])]
    kinds: dict[str, str] = {}
    pdfs, forms = set(), set()
    for url in urls:
        html = pages.compare(url, get(url))
        kinds.setdefault(app.url_map.bind(HOST).match(urlsplit(url).path)[0], url)
        pdfs |= {urljoin(url, h) for h in re.findall(r'href="([^"]+\.pdf[^"]*)"', html)}
        token = re.search(r'csrf_token"[^>]*? value="([^"]*)"', html)
        if token:
            forms |= {(urljoin(url, (m.group(1) or m.group(2)).replace("&amp;", "&")), token.group(1))
                      for m in FORM.finditer(html)}
    for url in sorted(pdfs):
        pages.compare(url, get(url))
    for url, csrf in sorted(forms):
        pages.compare(f"POST {url}", post(url, csrf))
    for url in [*kinds.values(), *more, "/m/nothing-here/", "/c/nothing-here/"]:
        for language in LANGUAGES:
            pages.compare(f"{url} ({language})", get(f"{url}{'&' if '?' in url else '?'}lang={language}"))


def main(argv: list[str]) -> int:
    revision = next((a for a in argv if not a.startswith("-")), "HEAD")
    with tempfile.TemporaryDirectory() as folder:
        old = old_templates(revision, Path(folder))
        app = create_app({"TESTING": True, "DATABASE": f"{folder}/same.sqlite", "SECRET_KEY": "same",
                          "SERVER_NAME": HOST, "KEPT_PAGE_BYTES": 0, "PDF_RENDERS": 0})
        problems = compare_templates(app, old)
        if "--no-pages" not in argv:
            pages = Pages(app, old)
            compare_pages(pages)
            print(f"{pages.compared} answers compared, {pages.spaced} differ only inside tags")
            problems += pages.problems
    print("\n".join(problems) or f"Nothing differs from {revision} but whitespace inside tags.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
