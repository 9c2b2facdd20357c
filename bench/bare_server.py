"""``make run``'s server (scorer.serve, its waitress settings) with one more route: ``/_bare``.

The route answers "ok" and does nothing else, so it measures what the server, Flask and
the machine cost by themselves; bench/bench_scale.py compares the app's pages and saves
with it, in the same process and the same run. Used only by the benchmark.
"""

from __future__ import annotations

import sys
from pathlib import Path
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


scorer.create_app = _with_bare_route  # type: ignore[assignment]  # serve._app imports it when called

if __name__ == "__main__":
    serve.main()
