"""The reviewer: reviews made apart from the requests, a few at once, each asked once, the queue bounded."""

from __future__ import annotations

import threading
import time

import pytest
from flask.testing import FlaskClient

from scorer.web.reviews import Reviewer
from tests.test_web_audit import _review_rows, _stored_hand


def test_a_reviewer_makes_each_review_once_a_few_at_once_and_refuses_past_its_queue() -> None:
    reviewer = Reviewer(size=1, queue=1)
    release, done = threading.Event(), []

    def work(name: str) -> object:
        def run() -> None:
            release.wait(10)
            done.append(name)
        return run

    assert reviewer.ask(("db", 1, 1, 18), work("first"))
    assert reviewer.ask(("db", 1, 1, 18), work("first again"))  # asked already: not twice
    assert reviewer.ask(("db", 2, 1, 18), work("second"))  # waits its turn
    assert not reviewer.ask(("db", 3, 1, 18), work("third"))  # the queue is full: asked on its next view
    assert not reviewer.idle(0.1)
    release.set()
    assert reviewer.idle(10)
    assert done == ["first", "second"]
    assert reviewer.ask(("db", 3, 1, 18), work("third")) and reviewer.idle(10) and done[-1] == "third"


def test_the_audit_answers_at_once_while_its_review_is_being_made(
        client: FlaskClient, app, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The review runs beside the requests: the page says it is being made and shows the rest of the audit
    however long the review takes."""
    from scorer.storage import reviews
    from scorer.web.reviews import reviewer

    release = threading.Event()
    real = reviews.make_review

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(reviews, "make_review", slow)
    monkeypatch.setitem(reviews.REVIEW_TRICKS, "three", 3)
    edit, key = _stored_hand(client, "classic-valid-1")
    for _ in range(3):
        began = time.monotonic()
        page = client.get(f"/m/{edit}/hands/{key}/audit")
        assert page.status_code == 200 and time.monotonic() - began < 5
        assert 'id="review-making"' in page.get_data(as_text=True) and "The count in threes" in page.get_data(
            as_text=True)
    release.set()
    with app.app_context():
        assert reviewer().idle(120)
    assert _review_rows(client.get(f"/m/{edit}/hands/{key}/audit").get_data(as_text=True))
