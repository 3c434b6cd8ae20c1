"""`pontoon witness` (cli/witness.py) against the service, on both stores: it accepts a log
that grew, cosigns each checkpoint it accepts, and refuses, keeping its state, a log
rewritten in the database with its chains recomputed and its checkpoint signed again by
the service's own key (an operator who holds both)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click import ClickException
from click.testing import CliRunner
from flask import Flask
from werkzeug.serving import make_server

from application.store import build_ledger
from cli.main import main
from cli.witness import Refused, witness_once
from config import Settings
from domain.aggregates import Account
from projections.notes import COSIGNATURE_V1, Signature, Signer, Verifier, cosignature_time
from projections.notes import Checkpoint as SignedCheckpoint
from projections.runner import Projections
from projections.store import read_store
from tests.api.helpers import Club, build_app, close_app, eventually, game, ok
from tests.integration.ledger_views import notifications, topic
from tests.integration.projection_session import rewrite_event
from tests.integration.signing import ClientTransport, with_signing_key
from tests.integration.tampering import recompute_every_hash


@dataclass
class Served:
    settings: Settings
    app: Flask
    club: Club
    vkey: str
    tokens: dict[str, str]  # the witness's own token, and a player's to read proofs

    def checkpoint(self, beyond: int | None = None) -> SignedCheckpoint:
        """The latest checkpoint, once its tree holds more than `beyond` leaves (by default:
        every event recorded so far)."""
        if beyond is None:
            ledger = self.app.extensions["pontoon"].ledger
            beyond = len(ledger.recorder.select_hashes(0, None)) - 1
        from projections.notes import open_checkpoint

        def found() -> SignedCheckpoint | None:
            answer = self.club.client.get("/v1/checkpoints/latest")
            if answer.status_code != 200:
                return None
            signed = open_checkpoint(answer.get_data(as_text=True), Verifier.parse(self.vkey))
            return signed[0] if signed[0].size > beyond else None
        return eventually(found, f"a checkpoint of more than {beyond} leaves")  # type: ignore[no-any-return]

    def settle_a_deal(self) -> None:
        played = game(self.club, top=("10H", "10S", "10D", "9H", "7S", "8D"))
        played.stakes()
        played.act(played.pat, "stick")
        played.act(played.quinn, "stick")
        played.act(played.banker, "stay")

    def witness(self, tmp_path: Path, **options: Any) -> list[str]:
        return witness_once(ClientTransport(self.club.client), self.vkey, tmp_path / "state",
                            tmp_path / "witness-key", read_token=self.tokens["read"],
                            witness_token=self.tokens["witness"], name="committee/ann",
                            **options)


def _serve(settings: Settings) -> tuple[Flask, Club, str]:
    app = build_app(settings)
    club = Club(app.test_client())
    return app, club, ok(club.client.get("/v1/checkpoints/key"))["vkey"]


@pytest.fixture
def served(store_settings: Settings, tmp_path: Path) -> Iterator[Served]:
    settings = with_signing_key(store_settings, tmp_path)
    app, club, vkey = _serve(settings)
    witness = ok(club.client.post("/v1/tokens", json={"role": "witness"},
                                  headers=club.treasurer), 201)["token"]
    state = Served(settings, app, club, vkey,
                   {"witness": witness, "read": club.player("Ann", 0).token})
    yield state
    close_app(state.app)


def rewrite_and_sign_again(served: Served) -> None:
    """The operator stops the service, rewrites an early entry, recomputes every hash,
    rebuilds the read models, drops the checkpoints that would betray it, and starts the
    service again, which signs the rewritten tree with its own key."""
    close_app(served.app)
    ledger = build_ledger(served.settings)
    try:
        entry = next(iter(notifications(ledger, topics=[topic(Account.Credited)])))
        rewrite_event(served.settings, entry, lambda s: s.update(reason="a quiet rewrite"))
        recompute_every_hash(served.settings)
        store = read_store(ledger, served.settings)
        assert store is not None
        Projections(ledger, store).rebuild()
        store.run([("DELETE FROM checkpoint_cosignatures", ()), ("DELETE FROM checkpoints", ())])
    finally:
        ledger.close()
    served.app, served.club, _ = _serve(served.settings)


def test_a_witness_accepts_a_growing_log_and_cosigns_each_checkpoint(
        served: Served, tmp_path: Path) -> None:
    served.settle_a_deal()
    first = served.checkpoint()
    said_first = served.witness(tmp_path)
    served.settle_a_deal()
    second = served.checkpoint()
    said_second = served.witness(tmp_path)
    note = served.club.client.get("/v1/checkpoints/latest").get_data(as_text=True)

    witness = Signer.parse((tmp_path / "witness-key").read_text())
    assert witness.kind == COSIGNATURE_V1 and witness.name == "committee/ann"
    assert any("first run" in line for line in said_first)
    assert f"checkpoint {second.size} extends checkpoint {first.size}: consistent" \
        in said_second
    assert (tmp_path / "state").read_text().startswith(second.text)
    line = Signature.parse(note.splitlines()[-1])
    assert cosignature_time(second.text, line, Verifier.parse(witness.verifier.vkey,
                                                              kind=COSIGNATURE_V1)) > 0


def test_a_witness_refuses_a_log_rewritten_with_its_chains_recomputed(
        served: Served, tmp_path: Path) -> None:
    served.settle_a_deal()
    accepted = served.checkpoint()
    served.witness(tmp_path)
    kept = (tmp_path / "state").read_text()
    rewrite_and_sign_again(served)
    served.settle_a_deal()
    forged = served.checkpoint()

    with pytest.raises(Refused, match=f"does not extend the checkpoint {accepted.size}"):
        served.witness(tmp_path)

    assert forged.size > accepted.size
    assert (tmp_path / "state").read_text() == kept
    assert served.club.client.get("/v1/checkpoints/latest").get_data(
        as_text=True).count("\u2014") == 1  # nobody cosigned the rewritten log


def test_a_witness_refuses_a_checkpoint_signed_by_another_key(
        served: Served, tmp_path: Path) -> None:
    served.settle_a_deal()
    served.checkpoint()
    served.vkey = Signer.generate(Verifier.parse(served.vkey).name).verifier.vkey

    with pytest.raises(Refused, match="not signed by"):
        served.witness(tmp_path)

    assert not (tmp_path / "state").exists()


def test_pontoon_witness_exits_1_saying_what_it_saw_and_keeps_its_state(
        served: Served, tmp_path: Path) -> None:
    served.settle_a_deal()
    accepted = served.checkpoint()
    server = make_server("127.0.0.1", 0, served.app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    args = ["witness", "--url", url, "--vkey", served.vkey, "--state", str(tmp_path / "state"),
            "--key", str(tmp_path / "witness-key"), "--token", served.tokens["witness"],
            "--read-token", served.tokens["read"]]
    try:
        first = CliRunner().invoke(main, args)
    finally:
        server.shutdown()
    rewrite_and_sign_again(served)
    served.settle_a_deal()
    served.checkpoint()
    server = make_server("127.0.0.1", 0, served.app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    args[2] = f"http://127.0.0.1:{server.server_port}"
    try:
        refused = CliRunner().invoke(main, args)
    finally:
        server.shutdown()

    assert first.exit_code == 0, first.output
    assert "cosigned checkpoint" in first.output and "new witness key" in first.output
    assert refused.exit_code == 1, refused.output
    assert "REFUSED" in refused.output and f"checkpoint {accepted.size}" in refused.output
    assert "the state in" in refused.output and "is kept" in refused.output


def test_a_witness_without_a_player_token_cannot_read_proofs(
        served: Served, tmp_path: Path) -> None:
    served.settle_a_deal()
    served.checkpoint()
    served.witness(tmp_path)
    served.settle_a_deal()
    served.checkpoint()
    served.tokens["read"] = served.tokens["witness"]

    with pytest.raises(ClickException, match="403"):
        served.witness(tmp_path)


def test_pontoon_tokens_create_issues_a_witness_token(served: Served, tmp_path: Path) -> None:
    import subprocess

    from tests.integration.projection_session import PONTOON, pontoon_env

    made = subprocess.run([str(PONTOON), "tokens", "create", "--role", "witness"],
                          env=pontoon_env(served.settings), cwd=tmp_path, text=True,
                          capture_output=True, timeout=120, check=False)
    token = made.stdout.strip()

    assert made.returncode == 0, made.stderr
    listed = ok(served.club.client.get("/v1/tokens?limit=500", headers=served.club.treasurer))
    assert "witness" in {t["role"] for t in listed["items"]}
    refused = served.club.client.get("/v1/tables", headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 403
