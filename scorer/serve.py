"""``make run``: serve the app with waitress (a production WSGI server), not Flask's dev server.

HOST and PORT come from the environment (127.0.0.1:5000 by default); HOST=0.0.0.0
serves the phones on the local network.
"""

from __future__ import annotations

import os

from waitress import serve

from . import create_app


def main() -> None:
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "5000"))
    threads = int(os.environ.get("THREADS", "8"))
    # waitress stops accepting past 100 open connections (its default); a club night has 100 phones
    # watching and the tables' phones saving, each keeping its connection open between requests. An idle
    # connection costs a socket, not a thread (bench/RESULTS.md, "A club night watched live").
    connections = int(os.environ.get("CONNECTIONS", "500"))
    serve(create_app(), host=host, port=port, threads=threads, connection_limit=connections,
          max_request_body_size=2 * 1024 * 1024)


if __name__ == "__main__":
    main()
