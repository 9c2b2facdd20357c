"""PDF sheets, tested by their properties: media type, header, text read back, page count."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from scorer.engine.numbers import fraction_text
from scorer.engine.records import parse_match
from scorer.engine.standings import standings
from scorer.sheets.render import match_sheet_pdf
from tests.matchutil import points_match

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="make test installs poppler-utils")


def pdf_text(pdf: bytes) -> str:
    run = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True)
    return run.stdout.decode()


def page_count(pdf: bytes) -> int:
    info = subprocess.run(["pdfinfo", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))


def test_three_hand_sheet_is_one_page_with_everything(tmp_path: Path) -> None:
    data = points_match(3)
    pdf = match_sheet_pdf(parse_match(data))
    assert pdf.startswith(b"%PDF")
    assert page_count(pdf) == 1
    text = pdf_text(pdf)
    for expected in ("Club night", "Circolo Arci, Pinerolo", "Nov 30, 2026", "Anna", "Bruno", "Carla", "classic",
                     "Who pays whom"):
        assert expected in text
    table = standings(parse_match(data))
    for line in table.lines:
        for score in line.scores.values():
            assert fraction_text(score) in text
    for total in table.totals:
        assert fraction_text(total) in text
    for transfer in table.settlement:
        assert f"{transfer.payer} pays {transfer.payee}" in text
        assert f"€{transfer.amount}" in text


def test_thirty_hand_sheet_still_fits_one_page() -> None:
    pdf = match_sheet_pdf(parse_match(points_match(30)))
    assert page_count(pdf) == 1
    assert "Final standings" in pdf_text(pdf)


def test_long_match_runs_over_pages_with_repeated_headers() -> None:
    pdf = match_sheet_pdf(parse_match(points_match(90)))
    pages = page_count(pdf)
    assert pages >= 2
    numbers_seen = []
    for page in range(1, pages + 1):
        text = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), "-layout", "-", "-"], input=pdf,
                              capture_output=True, check=True).stdout.decode()
        if page <= 2:  # the ledger's heading repeats at the top of every page it runs onto
            assert "pts" in text and "total" in text
            assert all(name in text.split("\n", 4)[0] + text for name in ("Anna", "Bruno", "Carla"))
        numbers_seen += [int(line.split()[0]) for line in text.splitlines()
                         if line.split() and line.split()[0].isdigit() and len(line.split()) > 5]
    assert numbers_seen[:90] == list(range(1, 91))  # every row whole, once, in order


def test_command_writes_the_sheet(tmp_path: Path) -> None:
    source = tmp_path / "match.json"
    source.write_text(json.dumps(points_match(4)))
    out = tmp_path / "sheet.pdf"
    run = subprocess.run([sys.executable, "-m", "scorer", "pdf", str(source), "-o", str(out)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert out.read_bytes().startswith(b"%PDF")
    assert "Bruno" in pdf_text(out.read_bytes())


def test_command_refuses_a_bad_file(tmp_path: Path) -> None:
    source = tmp_path / "match.json"
    source.write_text("{not json")
    run = subprocess.run([sys.executable, "-m", "scorer", "pdf", str(source), "-o", str(tmp_path / "x.pdf")],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 2
    assert "not JSON" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "x.pdf").exists()


def test_sheet_pdf_route(client: FlaskClient) -> None:
    created = client.post("/api/matches", json=points_match(5, title="Circolo night"))
    token = created.json["edit_url"].rstrip("/").split("/m/")[1]
    response = client.get(f"/m/{token}/sheet.pdf")
    assert response.status_code == 200
    assert response.mimetype == "application/pdf"
    assert 'filename="circolo-night-2026-11-30.pdf"' in response.headers["Content-Disposition"]
    text = pdf_text(response.data)
    assert "Circolo night" in text and "Final standings" in text


def test_weasyprint_is_not_imported_by_the_app() -> None:
    code = ("import sys; from scorer import create_app; "
            "create_app({'DATABASE': ':memory:', 'SKIP_MIGRATIONS': True, 'SECRET_KEY': 'x'}); "
            "print('weasyprint' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"


def test_the_command_makes_a_sheet_without_flask(tmp_path: Path) -> None:
    """``scarto pdf`` renders the shared template through plain Jinja: no Flask, no app."""
    source = tmp_path / "match.json"
    source.write_text(json.dumps(points_match(3)))
    out = tmp_path / "sheet.pdf"
    code = ("import sys; from scorer.cli import main; "
            f"status = main(['pdf', {str(source)!r}, '-o', {str(out)!r}]); "
            "print(status, 'flask' in sys.modules, 'scorer.web' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert run.stdout.split() == ["0", "False", "False"]
    assert "Final standings" in pdf_text(out.read_bytes())


@pytest.mark.parametrize("language", ["it", "en", "de"])
def test_the_web_and_the_command_print_the_same_sheet(client: FlaskClient, language: str) -> None:
    """The same match through Flask (the route) and through the command's renderer: the same text."""
    breach = json.loads((Path(__file__).parent / "fixtures" / "hands" / "classic-breach.json").read_text())
    hand = {k: v for k, v in breach.items() if k not in ("format", "players", "ruleset")}
    data = {"format": "scarto-match/1", "title": "Giovedì al circolo", "language": language, "pack": "french",
            "date": "2024-05-01", "place": "Torino", "players": breach["players"], "first_dealer": "Bruno",
            "ruleset": "classic", "stake": {"per_point": "0.10", "currency": "EUR"},
            "hands": [hand, *points_match(4)["hands"]]}
    created = client.post("/api/matches", json=data)
    assert created.status_code == 201, created.json
    token = created.json["edit_url"].rstrip("/").split("/m/")[1]
    web = pdf_text(client.get(f"/m/{token}/sheet.pdf").data)
    command = pdf_text(match_sheet_pdf(parse_match(data)))
    assert web == command
    assert "Torino" in web and "€" in web


def test_italian_sheet_uses_italian_card_names() -> None:
    """The match's language prints the sheet: the revoke is told with the pack's Italian names."""
    breach = json.loads((Path(__file__).parent / "fixtures" / "hands" / "classic-breach.json").read_text())
    hand = {k: v for k, v in breach.items() if k not in ("format", "players", "ruleset")}
    data = {"format": "scarto-match/1", "title": "Giovedì al circolo", "language": "it", "pack": "italian",
            "players": breach["players"], "first_dealer": "Bruno", "ruleset": "classic", "hands": [hand]}
    text = pdf_text(match_sheet_pdf(parse_match(data)))
    assert "Giovedì al circolo" in text
    flat = " ".join(text.split())
    assert "Cavallo di Bastoni" in flat and "il Bagatto (I)" in flat
    assert "Who pays whom" not in text and "Chi paga chi" in flat and "il mazziere della mano" in flat
    assert "punti" in text and "punteggio" in text and "totale" in text  # the ledger's column headings


def test_ledger_lines_read_back_in_columns() -> None:
    """Each hand is one line: number, then per player the dealer's mark, points, score and total."""
    data = points_match(3)
    table = standings(parse_match(data))
    text = pdf_text(match_sheet_pdf(parse_match(data)))
    for line in table.lines:
        row = next(r for r in text.splitlines() if r.split()[:1] == [str(line.number)] and "│" in r)
        cells = [c.split() for c in row.split("│")[1:]]
        for seat, player in enumerate(table.players):
            points, score, total = cells[seat]
            count = line.result.counts[seat]
            assert points == ("•" if player == line.dealer else "") + fraction_text(count.card_points)
            assert score.lstrip("+") == fraction_text(count.score)
            assert total == fraction_text(line.totals[seat])


def test_sheet_reads_only_its_own_files(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A sheet's renderer fetches from its folder and its own chart, nothing else, however the URL is written."""
    from scorer.sheets.pdf import html_to_pdf

    folder = tmp_path / "static"
    folder.mkdir()
    shutil.copy(Path(__file__).resolve().parent.parent / "static" / "pdf.css", folder)

    def svg(text: str) -> bytes:
        return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 20"><text y="15">{text}</text></svg>'.encode()

    (folder / "inside.svg").write_bytes(svg("INSIDE7"))
    (tmp_path / "outside.svg").write_bytes(svg("LEAK42"))
    (folder / "link.svg").symlink_to(tmp_path / "outside.svg")
    outside = ["../outside.svg", "%2e%2e/outside.svg", "link.svg", (tmp_path / "outside.svg").as_uri(),
               "http://127.0.0.1:9/outside.svg"]
    html = "<p>Scarto</p>" + "".join(f'<img src="{src}">' for src in ["chart.svg", "inside.svg", *outside])
    with caplog.at_level("WARNING", logger="weasyprint"):
        text = pdf_text(html_to_pdf(html, str(folder), {"chart.svg": svg("CHART3")}))
    assert "CHART3" in text and "INSIDE7" in text  # its chart from memory, its own file from the folder
    assert "LEAK42" not in text
    refusals = [r.getMessage() for r in caplog.records if "a sheet reads only its own files" in r.getMessage()]
    assert len(refusals) == len(outside) - 1  # "../outside.svg" and its file: URL are one URL, fetched once


def test_each_thread_keeps_its_own_fonts_and_stylesheet(tmp_path: Path) -> None:
    """Kept between PDFs (they are slow to make), per thread (Pango's font maps are not shared), re-read on change."""
    import threading

    from scorer.sheets.pdf import _renderer, html_to_pdf

    stylesheet = tmp_path / "sheet.css"
    stylesheet.write_text("p { color: #123456; }")
    first = _renderer(stylesheet)
    assert _renderer(stylesheet) == first
    stylesheet.write_text("p { color: #654321; }")
    os.utime(stylesheet, ns=(stylesheet.stat().st_atime_ns, stylesheet.stat().st_mtime_ns + 10**9))
    assert _renderer(stylesheet)[1] is not first[1]

    seen: dict[str, object] = {}
    texts: dict[str, str] = {}

    def render(name: str) -> None:
        seen[name] = _renderer(stylesheet)[0]
        texts[name] = pdf_text(html_to_pdf(f"<p>{name}</p>", str(tmp_path), stylesheet="sheet.css"))

    threads = [threading.Thread(target=render, args=(name,)) for name in ("Uno", "Due", "Tre")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(fonts) for fonts in seen.values()}) == 3
    assert all(name in texts[name] for name in ("Uno", "Due", "Tre"))


def test_a_ledger_spared_the_repeated_heading_fits_its_first_page() -> None:
    """Up to FIRST_PAGE_LINES lines the heading is not repeated: all of them must then be on page 1."""
    from scorer.sheets.pdf import FIRST_PAGE_LINES

    pdf = match_sheet_pdf(parse_match(points_match(FIRST_PAGE_LINES)))
    first = subprocess.run(["pdftotext", "-f", "1", "-l", "1", "-layout", "-", "-"], input=pdf,
                           capture_output=True, check=True).stdout.decode()
    numbers = [int(line.split()[0]) for line in first.splitlines() if line.split()[:1] != [] and "│" in line
               and line.split()[0].isdigit()]
    assert numbers == list(range(1, FIRST_PAGE_LINES + 1))


def test_the_legend_explains_uncounted_and_struck_hands() -> None:
    data = points_match(5)
    data["end"] = {"hands": 4}
    data["hands"][1]["points"] = {"Anna": 10, "Bruno": 10, "Carla": 10}  # adds up to 30: cannot be counted
    text = pdf_text(match_sheet_pdf(parse_match(data)))
    row = next(r for r in text.splitlines() if r.split()[:1] == ["2*"])
    assert row.count("–") == 6  # no points and no score for any of the three
    assert "– the hand could not be counted: see its problems" in text
    assert "Struck through: recorded after the end of the match, not counted" in text
    plain = pdf_text(match_sheet_pdf(parse_match(points_match(5))))
    assert "could not be counted" not in plain and "Struck through" not in plain


@pytest.mark.parametrize(("lang", "deal", "ultimo"), [
    ("en", "four players: 19 cards each, a 2-card talon", "the Bagatto or the Fool taken in the last trick"),
    ("it", "quattro giocatori: 19 carte a testa, un monte di 2 carte", "il Bagatto o il Matto preso nell'ultima presa"),
    ("de", "vier Spieler: je 19 Karten, ein Talon von 2 Karten", "der Bagatto oder der Narr im letzten Stich genommen"),
    ("fi", "neljä pelaajaa: 19 korttia kullekin, 2 kortin lisäpakka", "Bagatto tai narri otettu viimeisessä tikissä"),
    ("es", "cuatro jugadores: 19 cartas cada uno, un talón de 2 cartas",
     "el Bagatto o el Loco ganado en la última baza"),
])
def test_the_sheet_shows_the_deal_and_the_ultimo_choice(lang: str, deal: str, ultimo: str) -> None:
    """The sheet names the deal and the Ultimo choice in the match's language."""
    players = ("Anna", "Bruno", "Carla", "Dario")
    data = {"format": "scarto-match/1", "title": "Quattro", "language": lang, "players": list(players),
            "first_dealer": "Anna", "ruleset": {"preset": "classic", "deal": "four", "ultimo": "bagatto_or_fool"},
            "hands": [{"dealer": "Anna", "points": {"Anna": 30, "Bruno": 20, "Carla": 18, "Dario": 10},
                       "ultimo": "Bruno"}]}
    flat = " ".join(pdf_text(match_sheet_pdf(parse_match(data))).split())
    assert deal in flat and ultimo in flat
