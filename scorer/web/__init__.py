"""The Flask app: a thin layer of blueprints over the core and the store.

Templates and static files live at the repository root (``templates/``,
``static/``), next to this package, as the project layout asks.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from pathlib import Path
from typing import Any

import click
from flask import Flask, g, has_request_context, render_template, request
from flask_babel import Babel, format_currency, get_locale
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException

from ..engine.cardnames import aliases
from ..engine.cards import register_aliases
from ..engine.records import fraction_text
from ..storage import db as database

ROOT = Path(__file__).resolve().parent.parent.parent
TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"
"""The catalogues ship inside the package (scorer/translations/<lang>/LC_MESSAGES/messages.mo)."""
LANGUAGES = ("en", "it", "de", "fi", "es")
MAX_UPLOAD_BYTES = 1024 * 1024

csrf = CSRFProtect()
babel = Babel()


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Application factory (``flask --app scorer``)."""
    app = Flask(
        "scorer",
        instance_relative_config=True,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_mapping(
        DATABASE=str(Path(app.instance_path) / "scarto.sqlite"),
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        WTF_CSRF_TIME_LIMIT=None,
        # Over HTTPS Flask-WTF also demands a same-origin Referer, but the pages send
        # Referrer-Policy: no-referrer (the tokens live in URLs): the CSRF token and
        # SameSite cookies protect the forms.
        WTF_CSRF_SSL_STRICT=False,
        BABEL_DEFAULT_LOCALE="en",
        BABEL_TRANSLATION_DIRECTORIES=str(TRANSLATIONS),
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
    )
    app.config.from_prefixed_env("SCARTO")
    if test_config is not None:
        app.config.update(test_config)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path))

    if not app.config.get("SKIP_MIGRATIONS"):
        db = database.connect(app.config["DATABASE"])
        database.migrate(db)
        db.conn.close()

    _register_card_names()
    csrf.init_app(app)
    babel.init_app(app, locale_selector=_locale)
    app.teardown_appcontext(_close_db)
    _register_errors(app)
    _register_commands(app)
    app.after_request(_security_headers)
    app.after_request(_remember_language)
    app.context_processor(lambda: {"current_locale": str(get_locale() or "en")})

    from . import api, audit, hands, history, matches, offline, sheets, transfer

    app.register_blueprint(matches.bp)
    app.register_blueprint(hands.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(sheets.bp)
    app.register_blueprint(audit.bp)
    app.register_blueprint(transfer.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(offline.bp)  # manifest, service worker, the match state tag
    csrf.exempt(api.bp)
    from . import clubs, clubs_api  # issue 14: clubs and their JSON interface

    app.register_blueprint(clubs.bp)
    app.register_blueprint(clubs_api.bp)
    csrf.exempt(clubs_api.bp)
    from . import nights  # issue 15: club nights, their pages and their JSON interface

    app.register_blueprint(nights.bp)
    app.register_blueprint(nights.api_bp)
    csrf.exempt(nights.api_bp)
    app.jinja_env.globals["LANGUAGES"] = LANGUAGES
    app.jinja_env.filters["points"] = fraction_text
    app.jinja_env.filters["money"] = _money
    return app


_card_names_registered = False


def _register_card_names() -> None:
    """Card input in every language on the pages (files stay strict: RECORD.md's aliases only)."""
    global _card_names_registered
    if not _card_names_registered:
        register_aliases(aliases())
        _card_names_registered = True


def _money(amount: Any, currency: str) -> str:
    """Money in the page's locale (1,50 € in Italian, €1.50 in English)."""
    try:
        return str(format_currency(amount, currency))
    except (ValueError, LookupError):
        return f"{amount} {currency}"


def _secret_key(instance: Path) -> str:
    """A key generated once into the instance folder, so sessions survive restarts."""
    path = instance / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        os.chmod(path, 0o600)
    return path.read_text().strip()


def _locale() -> str | None:
    if not has_request_context():  # a sheet made by the command: its language is forced
        return None
    chosen = request.args.get("lang") or request.cookies.get("lang")
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or "en"


def get_db() -> Any:
    """The request's database handle (opened on first use, closed at teardown)."""
    from flask import current_app

    if "db" not in g:
        g.db = database.connect(current_app.config["DATABASE"])
    return g.db


def _close_db(_: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.conn.close()


def _remember_language(response: Any) -> Any:
    """A language chosen with ?lang= sticks for the next pages."""
    chosen = request.args.get("lang")
    if chosen in LANGUAGES and request.cookies.get("lang") != chosen:
        response.set_cookie("lang", chosen, max_age=400 * 24 * 3600, samesite="Lax")
    return response


def _security_headers(response: Any) -> Any:
    headers = response.headers
    headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    )
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("X-Frame-Options", "DENY")
    return response


def _wants_json() -> bool:
    """Programs' addresses (the API, the .json files) get errors as JSON, people get a page."""
    return request.path.startswith("/api/") or request.path.endswith(".json")


def _register_errors(app: Flask) -> None:
    @app.errorhandler(CSRFError)
    def csrf_error(error: CSRFError) -> Any:
        """A form sent without its token (or an expired page): say so, 400."""
        return render_template("error.html", code=400, reason="csrf", description=None), 400

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        """Every HTTP error as a page a player understands; JSON for the API."""
        code = error.code or 500
        if _wants_json():
            return {"error": error.name, "message": error.description}, code
        description = error.description if code == 403 else None
        return render_template("error.html", code=code, reason=None, description=description), code

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Any:
        """Never a traceback to the user: log it, answer 500 with an apology."""
        app.logger.exception("unhandled error")
        if _wants_json():
            return {"error": "Internal Server Error", "message": "Something went wrong on our side."}, 500
        return render_template("error.html", code=500, reason=None, description=None), 500


def _register_commands(app: Flask) -> None:
    @app.cli.command("init-db")
    def init_db() -> None:
        """Create the database in instance/ (or bring its schema up to date)."""
        db = database.connect(app.config["DATABASE"])
        version = database.migrate(db)
        db.conn.close()
        click.echo(f"Database ready at {app.config['DATABASE']} (schema {version}).")

    @app.cli.command("backup")
    @click.argument("path")
    def backup(path: str) -> None:
        """Copy the live database to PATH with SQLite's online backup."""
        db = database.connect(app.config["DATABASE"])
        try:
            database.backup(db, path)
        except (ValueError, sqlite3.Error) as exc:
            raise click.ClickException(f"No backup made: {exc}.") from exc
        finally:
            db.conn.close()
        click.echo(f"Backed up to {path}.")
