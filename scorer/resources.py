"""Where the app's files are: the templates, the static files and the compiled catalogues.

An installed package carries them inside it (``scorer/templates``, ``scorer/static``,
``scorer/translations``: pyproject.toml maps the checkout's top-level folders there);
a checkout has templates/ and static/ at its root. Both the web app and the
``scarto pdf`` command look them up here.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
"""The checkout (when running from one)."""


def folder(name: str) -> Path:
    """``templates`` or ``static``: inside the installed package, else at the checkout's root."""
    inside = PACKAGE / name
    return inside if inside.is_dir() else ROOT / name


TEMPLATES = folder("templates")
STATIC = folder("static")
TRANSLATIONS = PACKAGE / "translations"
"""The catalogues ship inside the package (scorer/translations/<lang>/LC_MESSAGES/messages.mo)."""
