"""The wheel runs the app anywhere: built with ``pip wheel .``, installed into a fresh virtual
environment outside the checkout, ``scarto serve`` answers pages, saves a hand and prints the sheet.

No network: the wheel is built without isolation (``make install`` puts setuptools in .venv) and
installed with ``--no-deps``; the fresh environment sees this one's dependencies through a
``.pth`` line (but not this checkout, which is installed here in editable mode).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer.web import TRANSLATED
from tests.matchutil import points_match
from tests.serverutil import Client, csrf_token, free_port, hidden

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                    "--wheel-dir", str(out), str(ROOT)], check=True, capture_output=True, cwd=out)
    (built,) = out.glob("scarto_scorer-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with the wheel installed and this environment's dependencies visible."""
    home = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)], check=True)
    python = home / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    (Path(purelib) / "deps-of-the-checkout.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                    "--quiet", str(wheel)], check=True, capture_output=True)
    return home


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "SCARTO", "FLASK"))} | {
        "HOME": os.environ.get("HOME", "/tmp")}


def test_the_wheel_carries_templates_static_files_and_catalogues(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"scorer/templates/base.html", "scorer/templates/pdf_match.html", "scorer/static/app.css",
            "scorer/static/live.js", "scorer/static/pdf.css"} <= names
    for language in TRANSLATED:
        assert f"scorer/translations/{language}/LC_MESSAGES/messages.mo" in names


def test_the_installed_package_is_the_wheel_not_the_checkout(venv: Path, tmp_path: Path) -> None:
    run = subprocess.run([str(venv / "bin" / "python"), "-c", "import scorer, scorer.resources as r; "
                          "print(scorer.__file__); print(r.TEMPLATES); print(r.STATIC)"],
                         check=True, capture_output=True, text=True, cwd=tmp_path, env=clean_env())
    for line in run.stdout.split():
        assert Path(line).is_relative_to(venv), line


@pytest.fixture
def served(venv: Path, tmp_path: Path) -> Iterator[tuple[Client, Path]]:
    port = free_port()
    elsewhere = tmp_path / "anywhere"
    elsewhere.mkdir()
    instance = tmp_path / "data"
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen([str(venv / "bin" / "scarto"), "serve", "--port", str(port), "--instance",
                                str(instance)], cwd=elsewhere, env=clean_env(), stdout=log, stderr=subprocess.STDOUT)
    client = Client(port)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if client.get("/").status == 200:
                    break
            except ConnectionError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError((tmp_path / "serve.log").read_text())
            time.sleep(0.2)
        yield client, instance
    finally:
        client.close()
        process.terminate()
        process.wait(timeout=10)
        log.close()


def test_scarto_serve_from_the_wheel_saves_a_hand_and_prints_the_sheet(served: tuple[Client, Path]) -> None:
    client, instance = served
    home = client.get("/")
    assert home.status == 200 and 'href="/static/app.css' in home.text
    assert client.get("/static/app.css").status == 200
    created = client.post_json("/api/matches", points_match(2, title="Packaged"))
    assert created.status == 201, created.text
    token = created.json()["edit_url"].rstrip("/").split("/m/")[1]
    form = client.get(f"/m/{token}/hands/new/points")
    assert form.status == 200
    fields = {"csrf_token": csrf_token(form.text) or "", "expected_count": hidden(form.text, "expected_count") or "",
              "dealer": "Carla", "points_0": "31", "points_1": "22", "points_2": "", "rest": "2"}
    saved = client.post_form(f"/m/{token}/hands/new/points", fields)
    assert saved.status == 302, saved.text
    page = client.get(f"/m/{token}/")
    assert page.status == 200 and "Hand 3 saved" in page.text
    sheet = client.get(f"/m/{token}/sheet.pdf")
    assert sheet.status == 200 and sheet.body.startswith(b"%PDF")
    text = subprocess.run(["pdftotext", "-", "-"], input=sheet.body, capture_output=True, check=True).stdout
    assert b"Packaged" in text and re.search(rb"Standings after 3 hands|Final standings", text)
    assert (instance / "scarto.sqlite").exists() and (instance / "secret_key").exists()
