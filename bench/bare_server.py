"""``make run``'s server (scorer.serve, its waitress settings) with one more route: ``/_bare``.

The route answers "ok" and does nothing else, so it measures what the server, Flask and
the machine cost by themselves; bench/bench_scale.py compares the app's pages and saves
with it, in the same process and the same run. Used only by the benchmarks.

``BARE_APP`` serves something smaller in the app's place, under the same server and settings
(bench/bench_ceiling.py's floor): ``wsgi``, a WSGI callable that answers "ok" to everything
(waitress alone); ``flask``, a Flask app of one route answering "ok" (waitress and Flask, none of
the app's hooks), behind the app's access log as the app is.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import scorer  # noqa: E402
from scorer import serve  # noqa: E402

_make = scorer.create_app


def _with_bare_route(*args: Any, **kwargs: Any) -> Any:
    app = _make(*args, **kwargs)

    @app.get("/_bare")
    def bare() -> str:
        return "ok"

    return app


class PlainWSGI:
    """Answers "ok" to any request: what waitress costs with nothing behind it.

    scorer.serve reads the served app's settings (``app.config``: the PDF workers, the proxy) before
    it serves, as it finds them on the app's access log; this has none to give, so an empty one.
    """

    def __init__(self) -> None:
        self.app = SimpleNamespace(config={})

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "2")])
        return [b"ok"]


def bare_flask() -> Any:
    """A Flask app of one route, behind the access log the app is served with."""
    from flask import Flask

    app = Flask("bare")

    @app.get("/")
    @app.get("/_bare")
    def bare() -> str:
        return "ok"

    return serve.AccessLog(app)


BARE_APPS = {"wsgi": PlainWSGI, "flask": bare_flask}

if __name__ == "__main__":
    kind = os.environ.get("BARE_APP", "app")
    if kind == "app":
        scorer.create_app = _with_bare_route  # type: ignore[assignment]  # serve._app imports it when called
    else:
        serve._app = BARE_APPS[kind]  # one process (WORKERS=1), as bench_ceiling.py starts it
    serve.main()
