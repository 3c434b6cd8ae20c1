"""Nothing a schema accepts may fail to store or project, on either store (API.md Additions,
Input limits): generated texts go through the commands that take them (a player's name, a
table's name, a dispute's reason, a resolution's note), then through the read models
(followed in-process) and back out of the reads that show them.

The issue's case: one NUL byte in a dispute's reason was accepted (201), then stopped every
read model on PostgreSQL for good ("text fields cannot contain NUL"), so every read with
`min_position` answered 503 and a rebuild hit the same event.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.helpers import Club, Game, game, ok, problem, shared_client

__all__ = ["shared_client"]

# Characters a store or a page could choke on, mixed into any Unicode text (surrogates too).
HOSTILE = ["\x00", "\ud800", "\udfff", "\x07", "\x1b", "\x7f", "\x85", "\u2028", "\u202e",
           "\u2066", "\n", "\r", "\t", "\ufeff", "\ufffd", "'", "\\", "%", "?"]
TEXTS = st.text(st.one_of(st.characters(exclude_categories=()), st.sampled_from(HOSTILE)),
                max_size=120)
EXAMPLES = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def club(shared_client: FlaskClient) -> Club:
    return Club(shared_client)


@pytest.fixture(scope="module")
def played(club: Club) -> Game:
    return game(club)


def unstorable(text: str) -> bool:
    """What no store can keep as text: NUL (PostgreSQL) and lone surrogates (UTF-8)."""
    return any(c == "\x00" or unicodedata.category(c) == "Cs" for c in text)


def accepted_or_refused(response: Any, field: str, text: str) -> dict[str, Any] | None:
    """The answer to a command carrying `text` in `field`: accepted, or 422 naming the
    field, and always 422 for what no store can keep."""
    if response.status_code == 422:
        assert field in problem(response, 422).get("errors", {}), response.get_json()
        return None
    assert not unstorable(text), f"{text!r} was accepted"
    assert response.status_code in (200, 201), response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def balances(club: Club, position: int) -> dict[str, str | None]:
    """Every account's name from the balances read model, once it has `position`."""
    body = ok(club.client.get("/v1/balances", query_string={"min_position": position},
                              headers=club.treasurer))
    return {row["account"]: row["name"] for row in body["accounts"]}


@EXAMPLES
@given(name=TEXTS)
def test_a_players_name_is_refused_or_shown_by_the_balances_read_model(club: Club,
                                                                       name: str) -> None:
    response = club.client.post("/v1/players", json={"name": name}, headers=club.treasurer)

    created = accepted_or_refused(response, "name", name)

    if created is not None:
        assert balances(club, created["position"])[f"player:{created['id']}"] == name


@EXAMPLES
@given(name=TEXTS)
def test_a_tables_name_is_refused_or_shown_by_the_read_models(club: Club, played: Game,
                                                             name: str) -> None:
    body = {"name": name, "seats": [played.pat.id, played.quinn.id],
            "rules": {"shoot": True}, "pack": {"mode": "shuffled"}}

    response = club.client.post("/v1/tables", json=body, headers=club.operator)

    opened = accepted_or_refused(response, "name", name)
    if opened is not None:
        kitty = balances(club, opened["position"])[f"kitty:{opened['id']}"]
        assert kitty == f"kitty of {name}"


@EXAMPLES
@given(reason=TEXTS, note=TEXTS)
def test_a_disputes_reason_and_note_are_refused_or_shown_by_the_read_models(
        club: Club, played: Game, reason: str, note: str) -> None:
    """Through the disputes read model (the queue, the dispute, the deal's audit) and the
    statements model (a correction's reason carries the note)."""
    response = club.client.post(f"/v1/deals/{played.deal_id}/disputes",
                                json={"reason": reason}, headers=club.treasurer)
    raised = accepted_or_refused(response, "reason", reason)
    if raised is None:
        raised = ok(club.client.post(f"/v1/deals/{played.deal_id}/disputes",
                                     json={"reason": "plain"}, headers=club.treasurer), 201)
        reason = "plain"

    response = club.client.post(f"/v1/disputes/{raised['id']}/resolution",
                                json={"decision": "rejected", "note": note},
                                headers=club.treasurer)
    resolved = accepted_or_refused(response, "note", note)

    position = (resolved or raised)["position"]
    shown = ok(club.client.get(f"/v1/disputes/{raised['id']}",
                               query_string={"min_position": position},
                               headers=club.treasurer))
    assert shown["reason"] == reason
    assert shown["note"] == (note if resolved else None)
    audit = ok(club.client.get(f"/v1/deals/{played.deal_id}/audit",
                               query_string={"min_position": position},
                               headers=club.treasurer))
    assert {d["id"]: d["reason"] for d in audit["disputes"]}[raised["id"]] == reason


def test_the_issues_nul_in_a_reason_is_refused_and_the_read_models_keep_going(
        club: Club, played: Game) -> None:
    """The issue's request, answered 422; a read with `min_position` then answers at once."""
    response = club.client.post(f"/v1/deals/{played.deal_id}/disputes",
                                json={"reason": "x\u0000y"}, headers=played.pat.headers)

    problem(response, 422)
    head = club.head()
    ok(club.client.get("/v1/disputes", query_string={"min_position": head},
                       headers=club.treasurer))
    lags = ok(club.client.get("/v1/health", headers=club.treasurer))["projections"]
    assert set(lags.values()) == {0}, lags
