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
    serve(create_app(), host=host, port=port, threads=threads, max_request_body_size=2 * 1024 * 1024)


if __name__ == "__main__":
    main()
