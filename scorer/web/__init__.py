"""The Flask app factory: configuration, extensions, error pages, commands, the blueprints.

Only the factory lives here. The blueprints hold routes and import none of this module, nor
one another; what two of them need lives in a module of its own concern, as flaskr keeps
``get_db`` in ``db.py``: :mod:`.db` (the request's database, saves in turn), :mod:`.tokens`
(what a link's token opens: :func:`~.tokens.load_by_token`), :mod:`.match_views` (a match as
its pages show it), :mod:`.downloads` (file names, PDFs, CSV files), :mod:`.recent` (the
phone's recent links), :mod:`.audit_links` (a hand carried in a link), :mod:`.sharing` (links
and QR codes), :mod:`.polling` (the pace of watching pages), :mod:`.jsonio` (JSON for
programs), :mod:`.filters` (everything a template may call) and :mod:`.labels` (the words).
What one blueprint's modules share of a thing is named after it: :mod:`.club_views` (a club as
its pages show it), :mod:`.night_views` (a night as its pages and programs say it),
:mod:`.live` (what the live entry page is made of). Templates and static files are found by
:mod:`scorer.resources` (the checkout's top-level folders, or inside the installed package).

No module is over ~500 lines. A blueprint too large for one keeps its name and its endpoints
and spreads over modules by one rule: ``x.py`` makes ``bp`` (with the pages that are x itself);
``x_<part>.py`` adds its routes to that same ``bp`` (``from .x import bp``, and from ``x.py``
what only x's routes use; never the other way round, so no cycle), and the factory imports the
parts before it registers ``x.bp`` (:func:`_whole` checks each adds to it). So ``clubs.py``,
``clubs_matches.py``, ``clubs_players.py`` and ``clubs_seasons.py`` are one blueprint, ``clubs``,
and a template says ``url_for("clubs.table")`` wherever the route lives. Two suffixes are not
parts: ``x_api.py`` is x's JSON interface, a blueprint of its own (``clubs_api``,
``nights_api``: exempt from CSRF, JSON only), and ``x_forms.py`` holds forms.

Forms sit beside their routes by one rule: the form classes of a blueprint ``x`` live in
``x_forms.py``, whichever of x's modules posts them (``clubs_forms.py`` serves ``clubs.py`` and
its parts; ``hands.py`` and ``hands_forms.py``), so they stand side by side in the folder.
:mod:`.forms` holds what is not one blueprint's: the base ``Form``, the fields, validators and
readers the forms share, and a form that more than one blueprint posts (``VersionForm``: the
audit's and the history's).
"""

from __future__ import annotations

import functools
import os
import sqlite3
from pathlib import Path
from types import ModuleType
from typing import Any

import click
from babel import Locale
from flask import Blueprint, Flask, g, has_request_context, render_template, request
from flask_babel import Babel, get_locale, get_translations
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.datastructures import LanguageAccept
from werkzeug.exceptions import HTTPException
from werkzeug.http import parse_accept_header

from ..engine.cardnames import DEFAULT_LANGUAGE
from ..engine.cardnames import LANGUAGES as ENGINE_LANGUAGES
from ..engine.limits import MAX_HANDS, MAX_HANDS_KEPT, MAX_REVIEW_POSITIONS, MAX_UPLOAD_BYTES
from ..resources import STATIC, TEMPLATES, TRANSLATIONS
from ..sheets import words
from ..storage import db as database
from ..storage import store
from . import filters, labels, safety
from .db import close_db, end_save_turn, get_db, take_save_turn
from .jsonio import wants_json
from .labels import error_sentence

__all__ = ["LANGUAGES", "MAX_UPLOAD_BYTES", "TRANSLATED", "TRANSLATIONS", "create_app", "get_db"]

LANGUAGES = (DEFAULT_LANGUAGE, *(code for code in ENGINE_LANGUAGES if code != DEFAULT_LANGUAGE))
"""The engine's languages, the default first (what a browser that states no preference gets)."""
TRANSLATED = LANGUAGES[1:]
"""The languages with a catalogue in TRANSLATIONS: all but English, the language the strings are written in."""

csrf = CSRFProtect()
babel = Babel()


def create_app(test_config: dict[str, Any] | None = None, instance_path: str | None = None) -> Flask:
    """Application factory (``flask --app scorer``); ``instance_path`` is the folder of the
    database and the secret key (``instance/`` of the checkout unless given, or SCARTO_INSTANCE)."""
    instance = instance_path or os.environ.get("SCARTO_INSTANCE")
    app = Flask(
        "scorer",
        instance_relative_config=True,
        instance_path=str(Path(instance).resolve()) if instance else None,
        template_folder=str(TEMPLATES),
        static_folder=str(STATIC),
    )
    app.config.from_mapping(
        DATABASE=str(Path(app.instance_path) / "scarto.sqlite"),
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        MAX_FORM_MEMORY_SIZE=MAX_UPLOAD_BYTES,  # a pasted match file is a form field: the same limit
        WTF_CSRF_TIME_LIMIT=None,
        # Over HTTPS Flask-WTF also demands a same-origin Referer, but the pages send
        # Referrer-Policy: no-referrer (the tokens live in URLs): the CSRF token and
        # SameSite cookies protect the forms.
        WTF_CSRF_SSL_STRICT=False,
        BABEL_DEFAULT_LOCALE="en",
        BABEL_TRANSLATION_DIRECTORIES=str(TRANSLATIONS),
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        TRUST_PROXY=False,  # SCARTO_TRUST_PROXY=1 behind the TLS proxy (docs/DEPLOY.md)
        PDF_RENDERS=2, PDF_TIMEOUT=30, PDF_WAIT=0.5,  # PDFs at once, seconds each, seconds to wait for a turn
        PDF_QUEUE=2,  # requests that may wait for a turn (the others are told "busy" at once)
        REVIEW_RUNS=1, REVIEW_QUEUE=16,  # hand reviews made at once (each in a process), hands waiting
        REVIEW_TIMEOUT=60, REVIEW_POSITIONS=MAX_REVIEW_POSITIONS,  # a review's seconds and positions at most
    )
    app.config.from_prefixed_env("SCARTO")
    if test_config is not None:
        app.config.update(test_config)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = safety.secret_key(Path(app.instance_path))
    elif os.environ.get("SCARTO_SECRET_KEY"):
        safety.check_secret_key(app.config["SECRET_KEY"], "SCARTO_SECRET_KEY")

    if not app.config.get("SKIP_MIGRATIONS"):
        db = database.connect(app.config["DATABASE"])
        database.migrate(db)
        db.conn.close()

    app.before_request(take_save_turn)  # ahead of the CSRF check (web/db.py's take_save_turn says why)
    app.teardown_request(end_save_turn)
    csrf.init_app(app)
    babel.init_app(app, locale_selector=_locale)
    _install_catalogue(app)
    app.teardown_appcontext(close_db)
    _register_errors(app)
    safety.init_app(app)
    _register_commands(app)
    app.after_request(_security_headers)
    app.after_request(_remember_language)

    from . import (
        api,
        audit,
        clubs,
        clubs_api,
        clubs_matches,
        clubs_players,
        clubs_seasons,
        deals,
        hands,
        history,
        matches,
        nights,
        nights_api,
        offline,
        sheets,
        transfer,
    )

    for bp in (matches.bp, hands.bp, history.bp, sheets.bp, audit.bp, transfer.bp, api.bp,
               offline.bp,  # manifest, service worker, the match state tag
               _whole(clubs.bp, clubs_matches, clubs_players, clubs_seasons), clubs_api.bp,
               nights.bp, nights_api.bp,  # club nights, their pages and their JSON interface
               deals.bp):  # deal sets for duplicate play: pages and sheets, nothing stored
        app.register_blueprint(bp)
    # the JSON interfaces take only a JSON body, which no page on another site can send without a
    # CORS preflight this app never grants: they need no CSRF token
    for bp in (api.bp, clubs_api.bp, nights_api.bp):
        csrf.exempt(bp)
    filters.register(app, LANGUAGES)
    return app


def _whole(bp: Blueprint, *parts: ModuleType) -> Blueprint:
    """The blueprint ``bp`` with the routes its other modules add to it (``clubs_seasons`` to
    ``clubs.bp``): they are imported for that, before it is registered (Flask takes no route after),
    and each must add to this very ``bp``, so that its endpoints keep the blueprint's name."""
    for part in parts:
        if getattr(part, "bp", None) is not bp:
            raise RuntimeError(f"{part.__name__} adds no routes to the blueprint {bp.name!r}")
    return bp


def _catalogue() -> Any:
    """The page's catalogue, looked up once a request and language.

    Flask-Babel's template functions turn the locale into its name and look its catalogue up again
    for every string (some fifty a page), and even asking it for the locale goes through Flask's
    proxies several times: together a third of a match page's render. So the catalogue is kept
    on ``g`` with the locale it is for, and given again while Flask-Babel's locale for the request
    is still that same object (read where Flask-Babel keeps it; if that changed, the slow way is
    taken every time, with the same result). A sheet made in another language (``force_locale``
    sets a locale of its own) gets that language's."""
    try:
        here = g._get_current_object().__dict__
    except RuntimeError:  # outside an app context: Flask-Babel's answer (the default catalogue)
        return get_translations()
    kept = here.get("catalogue")
    if kept is not None and kept[0] is getattr(here.get("_flask_babel"), "babel_locale", None):
        return kept[1]
    locale = get_locale()
    kept = here["catalogue"] = (locale, get_translations())
    return kept[1]


def _install_catalogue(app: Flask) -> None:
    """The templates' ``_()``, ``ngettext()`` ... through :func:`_catalogue` (same strings, same catalogue)."""
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda s: _catalogue().ugettext(s),
        ngettext=lambda s, p, n: _catalogue().ungettext(s, p, n),
        pgettext=lambda c, s: _catalogue().upgettext(c, s),
        npgettext=lambda c, s, p, n: _catalogue().unpgettext(c, s, p, n),
        newstyle=True,
    )
    words.euphonic_templates(app.jinja_env, labels.current_language)


def _locale() -> Locale | None:
    """The page's language: ``?lang=``, the ``lang`` cookie, else the browser's (Accept-Language).

    Given as a Locale made once a language (Flask-Babel parses a code every request otherwise), the
    browser's header read once a value (a phone sends the same one every time)."""
    if not has_request_context():  # a sheet made by the command: its language is forced
        return None
    chosen = request.args.get("lang") or request.cookies.get("lang")
    if chosen not in LANGUAGES:
        header = request.headers.get("Accept-Language", "")
        chosen = _browser_language(header) if len(header) <= 200 else _best_language(header)  # a bounded cache
    return _LOCALES[chosen]


_LOCALES = {code: Locale.parse(code) for code in LANGUAGES}


def _best_language(header: str) -> str:
    return parse_accept_header(header, LanguageAccept).best_match(LANGUAGES) or "en"


_browser_language = functools.lru_cache(maxsize=256)(_best_language)


def _remember_language(response: Any) -> Any:
    """A language chosen with ?lang= sticks for the next pages."""
    chosen = request.args.get("lang")
    if chosen in LANGUAGES and request.cookies.get("lang") != chosen:
        response.set_cookie("lang", chosen, max_age=400 * 24 * 3600, samesite="Lax")
    return response


SECURITY_HEADERS = (
    ("Content-Security-Policy",
     "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
     "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
)
"""Every answer's headers, unless the route set its own."""


def _security_headers(response: Any) -> Any:
    headers = response.headers
    present = {name.lower() for name, _value in headers.items()}  # one pass: a miss of `in` raises inside
    for name, value in SECURITY_HEADERS:
        if name.lower() not in present:
            headers.add(name, value)
    return response


def _register_errors(app: Flask) -> None:
    @app.errorhandler(CSRFError)
    def csrf_error(error: CSRFError) -> Any:
        """A form sent without its token (or an expired page): say so, 400."""
        if wants_json():
            return {"error": "Bad Request", "message": _("The page expired: reload it and try again.")}, 400
        return render_template("error.html", code=400, reason="csrf", description=None), 400

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        """Every HTTP error as a page a player understands; JSON for the API."""
        code = error.code or 500
        # the app's own reason (abort(..., description=)), never Werkzeug's English default
        own = error.description if error.description != type(error).description else None
        if wants_json():
            return {"error": error.name, "message": own or error_sentence(code)}, code
        description = own
        return render_template("error.html", code=code, reason=None, description=description), code

    @app.errorhandler(store.MatchFull)
    def match_full(error: store.MatchFull) -> Any:
        """A save that would take a match past its hands (two at once at the limit): 400, nothing stored."""
        message = _("This match has %(limit)s hands, as many as a match holds: start a new match "
                    "for the next hands.", limit=MAX_HANDS)
        if isinstance(error, store.MatchKeepsAll):
            message = _("This match keeps %(limit)s hands with its deleted ones, as many as a match keeps: start "
                        "a new match for the next hands.", limit=MAX_HANDS_KEPT)
        if wants_json():
            return {"error": "Bad Request", "message": message}, 400
        return render_template("error.html", code=400, reason=None, message=message), 400

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Any:
        """Never a traceback to the user: log it, answer 500 with an apology."""
        app.logger.exception("unhandled error")
        if wants_json():
            return {"error": "Internal Server Error", "message": error_sentence(500)}, 500
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
