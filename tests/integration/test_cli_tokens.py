"""`pontoon tokens list|revoke|create --label --expires-at [--player]` on each store, and
the local treasurer token `make run` reuses (`pontoon serve --print-treasurer-token`)
instead of minting a new permanent one at every start."""

from __future__ import annotations

import stat
from pathlib import Path

from application import Ledger
from cli.service import local_treasurer_token
from config import Settings
from tests.integration.projection_session import pontoon


def test_tokens_are_listed_and_revoked_from_the_shell(store_settings: Settings,
                                                      ledger: Ledger, tmp_path: Path) -> None:
    """The list shows each token's id, role and label, never the token; a revoked token is
    refused from then on."""
    made = pontoon(store_settings, "tokens", "create", "--role", "operator", "--label",
                   "door staff", "--expires-at", "2999-01-01T00:00:00+00:00", cwd=tmp_path)
    token = made.stdout.strip()
    found = ledger.principal(token)
    assert found is not None

    listed = pontoon(store_settings, "tokens", "list", cwd=tmp_path)
    revoked = pontoon(store_settings, "tokens", "revoke", found.principal_id, cwd=tmp_path)
    unknown = pontoon(store_settings, "tokens", "revoke", "no-such-token", cwd=tmp_path)

    assert made.returncode == listed.returncode == revoked.returncode == 0, \
        made.stderr + listed.stderr + revoked.stderr
    assert found.principal_id in listed.stdout and "door staff" in listed.stdout
    assert "2999-01-01" in listed.stdout and token not in listed.stdout
    again = ledger.principal(token)
    assert again is not None and again.revoked
    assert unknown.returncode == 1 and "there is no token no-such-token" in unknown.stderr


def test_a_player_gets_another_token_from_the_shell_by_id_or_by_name(
        store_settings: Settings, ledger: Ledger, tmp_path: Path) -> None:
    """Decision 141: `--role player --player` takes an id or a name only one player has
    (any case); each token made signs in as that player, the others keep working."""
    nora = str(ledger.register_player("Nora Quinn", with_token=True).result["id"])
    first = ledger.create_token("player", player_id=nora).result["token"]

    by_name = pontoon(store_settings, "tokens", "create", "--role", "player", "--player",
                      "nora quinn", "--label", "phone", cwd=tmp_path)
    by_id = pontoon(store_settings, "tokens", "create", "--role", "player", "--player", nora,
                    cwd=tmp_path)

    assert by_name.returncode == by_id.returncode == 0, by_name.stderr + by_id.stderr
    tokens = [by_name.stdout.strip(), by_id.stdout.strip(), first]
    assert len(set(tokens)) == 3
    for token in tokens:
        held = ledger.principal(token)
        assert held is not None and (held.role, held.player_id, held.revoked) == (
            "player", nora, False)
    labelled = ledger.principal(tokens[0])
    assert labelled is not None and labelled.label == "phone"


def test_a_player_name_several_players_share_is_refused_naming_them(
        store_settings: Settings, ledger: Ledger, tmp_path: Path) -> None:
    twins = [str(ledger.register_player("Sam").result["id"]) for _ in range(2)]

    shared = pontoon(store_settings, "tokens", "create", "--role", "player", "--player", "Sam",
                     cwd=tmp_path)
    nobody = pontoon(store_settings, "tokens", "create", "--role", "player", "--player",
                     "Nobody", cwd=tmp_path)
    unknown = pontoon(store_settings, "tokens", "create", "--role", "player", "--player",
                      "6a1d0b2e-0000-4000-8000-000000000000", cwd=tmp_path)

    assert shared.returncode == nobody.returncode == 2 and shared.stdout == ""
    assert "2 players are named 'Sam'" in shared.stderr
    assert all(twin in shared.stderr for twin in twins)
    assert "0 players are named 'Nobody'" in nobody.stderr
    assert unknown.returncode == 1 and "there is no player" in unknown.stderr


def test_the_local_treasurer_token_is_kept_private_and_reused(store_settings: Settings,
                                                              tmp_path: Path) -> None:
    """`make run` starts twice: the second start reuses the token of the first, kept in a
    file only its owner may read."""
    path = tmp_path / "var" / "treasurer-token"

    first, made = local_treasurer_token(store_settings, path)
    second, made_again = local_treasurer_token(store_settings, path)

    assert made and not made_again
    assert first == second and path.read_text().strip() == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_revoked_local_treasurer_token_is_replaced(store_settings: Settings,
                                                     ledger: Ledger, tmp_path: Path) -> None:
    path = tmp_path / "treasurer-token"
    old, _ = local_treasurer_token(store_settings, path)
    ledger.create_token("treasurer", token=old)  # the service adopts it at start
    adopted = ledger.principal(old)
    assert adopted is not None
    ledger.revoke_token(adopted.id, adopted.principal_id)

    new, made = local_treasurer_token(store_settings, path)

    assert made and new != old and path.read_text().strip() == new
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
