"""Shared fixtures: an app on a temporary database, its client and CLI runner."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner

from scorer import create_app
from tests.seed import INCIDENTAL_REVIEW_POSITIONS

FIXTURES = Path(__file__).parent / "fixtures"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests (slow, browser) first, the many quick ones after: a worker that runs dry takes
    quick tests from the other, so the run does not end with one worker finishing a long walk alone
    (longest first; the order within each group is kept, so module fixtures are made once)."""
    items.sort(key=lambda item: 0 if item.get_closest_marker("slow") or item.get_closest_marker("browser") else 1)


@pytest.fixture(scope="session")
def _made_app(tmp_path_factory: pytest.TempPathFactory) -> tuple[Flask, Path]:
    """One app for the session and a database file with every migration applied.

    Building the app (Werkzeug compiles every route) and migrating a database take longer
    than most tests: made once, each test gets a copy of the database and its own config.
    """
    template = tmp_path_factory.mktemp("template") / "test.sqlite"
    app = create_app({
        "TESTING": True,
        "DATABASE": str(template),
        "SECRET_KEY": "test-secret",
        "SERVER_NAME": "scarto.test",
        "REVIEW_POSITIONS": INCIDENTAL_REVIEW_POSITIONS,
    })
    return app, template


@pytest.fixture()
def app(_made_app: tuple[Flask, Path], tmp_path: Path) -> Iterator[Flask]:
    """The app with CSRF on (as in production) and its database in a temporary folder."""
    app, template = _made_app
    database = tmp_path / "test.sqlite"
    shutil.copyfile(template, database)
    config = dict(app.config)
    app.config["DATABASE"] = str(database)
    try:
        yield app
    finally:  # whatever a test changed in the config is put back
        app.config.clear()
        app.config.update(config)


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture()
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()
