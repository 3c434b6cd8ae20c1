"""Signed checkpoints, Merkle proofs and witnesses' cosignatures over HTTP (API.md,
"Proofs anyone can check"), on both stores: what a player or a witness checks is checked
here with the project's verifier (domain/merkle.py, projections/notes.py) against the
hashes recorded beside the events."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from config import Settings
from domain.merkle import event_leaf, range_hash, verify_consistency, verify_inclusion
from projections.notes import (
    COSIGNATURE_V1,
    Signature,
    Signer,
    Verifier,
    cosign,
    cosignature_time,
    open_checkpoint,
)
from tests.api import history_reference as ref
from tests.api.helpers import Club, bearer, build_app, close_app, eventually, game, ok, problem
from tests.integration.signing import with_signing_key

JSON = {"Accept": "application/json"}


@pytest.fixture
def signing_app(store_settings: Settings, tmp_path: Any) -> Iterator[Flask]:
    """The app with a signing key made as `pontoon migrate` makes it."""
    flask_app = build_app(with_signing_key(store_settings, tmp_path))
    yield flask_app
    close_app(flask_app)


@pytest.fixture
def club(signing_app: Flask) -> Club:
    return Club(signing_app.test_client())


def settle_a_deal(club: Club) -> int:
    """A deal played to its settlement (R3.5 stakes, sticks, the banker stays); returns
    the settling command's position."""
    played = game(club, top=("10H", "10S", "10D", "9H", "7S", "8D"))
    played.stakes()
    played.act(played.pat, "stick")
    played.act(played.quinn, "stick")
    settled = played.act(played.banker, "stay")
    assert settled["phase"] == "settled", settled
    return int(settled["position"])


def latest(club: Club, beyond: int = 0) -> dict[str, Any]:
    """The newest checkpoint, once one covers position `beyond`."""
    def found() -> dict[str, Any] | None:
        answer = club.client.get("/v1/checkpoints/latest", headers=JSON)
        if answer.status_code != 200:
            return None
        body = answer.get_json()
        note = open_checkpoint(body["note"], log_key(club))[0]
        covered = leaves(club)[note.size - 1][0] if note.size else 0
        return body if covered >= beyond else None
    return eventually(found, f"a checkpoint covering position {beyond}")  # type: ignore[no-any-return]


def log_key(club: Club) -> Verifier:
    return Verifier.parse(ok(club.client.get("/v1/checkpoints/key"))["vkey"])


def leaves(club: Club) -> list[tuple[int, bytes]]:
    """(position, leaf hash) of every event, from the hashes recorded beside the events."""
    ledger = club.client.application.extensions["pontoon"].ledger
    return [(row.position, event_leaf(row.position, row.event_hash))
            for row in ledger.recorder.select_hashes(0, None)]


def witness_token(club: Club) -> dict[str, str]:
    return bearer(ok(club.client.post("/v1/tokens", json={"role": "witness"},
                                      headers=club.treasurer), 201)["token"])


# --- checkpoints -------------------------------------------------------------------------

def test_a_settled_deal_is_followed_by_a_checkpoint_signed_by_the_published_key(
        club: Club, signing_app: Flask, tmp_path: Any) -> None:
    position = settle_a_deal(club)

    body = latest(club, beyond=position)
    text = club.client.get("/v1/checkpoints/latest")
    key = ok(club.client.get("/v1/checkpoints/key"))

    checkpoint, _ = open_checkpoint(text.get_data(as_text=True), log_key(club))
    assert text.status_code == 200 and text.mimetype == "text/plain"
    assert text.get_data(as_text=True) == body["note"]
    assert (body["size"], body["origin"]) == (checkpoint.size, checkpoint.origin)
    assert base64.b64decode(body["root"]) == checkpoint.root == range_hash(
        [leaf for _, leaf in leaves(club)], 0, checkpoint.size)
    signer = Signer.parse((tmp_path / "signing-key").read_text())
    assert key == {"name": signer.name, "vkey": signer.verifier.vkey,
                   "public_key": base64.b64encode(signer.verifier.public).decode()}
    assert checkpoint.origin == signer.name  # no PONTOON_LOG_ORIGIN and no club name yet


def test_checkpoints_are_listed_oldest_first_and_need_no_token(club: Club) -> None:
    first = latest(club, beyond=settle_a_deal(club))
    time.sleep(1.1)  # at most one checkpoint a second
    second = latest(club, beyond=settle_a_deal(club))

    listed = ok(club.client.get("/v1/checkpoints?limit=1"))
    rest = ok(club.client.get(f"/v1/checkpoints?after={listed['next']}"))

    sizes = [c["size"] for c in listed["items"] + rest["items"]]
    assert sizes == sorted(sizes) and {first["size"], second["size"]} <= set(sizes)
    assert listed["items"][0]["note"].startswith(listed["items"][0]["origin"] + "\n")


# --- proofs --------------------------------------------------------------------------------

def test_every_event_has_an_inclusion_proof_to_the_checkpoint_root(club: Club) -> None:
    checkpoint = open_checkpoint(latest(club, beyond=settle_a_deal(club))["note"],
                                 log_key(club))[0]
    hashes = [leaf for _, leaf in leaves(club)]

    for index in range(checkpoint.size):
        proof = ok(club.client.get(f"/v1/proofs/inclusion?index={index}&size="
                                   f"{checkpoint.size}", headers=club.treasurer))
        assert base64.b64decode(proof["leaf_hash"]) == hashes[index]
        assert (proof["index"], proof["size"]) == (index, checkpoint.size)
        verify_inclusion(index, checkpoint.size, hashes[index],
                         [base64.b64decode(h) for h in proof["proof"]], checkpoint.root)


def test_every_earlier_tree_has_a_consistency_proof_to_the_checkpoint(club: Club) -> None:
    pat = club.player("Pat", 10)
    checkpoint = open_checkpoint(latest(club, beyond=settle_a_deal(club))["note"],
                                 log_key(club))[0]
    hashes = [leaf for _, leaf in leaves(club)]

    for first in range(checkpoint.size + 1):
        proof = ok(club.client.get(f"/v1/proofs/consistency?from={first}&to="
                                   f"{checkpoint.size}", headers=pat.headers))
        assert (proof["from"], proof["to"]) == (first, checkpoint.size)
        verify_consistency(first, checkpoint.size, range_hash(hashes, 0, first),
                           checkpoint.root, [base64.b64decode(h) for h in proof["proof"]])


@pytest.mark.parametrize(("query", "field"), [
    ("index=5&size=5", "index"), ("index=0", "size"), ("from=4&to=3", "from"),
    ("index=-1&size=3", "index"), ("index=x&size=3", "index")])
def test_a_proof_asked_of_no_tree_is_malformed(club: Club, query: str, field: str) -> None:
    kind = "consistency" if "from" in query else "inclusion"

    body = problem(club.client.get(f"/v1/proofs/{kind}?{query}", headers=club.treasurer), 400)

    assert field in body["errors"], body


def test_a_proof_beyond_the_tree_is_not_now(club: Club) -> None:
    settle_a_deal(club)
    size = len(leaves(club))

    refused = club.client.get(f"/v1/proofs/inclusion?index=0&size={size + 1000}",
                              headers=club.treasurer)
    consistency = club.client.get(f"/v1/proofs/consistency?from=1&to={size + 1000}",
                                  headers=club.treasurer)

    assert "fewer than" in problem(refused, 409)["detail"]
    problem(consistency, 409)


def test_proofs_need_a_staff_or_player_token(club: Club) -> None:
    path = "/v1/proofs/consistency?from=0&to=0"

    problem(club.client.get(path), 401)
    problem(club.client.get(path, headers=witness_token(club)), 403)
    assert ok(club.client.get(path, headers=club.operator))["proof"] == []


# --- cosignatures --------------------------------------------------------------------------

def cosigned(club: Club, witness: Signer, size: int, text: str, when: int) -> dict[str, Any]:
    return {"size": size, "cosignature": cosign(text, witness, when).line.rstrip("\n"),
            "vkey": witness.verifier.vkey}


def test_a_witness_cosignature_is_carried_by_the_note_from_then_on(club: Club) -> None:
    checkpoint, _ = open_checkpoint(latest(club, beyond=settle_a_deal(club))["note"],
                                    log_key(club))
    witness = Signer.generate("committee.example/ann", COSIGNATURE_V1)
    token = witness_token(club)

    first = ok(club.client.post("/v1/checkpoints/cosignatures", headers=token, json=cosigned(
        club, witness, checkpoint.size, checkpoint.text, 1_700_000_000)), 201)
    later = ok(club.client.post("/v1/checkpoints/cosignatures", headers=token, json=cosigned(
        club, witness, checkpoint.size, checkpoint.text, 1_700_000_100)), 201)
    served = club.client.get("/v1/checkpoints/latest").get_data(as_text=True)

    lines = served.splitlines()
    assert served == later["note"] and first["note"] != later["note"]
    assert [line.split()[1] for line in lines[4:]] == [log_key(club).name, witness.name]
    witness_key = Verifier.parse(witness.verifier.vkey, kind=COSIGNATURE_V1)
    assert cosignature_time(checkpoint.text, Signature.parse(lines[-1]), witness_key) \
        == 1_700_000_100  # one line a witness: the newest
    open_checkpoint(served, log_key(club))  # the log's signature still verifies


def test_a_cosignature_that_does_not_verify_is_refused(club: Club) -> None:
    checkpoint, _ = open_checkpoint(latest(club, beyond=settle_a_deal(club))["note"],
                                    log_key(club))
    witness = Signer.generate("committee.example/ann", COSIGNATURE_V1)
    impostor = Signer.generate("committee.example/ann", COSIGNATURE_V1)
    token = witness_token(club)
    other_text = checkpoint.text.replace(f"\n{checkpoint.size}\n", f"\n{checkpoint.size + 1}\n")

    by_another_key = {**cosigned(club, impostor, checkpoint.size, checkpoint.text, 1),
                      "vkey": witness.verifier.vkey}
    of_another_tree = cosigned(club, witness, checkpoint.size, other_text, 1)
    unknown_size = cosigned(club, witness, checkpoint.size + 7, checkpoint.text, 1)
    dated_ahead = cosigned(club, witness, checkpoint.size, checkpoint.text,
                           int(time.time()) + 3600)

    post = club.client.post
    assert "refused" in problem(post("/v1/checkpoints/cosignatures", headers=token,
                                     json=by_another_key), 422)["detail"]
    problem(post("/v1/checkpoints/cosignatures", headers=token, json=of_another_tree), 422)
    problem(post("/v1/checkpoints/cosignatures", headers=token, json=unknown_size), 404)
    assert "future" in problem(post("/v1/checkpoints/cosignatures", headers=token,
                                    json=dated_ahead), 422)["detail"]
    assert club.client.get("/v1/checkpoints/latest").get_data(as_text=True).count("\u2014") == 1


def test_only_a_witness_token_posts_cosignatures(club: Club) -> None:
    checkpoint, _ = open_checkpoint(latest(club, beyond=settle_a_deal(club))["note"],
                                    log_key(club))
    body = cosigned(club, Signer.generate("w", COSIGNATURE_V1), checkpoint.size,
                    checkpoint.text, 1)
    pat = club.player("Pat", 0)

    for headers in (club.treasurer, club.operator, pat.headers):
        problem(club.client.post("/v1/checkpoints/cosignatures", headers=headers, json=body),
                403)
    problem(club.client.post("/v1/checkpoints/cosignatures", json=body), 401)


# --- the witness role may do nothing else ----------------------------------------------------

PUBLIC = {"/v1/checkpoints", "/v1/checkpoints/latest", "/v1/checkpoints/key",
          "/v1/health/ready", "/openapi.json", "/docs", "/docs/assets/<path:name>", "/"}
# The queries an endpoint cannot be asked without (a malformed query is 400 before any role).
QUERIES = {"/v1/proofs/inclusion": "?index=0&size=1", "/v1/proofs/consistency": "?from=0&to=1"}


def _filled(rule: str) -> str:
    """A path of the rule, its parts filled with ids of nothing (the role is checked first)."""
    import re

    return re.sub(r"<(?:(\w+):)?\w+>", lambda m: {"int": "1", "path": "x"}.get(
        m.group(1) or "", "5d3f3b86-8a4e-4d0c-9d43-2f1c7d8f6a10"), rule)


def test_a_witness_token_is_refused_by_every_other_endpoint(club: Club,
                                                           signing_app: Flask) -> None:
    token = witness_token(club)
    refused, reached = [], []

    for rule in signing_app.url_map.iter_rules():
        if not rule.rule.startswith("/v1/") or rule.rule in PUBLIC \
                or rule.endpoint == "checkpoints.cosign_checkpoint":
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            answer = club.client.open(_filled(rule.rule) + QUERIES.get(rule.rule, ""),
                                      method=method, json={}, headers=token)
            (refused if answer.status_code == 403 else reached).append(
                f"{method} {rule.rule}: {answer.status_code}")

    assert reached == [] and len(refused) > 40, reached


def test_a_witness_signed_in_to_the_pages_sees_none_of_them(club: Club,
                                                           signing_app: Flask) -> None:
    from tests.api.helpers import send_sign_in

    browser = signing_app.test_client()
    send_sign_in(browser, witness_token(club)["Authorization"].split()[1])
    pages = [r.rule for r in signing_app.url_map.iter_rules()
             if r.rule.startswith("/web/") and "GET" in (r.methods or set())
             and not r.rule.startswith(("/web/sign-", "/web/static"))]

    shown = {page: browser.get(_filled(page)).status_code for page in pages}

    assert shown and set(shown.values()) == {403}, shown


def test_every_page_shows_the_verifier_key_in_its_footer(club: Club, signing_app: Flask) -> None:
    from tests.api.helpers import send_sign_in
    from tests.conftest import TREASURER_TOKEN

    browser = signing_app.test_client()
    send_sign_in(browser, TREASURER_TOKEN)

    home = browser.get("/web/").get_data(as_text=True)
    sign_in = signing_app.test_client().get("/web/sign-in").get_data(as_text=True)

    vkey = log_key(club).vkey
    assert f'<code class="vkey">{vkey}</code>' in home
    assert vkey in sign_in


def test_a_cosignature_sent_again_with_its_idempotency_key_changes_nothing(club: Club) -> None:
    """API.md: every POST accepts an Idempotency-Key; the same key with another body is 422."""
    checkpoint, _ = open_checkpoint(latest(club, beyond=settle_a_deal(club))["note"],
                                    log_key(club))
    witness = Signer.generate("committee.example/ann", COSIGNATURE_V1)
    headers = {**witness_token(club), "Idempotency-Key": "night-1"}
    body = cosigned(club, witness, checkpoint.size, checkpoint.text, 1_700_000_000)
    other = cosigned(club, witness, checkpoint.size, checkpoint.text, 1_700_000_500)

    first = ok(club.client.post("/v1/checkpoints/cosignatures", headers=headers, json=body),
               201)
    again = ok(club.client.post("/v1/checkpoints/cosignatures", headers=headers, json=body),
               201)
    refused = club.client.post("/v1/checkpoints/cosignatures", headers=headers, json=other)

    assert again == first
    assert "another request" in problem(refused, 422)["detail"]
    assert club.client.get("/v1/checkpoints/latest").get_data(as_text=True) == first["note"]


def test_a_hand_history_carries_the_signed_checkpoint_and_each_events_inclusion_proof(
        club: Club) -> None:
    """Issue 26: once a checkpoint covers a settled deal, its hand history holds that signed
    note and an RFC 6962 inclusion proof for every event, which the reference checker of
    the page /verify/ accepts against the published key; one hash changed in a proof fails."""
    played = game(club, top=("10H", "10S", "10D", "9H", "7S", "8D"))
    played.stakes()
    played.act(played.pat, "stick")
    played.act(played.quinn, "stick")
    settled = played.act(played.banker, "stay")
    latest(club, beyond=int(settled["position"]))
    vkey = ok(club.client.get("/v1/checkpoints/key"))["vkey"]

    history = ok(club.client.get(f"/v1/deals/{settled['id']}/history?min_position="
                                 f"{settled['position']}", headers=club.treasurer))
    checked = ref.check(history, vkey)
    forged = ref.check(ref.forged(history, "a proof with one hash changed"), vkey)

    assert history["checkpoint"] == ok(club.client.get("/v1/checkpoints/latest", headers=JSON)
                                       )["note"]
    assert sorted(p["index"] for p in history["inclusion"]) == \
        sorted(e["index"] for e in history["events"])
    assert (checked["events"], checked["signature"], checked["inclusion"]) == \
        (ref.PASS, ref.PASS, ref.PASS)
    assert forged["inclusion"] == ref.FAIL


def test_the_logs_origin_is_the_clubs_name_and_stays_when_the_club_is_renamed(
        club: Club) -> None:
    """API.md: the origin defaults to the club's name; decision 131: once checkpoints carry
    an origin it stays, so renaming the club never makes the log look new to its witnesses."""
    ok(club.client.patch("/v1/club", json={"name": "Friday Pontoon Society"},
                         headers=club.treasurer))
    first = latest(club, beyond=settle_a_deal(club))
    ok(club.client.patch("/v1/club", json={"name": "The Saturday Club"},
                         headers=club.treasurer))
    time.sleep(1.1)  # at most one checkpoint a second

    second = latest(club, beyond=settle_a_deal(club))

    assert first["origin"] == second["origin"] == "Friday Pontoon Society"
    assert second["size"] > first["size"]
    assert second["note"].startswith("Friday Pontoon Society\n")
