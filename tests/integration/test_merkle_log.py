"""The Merkle log, its signed checkpoints and `pontoon verify` of both (API.md, "Proofs
anyone can check"), on both stores: the tree is the recorded event hashes' RFC 6962 tree
after every page, checkpoints follow settled deals and never sign a rewritten history,
and verify holds the tree to the chain and a signed checkpoint to the log."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from application import Ledger
from config import Settings
from domain.aggregates import Account
from domain.merkle import event_leaf, range_hash, verify_consistency
from projections import proofs
from projections.checkpoints import Checkpointer, latest_row
from projections.merkle import MerkleLog
from projections.notes import Checkpoint, Signer, open_checkpoint
from projections.runner import Projections
from projections.signing_key import load_key
from projections.store import ReadStore, read_store
from tests.integration.ledger_views import notifications, topic
from tests.integration.projection_session import (
    PONTOON,
    Session,
    play_session,
    pontoon_env,
    rewrite_event,
)
from tests.integration.signing import with_signing_key
from tests.integration.tampering import delete_event, recompute_every_hash
from verification.verify import verify


@dataclass
class Club:
    settings: Settings
    ledger: Ledger
    session: Session
    store: ReadStore
    runner: Projections
    signer: Signer

    @property
    def merkle(self) -> MerkleLog:
        return next(m for m in self.runner.models if isinstance(m, MerkleLog))

    def leaves(self) -> list[bytes]:
        return [event_leaf(r.position, r.event_hash)
                for r in self.ledger.recorder.select_hashes(0, None)]

    def checkpointer(self, **timing: float) -> Checkpointer:
        return Checkpointer(self.store, self.settings, self.merkle, **timing)

    def signed(self) -> Checkpoint:
        row = latest_row(self.store)
        assert row is not None
        return open_checkpoint(row["note"], self.signer.verifier)[0]

    def rewrite_history(self) -> None:
        """What an intruder with the database does: an early entry changed, every hash
        computed again, the read models rebuilt from the rewritten log."""
        first_credit = next(n for n in notifications(self.ledger, topics=[topic(
            Account.Credited)]))
        rewrite_event(self.settings, first_credit, lambda s: s.update(reason="rewritten"))
        recompute_every_hash(self.settings)
        self.runner.rebuild()


@pytest.fixture
def club(store_settings: Settings, ledger: Ledger, tmp_path: Path) -> Club:
    settings = with_signing_key(store_settings, tmp_path)
    session = play_session(ledger)
    store = read_store(ledger, settings)
    assert store is not None
    runner = Projections(ledger, store, page=7)
    runner.catch_up()
    signer = load_key(settings)
    assert signer is not None
    return Club(settings, ledger, session, store, runner, signer)


def test_the_merkle_log_is_the_tree_of_the_recorded_event_hashes(club: Club) -> None:
    leaves = club.leaves()
    rows = club.store.rows("SELECT idx, position FROM merkle_leaves ORDER BY idx")

    assert [(r["idx"], r["position"]) for r in rows] == \
        [(i, r.position) for i, r in enumerate(club.ledger.recorder.select_hashes(0, None))]
    for size in range(1, len(leaves) + 1):
        assert proofs.root(club.store, size) == range_hash(leaves, 0, size)
    assert club.merkle.settled.is_set()  # the session settled deals


def test_a_checkpoint_signs_the_tree_and_the_next_one_extends_it(club: Club) -> None:
    first = club.checkpointer().make(club.signer)
    unchanged = club.checkpointer().make(club.signer)
    club.ledger.buy_in(club.session.ids["Ann"], 5)
    club.runner.catch_up()
    second = club.checkpointer().make(club.signer)

    assert first is not None and second is not None and unchanged is None
    assert second["size"] == first["size"] + 1 == len(club.leaves())
    assert club.signed().root == second["root"] == proofs.root(club.store, second["size"])
    verify_consistency(first["size"], second["size"], first["root"], second["root"],
                       proofs.consistency(club.store, first["size"], second["size"]))


def test_the_service_never_signs_a_history_rewritten_under_its_checkpoint(club: Club) -> None:
    checkpointer = club.checkpointer()
    sealed = checkpointer.make(club.signer)
    club.rewrite_history()
    club.ledger.buy_in(club.session.ids["Ann"], 5)
    club.runner.catch_up()

    refused = checkpointer.make(club.signer)

    assert sealed is not None and refused is None
    assert latest_row(club.store)["size"] == sealed["size"]  # type: ignore[index]
    assert "rewritten" in (checkpointer.refused or "")


@pytest.fixture
def following(club: Club) -> Iterator[Checkpointer]:
    """The checkpointer running as the elected process runs it, on a fresh Merkle log."""
    club.store.clear(["merkle_leaves"], [club.merkle.tracking_name])
    club.merkle.settled.clear()
    checkpointer = club.checkpointer(spacing=1.0, quiet=3.0)
    stop = threading.Event()
    thread = threading.Thread(target=checkpointer.run, args=(stop,))
    thread.start()
    yield checkpointer
    stop.set()
    thread.join(timeout=10)


def _wait_for(check: Any, seconds: float) -> Any:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if found := check():
            return found
        time.sleep(0.05)
    return None


def test_a_settled_deal_is_sealed_at_once_other_events_after_a_quiet_spell(
        club: Club, following: Checkpointer) -> None:
    time.sleep(0.3)  # the first pass finds an empty tree: nothing to seal
    club.runner.catch_up()  # pages that settle deals, the last of them late in the log
    session = len(club.leaves())
    sealed = _wait_for(lambda: (r := latest_row(club.store)) and r["size"] == session and r,
                       3.0)
    club.ledger.buy_in(club.session.ids["Ann"], 5)
    club.runner.catch_up()
    early = _wait_for(lambda: (latest_row(club.store) or {}).get("size", 0) > sealed["size"],
                      1.5)
    later = _wait_for(lambda: (r := latest_row(club.store)) and r["size"] > sealed["size"]
                      and r, 10.0)

    assert sealed is not None
    assert early is None  # a buy-in alone waits for the quiet spell
    assert later and later["size"] == len(club.leaves())


def test_at_most_one_checkpoint_a_second(club: Club, following: Checkpointer) -> None:
    club.runner.catch_up()
    first = _wait_for(lambda: latest_row(club.store), 3.0)
    club.ledger.buy_in(club.session.ids["Ann"], 5)
    club.runner.catch_up()
    club.merkle.settled.set()  # as if that page had settled a deal
    second = _wait_for(lambda: (r := latest_row(club.store)) and r["size"] > first["size"]
                       and r, 5.0)

    made = [datetime.fromisoformat(r["made_at"]) for r in (first, second)]
    assert (made[1] - made[0]).total_seconds() >= 1.0


# --- verify --------------------------------------------------------------------------------

def test_verify_holds_the_merkle_log_to_the_chain_and_names_a_changed_leaf(club: Club) -> None:
    honest = verify(club.ledger, store=club.store)
    club.store.run([("UPDATE merkle_leaves SET hashes = %s WHERE idx = 3", (bytes(32),))])

    changed = verify(club.ledger, store=club.store)

    assert honest.ok, honest.failures
    assert any("leaf 3 " in f and "rebuild" in f for f in changed.failures), changed.failures


def test_verify_checks_a_signed_checkpoint_against_the_log(club: Club) -> None:
    club.checkpointer().make(club.signer)
    signed = club.signed()

    honest = verify(club.ledger, signed=signed)
    club.rewrite_history()
    rewritten = verify(club.ledger, store=club.store, signed=signed)
    plain = verify(club.ledger, store=club.store)

    assert honest.ok, honest.failures
    assert plain.ok, plain.failures  # every chain recomputed: only the signature sees it
    assert any(f"signed checkpoint {signed.size}" in f and "changed, inserted or deleted" in f
               for f in rewritten.failures), rewritten.failures


def test_verify_names_the_newest_events_deleted_below_a_signed_checkpoint(club: Club) -> None:
    club.checkpointer().make(club.signer)
    signed = club.signed()
    last = club.ledger.recorder.select_hashes(0, None)[-1]
    delete_event(club.settings, last.originator_id, last.originator_version)

    report = verify(club.ledger, signed=signed)

    assert any("fewer than the checkpoint signed" in f for f in report.failures), \
        report.failures


# --- from the shell ------------------------------------------------------------------------

def _pontoon(club: Club, *args: str, cwd: Path, stdin: str | None = None
             ) -> subprocess.CompletedProcess[str]:
    env = {**pontoon_env(club.settings),
           "PONTOON_SIGNING_KEY_FILE": club.settings.signing_key_file}
    return subprocess.run([str(PONTOON), *args], env=env, cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)


def test_pontoon_verify_takes_a_signed_note_checked_by_the_services_key(
        club: Club, tmp_path: Path) -> None:
    club.checkpointer().make(club.signer)
    note = latest_row(club.store)["note"]  # type: ignore[index]
    (tmp_path / "note").write_text(note)
    stranger = Signer.generate(club.signer.name).verifier.vkey

    passed = _pontoon(club, "verify", "--checkpoint", str(tmp_path / "note"), cwd=tmp_path)
    from_stdin = _pontoon(club, "verify", "--checkpoint", "-", "--vkey",
                          club.signer.verifier.vkey, cwd=tmp_path, stdin=note)
    other_key = _pontoon(club, "verify", "--checkpoint", note, "--vkey", stranger,
                         cwd=tmp_path)
    club.rewrite_history()
    rewritten = _pontoon(club, "verify", "--checkpoint", note, cwd=tmp_path)

    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "the log extends checkpoint" in passed.stdout
    assert from_stdin.returncode == 0, from_stdin.stdout + from_stdin.stderr
    assert other_key.returncode == 2 and "no signature of the key" in other_key.stderr
    assert rewritten.returncode == 1 and "signed checkpoint" in rewritten.stdout


def test_pontoon_migrate_makes_the_signing_key_once_and_never_in_the_store(
        store_settings: Settings, tmp_path: Path) -> None:
    env = {**pontoon_env(store_settings),
           "PONTOON_SIGNING_KEY_FILE": str(tmp_path / "keys" / "signing-key")}

    runs = [subprocess.run([str(PONTOON), "migrate"], env=env, cwd=tmp_path, text=True,
                           capture_output=True, timeout=120, check=False) for _ in range(2)]
    key = tmp_path / "keys" / "signing-key"

    assert [r.returncode for r in runs] == [0, 0], runs
    assert oct(os.stat(key).st_mode & 0o777) == "0o600"
    signer = Signer.parse(key.read_text())
    assert "new" in runs[0].stdout and "new" not in runs[1].stdout
    assert all(signer.verifier.vkey in r.stdout.replace("\n", "") for r in runs)
    os.chmod(key, 0o644)
    exposed = subprocess.run([str(PONTOON), "migrate"], env=env, cwd=tmp_path, text=True,
                             capture_output=True, timeout=120, check=False)
    assert exposed.returncode == 1 and "chmod 600" in exposed.stderr
