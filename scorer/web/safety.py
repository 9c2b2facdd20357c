"""What keeps faults and hostile requests from ending in a bare 500.

- The secret key: made when missing or empty, refused at start when damaged or weak.
- The database read-only, missing or locked: a 503 page saying what to do (the app
  never opens a new empty database in place of a missing one: see ``get_db``).
- A malformed ``Host`` header: a 400 page with our headers.
- Behind a proxy (``TRUST_PROXY``, off by default): ``X-Forwarded-*`` trusted, so links
  say https:// and every cookie is ``Secure``.
- ``Cache-Control: no-store`` on everything but the static files (token pages, files, the API).
- The session cookie kept under the browsers' 4 KB whatever the messages hold.
- A PDF refused while others are being made, or stopped at its time limit: a 503 page.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import socket
import sqlite3
from pathlib import Path
from typing import Any

import click
from flask import Flask, Response, current_app, render_template, request
from flask.sessions import SecureCookieSessionInterface, SessionMixin
from flask_babel import gettext as _
from markupsafe import Markup
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.sansio.utils import host_is_trusted

from ..sheets.worker import Busy, RenderFailed, TooSlow
from .jsonio import wants_json
from .labels import error_sentence

MIN_SECRET_KEY = 32
"""Characters a secret key needs at least (``secrets.token_hex(32)`` makes 64)."""
MAX_SESSION_COOKIE = 3000
"""Bytes of the session cookie at most (browsers drop a cookie past 4,096 with its name and attributes)."""
RETRY_AFTER = 5
"""Seconds a phone is told to wait before asking again when the app is busy."""

log = logging.getLogger("scorer")


class ConfigError(click.ClickException):
    """The app cannot start as configured; the message says what to do (printed as one line, no traceback)."""

    exit_code = 2


# --- the secret key ----------------------------------------------------------------------


def secret_key(instance: Path) -> str:
    """The key in ``instance/secret_key``: made once (and again if the file is empty), refused if damaged or weak."""
    path = instance / "secret_key"
    if path.exists():
        raw = path.read_bytes()
        try:
            key = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise ConfigError(f"{path} is damaged (it is not text). Delete it and start again: a new key is "
                               "made (everyone's forms then need a reload).") from None
        if key:
            check_secret_key(key, str(path))
            return key
        log.warning("%s was empty: a new secret key was made", path)
    key = secrets.token_hex(32)
    path.write_text(key)
    path.chmod(0o600)
    return key


def check_secret_key(key: str, where: str) -> None:
    """ConfigError for a key too short to sign sessions safely; ``where`` names the file or the variable."""
    if len(key) < MIN_SECRET_KEY:
        fix = "Delete the file to have a new one made, or put in" if "/" in where else "Set it to"
        raise ConfigError(f"The secret key in {where} is too weak ({len(key)} characters; at least "
                          f"{MIN_SECRET_KEY} are needed). {fix} the output of: "
                          "python3 -c 'import secrets; print(secrets.token_hex(32))'")


# --- the pieces, wired in by init_app -----------------------------------------------------


def init_app(app: Flask) -> None:
    app.session_interface = SmallSession()
    app.jinja_env.globals["error_sentence"] = error_sentence  # error.html's sentence, as the JSON answers say it
    app.after_request(_no_store)
    app.after_request(_secure_cookies)
    app.before_request(_refuse_bad_host)
    app.register_error_handler(sqlite3.Error, _database_fault)
    app.register_error_handler(Busy, _busy)
    app.register_error_handler(TooSlow, _too_slow)
    app.register_error_handler(RenderFailed, _render_failed)
    app.wsgi_app = HostCheck(app.wsgi_app, app)  # type: ignore[method-assign]
    trusted = app.config.get("TRUST_PROXY")
    if trusted:
        hops = 1 if trusted is True else int(trusted)
        app.config["SESSION_COOKIE_SECURE"] = True
        app.config["PREFERRED_URL_SCHEME"] = "https"
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops,  # type: ignore[method-assign]
                                x_port=hops, x_prefix=hops)


def error_page(code: int, heading: str, message: str, *, retry: bool = False) -> Any:
    """Our error page (or JSON on the programs' addresses) with a heading and what to do."""

    headers = {"Retry-After": str(RETRY_AFTER)} if retry else {}
    if wants_json():
        return {"error": heading, "message": message}, code, headers
    return render_template("error.html", code=code, reason=None, description=None, heading=heading,
                           message=message), code, headers


# --- the database ---------------------------------------------------------------------


def _database_fault(error: sqlite3.Error) -> Any:
    """A database that cannot be used: say what is wrong and what to do, 503 (the request can be retried)."""
    if not isinstance(error, sqlite3.OperationalError) and type(error) is not sqlite3.DatabaseError:
        # an IntegrityError or a ProgrammingError is the app's own bug, not the database's state

        log.exception("unhandled database error")
        if wants_json():
            return {"error": "Internal Server Error", "message": "Something went wrong on our side."}, 500
        return render_template("error.html", code=500, reason=None, description=None), 500
    text = str(error).lower()
    log.error("database fault: %s", error)
    if "readonly" in text or "read-only" in text:
        message = _("The app cannot write to its database (the file or its folder is read-only). Nothing was "
                    "saved. Whoever runs the app: make the database file and its folder writable, then try again.")
    elif "unable to open" in text:
        message = _("The app's database file is missing. Nothing was saved, and no empty database was made in "
                    "its place. Whoever runs the app: put the database file back (or restore the last backup), "
                    "then try again.")
    elif "locked" in text or "busy" in text:
        message = _("The database is busy with other saves. Nothing was saved: try again in a few seconds.")
    else:
        message = _("The app cannot read its database (it may be damaged or the disk full). Nothing was saved. "
                    "Whoever runs the app: check the disk and restore the last backup if needed.")
    return error_page(503, _("The database cannot be used right now"), message, retry=True)


# --- PDFs ---------------------------------------------------------------------------------


def _busy(error: Busy) -> Any:
    return error_page(503, _("Busy making other sheets"), _(
        "The app is making other PDF sheets right now. Try again in a few seconds: the match itself is not "
        "affected."), retry=True)


def _too_slow(error: TooSlow) -> Any:
    return error_page(503, _("The sheet took too long"), _(
        "Making this PDF took longer than %(seconds)s seconds, so it was stopped. The match is not affected; "
        "the CSV and JSON files hold the same figures.", seconds=error.seconds))


def _render_failed(error: RenderFailed) -> Any:
    log.error("PDF render failed: %s", error)
    return error_page(503, _("The sheet could not be made"), _(
        "Making this PDF failed on our side. The match is not affected; try again in a few seconds."), retry=True)


# --- the Host header -------------------------------------------------------------------

_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOST = re.compile(rf"(?:{_LABEL}(?:\.{_LABEL})*\.?|\[[0-9A-Fa-f:.]{{2,45}}\])(?::[0-9]{{1,5}})?")
BAD_HOST = "scarto.bad_host"


def good_host(host: str) -> bool:
    """A host name (or IP address) and an optional port, as RFC 3986 allows; ``a..b`` is not one."""
    return len(host) <= 260 and _HOST.fullmatch(host) is not None


SERVED_AT = "scarto.served_at"
"""The address of this machine a request's connection arrived on (set by scorer/serve.py): a phone that
opened ``http://192.168.1.23:5000/`` sends that address as its ``Host``."""

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
"""The names of this machine every server answers to."""

ANY_ADDRESS = frozenset({"", "0.0.0.0", "::"})
"""The ``HOST`` values that mean every address of the machine rather than one of them."""


def host_name(host: str) -> str:
    """The name in a ``Host`` header, without its port or brackets, lower case: ``[::1]:5000`` is ``::1``."""
    name = host[1:].split("]", 1)[0] if host.startswith("[") else host.rsplit(":", 1)[0]
    return name.rstrip(".").lower()


def served_names() -> frozenset[str]:
    """The names the server answers to when no ``SCARTO_TRUSTED_HOSTS`` says which: loopback, the address
    it was told to serve (``HOST``), and the machine's own name (and its ``.local`` form, which phones on
    the Wi-Fi may use)."""
    names = set(LOOPBACK_NAMES)
    served = os.environ.get("HOST", "").strip()
    if served not in ANY_ADDRESS:
        names.add(host_name(served) if served.startswith("[") else served.lower())
    machine = socket.gethostname().lower()
    if machine:
        names.update((machine, f"{machine}.local"))
    return frozenset(names)


class HostCheck:
    """Below Flask: a malformed ``Host`` would fail before any error handler could answer (a bare 500).
    And the ``Host`` is what the share links and QR codes are made of: one the server does not serve
    (``Host: evil.example``) would make links that send the players elsewhere.

    So a ``Host`` is taken only when it is well formed and one of ``SCARTO_TRUSTED_HOSTS``, or, with that
    unset, one of the addresses this server serves (:func:`served_names`, the address the connection
    arrived on, the configuration's ``SERVER_NAME``). Behind the TLS proxy (``SCARTO_TRUST_PROXY``) the
    proxy's host is taken: the proxy chose its site by it. Any other request goes on with a placeholder
    host, marked, and is answered with our 400 page.
    """

    def __init__(self, wsgi_app: Any, app: Flask) -> None:
        self.wsgi_app = wsgi_app
        self.config = app.config
        self.served = served_names()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        host = environ.get("HTTP_HOST")
        trusted = self.config.get("TRUSTED_HOSTS")  # SCARTO_TRUSTED_HOSTS='["scarto.example.org"]'
        if host is not None and not self.takes(host, trusted, environ):
            placeholder = str(trusted[0]).lstrip(".") if trusted else "invalid.host"
            environ = {**environ, "HTTP_HOST": placeholder, BAD_HOST: True}
        return self.wsgi_app(environ, start_response)

    def takes(self, host: str, trusted: Any, environ: dict[str, Any]) -> bool:
        """Whether links may be made of this ``Host`` (see the class)."""
        if not good_host(host):
            return False
        if trusted:
            return host_is_trusted(host, trusted)
        if self.config.get("TRUST_PROXY"):
            return True
        name, configured = host_name(host), self.config.get("SERVER_NAME")  # the configuration's own name
        return name in self.served or name == environ.get(SERVED_AT) or (
            bool(configured) and name == host_name(str(configured)))


REFUSED = "scarto.refused"
"""Set (to waitress's status code) on the stand-in request for one waitress could not read (scorer/serve.py)."""


def _refuse_bad_host() -> Any:
    refused = request.environ.get(REFUSED)
    if refused:  # a malformed request line or header, headers too large: what the page says for that code
        return render_template("error.html", code=refused, reason=None, description=None), refused
    if request.environ.get(BAD_HOST):
        return error_page(400, _("That did not work"), _(
            "The address this request was sent to is not a valid host name. Open the app from its link."))
    return None


# --- headers and cookies -----------------------------------------------------------------


OPEN_FILES = frozenset({"static", "offline.service_worker", "offline.manifest", "offline.icon"})
"""The app's own files, the same for everyone and opened by no token: they keep their own caching."""


def _no_store(response: Response) -> Response:
    """Nothing but the app's own files may be kept by a browser or a proxy: the rest is opened by tokens."""
    if request.endpoint not in OPEN_FILES:
        response.headers["Cache-Control"] = "no-store"
    return response


def _secure_cookies(response: Response) -> Response:
    """Behind the TLS proxy every cookie is ``Secure`` (the session, the language, the recent matches)."""
    if current_app.config.get("SESSION_COOKIE_SECURE"):
        cookies = response.headers.getlist("Set-Cookie")
        if any("; secure" not in c.lower() for c in cookies):
            response.headers.remove("Set-Cookie")
            for cookie in cookies:
                response.headers.add("Set-Cookie", cookie if "; secure" in cookie.lower() else cookie + "; Secure")
    return response


MAX_FLASHES = 3
"""Messages a session keeps for its next page: a phone that saved hand after hand without opening a
page (a script, a phone that lost the answers) has no use for older ones, and a long list made
every answer slow to sign (6 ms a save after a hundred)."""


class SmallSession(SecureCookieSessionInterface):
    """The session cookie, its messages shortened (and the oldest dropped) until it fits a browser's limit.

    A hand saved with long names made a message too long for the cookie: the browser dropped
    the cookie, and the message with it. At most :data:`MAX_FLASHES` messages are kept, the newest.
    """

    def __init__(self) -> None:
        super().__init__()
        self._serializers: dict[tuple[object, ...], Any] = {}

    def get_signing_serializer(self, app: Flask) -> Any:
        """Made once for a key (Flask makes one every request, and checks it by serializing ``{}``)."""
        key = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        made = self._serializers.get(key)
        if made is None:
            made = super().get_signing_serializer(app)
            self._serializers = {key: made}  # one key in use: the last one replaces any other
        return made

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        flashes = session.get("_flashes")
        if flashes:
            serializer = self.get_signing_serializer(app)
            assert serializer is not None
            kept = list(flashes)[-MAX_FLASHES:]
            while kept and len(serializer.dumps(dict(session, _flashes=kept))) > MAX_SESSION_COOKIE:
                longest = max(range(len(kept)), key=lambda i: len(kept[i][1]))
                category, message = kept[longest]
                if isinstance(message, Markup) or len(message) <= 200:
                    del kept[0]  # nothing left to shorten safely: the oldest message goes
                else:
                    kept[longest] = (category, message[:197] + "…")
            if kept != flashes:
                session["_flashes"] = kept
        super().save_session(app, session, response)
