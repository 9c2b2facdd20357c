"""A hand carried in a link: the audit of a hand on its own, shared without saving it in a match.

The record travels in the address itself (deflated, base64url); one too long for a browser's
address is kept on the server for a while instead (:func:`audit_url`). The import page and the
audit pages both make and read such links, so they live here rather than in a blueprint.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib

from flask import url_for
from flask_babel import gettext as _

from ..engine.errors import ScartoError
from ..engine.limits import MAX_AUDIT_LINK, MAX_AUDIT_LINK_READ
from ..engine.records import HandRecord, hand_to_dict, loads, parse_hand
from ..storage import links
from .db import get_db

UNPACKED_LINK_BYTES = 256 * 1024
"""What an audit link's hand may unpack to: a full record takes about 3 KB, its longest notes and names
some 10 KB more."""


def encode_record(record: HandRecord) -> str:
    """A record packed into a URL segment (canonical JSON, deflated, base64url)."""
    text = json.dumps(hand_to_dict(record), separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(zlib.compress(text.encode(), 9)).decode().rstrip("=")


def decode_record(blob: str) -> HandRecord:
    """The record of :func:`encode_record`; ScartoError if the link was damaged."""
    if len(blob) > MAX_AUDIT_LINK_READ:
        raise ScartoError(_("the audit link is too long to be a hand record"))
    try:
        raw = base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4))
        inflater = zlib.decompressobj()
        text = inflater.decompress(raw, UNPACKED_LINK_BYTES)
    except (binascii.Error, ValueError, zlib.error) as exc:
        raise ScartoError(_("the audit link is damaged: copy it whole")) from exc
    if not inflater.eof:  # stopped at the cap (what any hand holds), or the link was cut short
        if inflater.unconsumed_tail or len(text) >= UNPACKED_LINK_BYTES:
            raise ScartoError(_("the audit link is too long to be a hand record"))
        raise ScartoError(_("the audit link is damaged: copy it whole"))
    return parse_hand(loads(text))


def audit_url(record: HandRecord) -> str:
    """Where a hand on its own is audited: the record in the link, or, when the link would be too long
    for a browser, kept on the server for a while (limits.AUDIT_KEEP_DAYS) under the hash of the record."""
    blob = encode_record(record)
    if len(blob) <= MAX_AUDIT_LINK:
        return url_for("audit.audit_hand", blob=blob)
    return url_for("audit.kept_hand", key=links.keep_audit(get_db(), hand_to_dict(record)))
