"""Shared fixtures: an app on a temporary database, its client and CLI runner."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner

from scorer import create_app

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture()
def app(tmp_path: Path) -> Iterator[Flask]:
    """The app with CSRF on (as in production) and its database in a temporary folder."""
    app = create_app({
        "TESTING": True,
        "DATABASE": str(tmp_path / "test.sqlite"),
        "SECRET_KEY": "test-secret",
        "SERVER_NAME": "scarto.test",
    })
    yield app


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture()
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()
