"""The share pages' links and their QR codes (a match's and a club's).

A table shares its match by showing the link's QR code on one phone to the others: the code
is drawn here as inline SVG, so the page needs no script and no request more.
"""

from __future__ import annotations

import segno
from flask import url_for


def share_codes(endpoint: str, edit_token: str | None, view_token: str) -> list[tuple[str, str, str]]:
    """(kind, link, QR code as SVG) for a share page: the edit link (if the page may show it) and the view link.

    A quiet zone of four modules (what scanners need), drawn to scale by its viewBox.
    """
    links = [("edit", edit_token)] if edit_token else []
    links.append(("view", view_token))
    out = []
    for kind, token in links:
        url = url_for(endpoint, token=token, _external=True)
        out.append((kind, url, segno.make(url, error="m").svg_inline(scale=4, border=4, omitsize=True)))
    return out
