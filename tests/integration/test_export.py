"""`pontoon export` (a real subprocess): CSV for treasurers of statements, balances and kitty
history over a period (`--from` inclusive, `--to` exclusive; balances as of `--to`)."""

from __future__ import annotations

import csv
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from application import Ledger
from domain.engine.postings import reason_in_words
from projections.export import NAMED
from projections.statements import COLUMNS
from tests.integration.projection_session import (
    Session,
    aggregate_balances,
    entries_of,
    play_session,
    pontoon,
)

# The last column: whether a deal's entry came from a fair shuffle (false at an ordered
# table, API.md Additions), empty for an entry of no deal.
HEADER = [*(c.strip() for c in COLUMNS.split(",")), "fair_shuffle"]


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def expected_entries(ledger: Ledger, accounts: list[str], start: datetime, end: datetime
                     ) -> list[list[str]]:
    """Every entry of these accounts in [start, end), from the accounts' own events, in log
    order, as the CSV writes them."""
    rows = []
    for account in accounts:
        for position, event in entries_of(ledger, account):
            if not start <= event.timestamp < end:
                continue
            credit = type(event).__name__ == "Credited"
            rows.append((position, account, [
                account, position, event.posting_id, _iso(event.timestamp),
                event.amount if credit else -event.amount, event.balance_after,
                event.from_account, event.to_account, event.amount, event.rule,
                reason_in_words(event.reason, event.hand),  # hands from 1 (decision 144)
                event.deal_id, event.table_id, event.hand, fair_shuffle(ledger, event)]))
    return [[_cell(v) for v in row] for _, _, row in sorted(rows, key=lambda r: r[:2])]


def fair_shuffle(ledger: Ledger, event: Any) -> str:
    if not event.deal_id:
        return ""
    table_id = event.table_id or ledger.deal(event.deal_id).engine.table_id  # corrections
    return "false" if ledger.table(table_id).engine.pack_mode == "ordered" else "true"


def read_csv(path: Path) -> list[list[str]]:
    """The rows, without the name columns that follow the ids (checked on their own); the
    log's checkpoint (R11.4) is beside the file, never a row of it (decision 147)."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert not any(row and row[0].startswith("#") for row in rows), rows[-1]
    assert len(Path(f"{path}.checkpoint").read_text().split()) == 2
    if rows and rows[0][:len(HEADER)] == HEADER:
        assert rows[0][len(HEADER):] == list(NAMED)
        return [row[:len(HEADER)] for row in rows]
    return rows


@pytest.fixture
def period(ledger) -> tuple[Session, datetime]:
    """The session, then (in a later second) Ann buys 7 chips and cashes out 3, and Pat, the
    banker, tops up the kitty by 4 (R9.9). Returns the second that divides them."""
    session = play_session(ledger)
    boundary = (datetime.now(UTC) + timedelta(seconds=1)).replace(microsecond=0)
    time.sleep(max((boundary - datetime.now(UTC)).total_seconds() + 0.01, 0))
    ledger.buy_in(session.ids["Ann"], 7)
    ledger.cash_out(session.ids["Ann"], 3)
    ledger.put_up_kitty(session.table_id, session.ids["Pat"], 4)
    return session, boundary


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def test_statements_export_lists_every_players_entry_in_the_period(
        store_settings, ledger, tmp_path, period):
    """R11: `--kind statements` writes the header and every player's entries in
    [--from, --to) with running balances, rule and reason, in log order; the periods before
    and after the dividing second split them."""
    session, boundary = period
    players = [session.account(name) for name in session.ids]
    epoch, far = datetime(1970, 1, 1, tzinfo=UTC), datetime(9999, 1, 1, tzinfo=UTC)

    after = pontoon(store_settings, "export", "--kind", "statements", "--from", stamp(boundary),
                    "--output", str(tmp_path / "after.csv"), cwd=tmp_path)
    before = pontoon(store_settings, "export", "--kind", "statements", "--to", stamp(boundary),
                     "--output", str(tmp_path / "before.csv"), cwd=tmp_path)

    assert after.returncode == 0, after.stderr
    assert before.returncode == 0, before.stderr
    late, early = read_csv(tmp_path / "after.csv"), read_csv(tmp_path / "before.csv")
    assert late[0] == HEADER and early[0] == HEADER
    assert late[1:] == expected_entries(ledger, players, boundary, far)
    assert early[1:] == expected_entries(ledger, players, epoch, boundary)
    assert [(row[0], row[4], row[9]) for row in late[1:]] == [
        (session.account("Ann"), "7", "R11.1"), (session.account("Ann"), "-3", "R11.1"),
        (session.account("Pat"), "-4", "R9.9")]
    assert "wrote 3 rows" in after.stdout
    assert len(early) - 1 > 40


def test_kitty_export_lists_the_kittys_entries_in_the_period(
        store_settings, ledger, tmp_path, period):
    """R9: `--kind kitty` writes the kitty history of every table for the period."""
    session, boundary = period

    exported = pontoon(store_settings, "export", "--kind", "kitty", "--to", stamp(boundary),
                       "--output", str(tmp_path / "kitty.csv"), cwd=tmp_path)
    late = pontoon(store_settings, "export", "--kind", "kitty", "--from", stamp(boundary),
                   "--output", str(tmp_path / "late.csv"), cwd=tmp_path)

    assert exported.returncode == 0, exported.stderr
    assert late.returncode == 0, late.stderr
    rows = read_csv(tmp_path / "kitty.csv")
    assert rows[0] == HEADER
    assert rows[1:] == expected_entries(ledger, [session.kitty], datetime(1970, 1, 1, tzinfo=UTC),
                                        boundary)
    assert [row[9] for row in rows[1:]] == [
        "R9.1", "R9.7", "R9.9", "R9.8", "R9.11", "R9.1", "R9.8", "R11.4"]
    assert [(row[0], row[4], row[5], row[9]) for row in read_csv(tmp_path / "late.csv")[1:]] \
        == [(session.kitty, "4", "7", "R9.9")]


def test_balances_export_is_every_account_as_of_the_end_of_the_period_summing_to_zero(
        store_settings, ledger, tmp_path, period):
    """R11.1: `--kind balances --to T` writes every account (players, treasury, kitties and
    deals' escrows) with its balance as of T; they sum to zero, the open deal's escrow
    holding Cat's stake of 2."""
    session, boundary = period
    now = aggregate_balances(ledger)
    late = {session.account("Ann"): 4, session.kitty: 4, session.account("Pat"): -4,
            "treasury": -4}
    as_of = {account: balance - late.get(account, 0) for account, balance in now.items()}

    exported = pontoon(store_settings, "export", "--kind", "balances", "--to", stamp(boundary),
                       "--output", str(tmp_path / "balances.csv"), cwd=tmp_path)

    assert exported.returncode == 0, exported.stderr
    rows = read_csv(tmp_path / "balances.csv")
    assert rows[0] == ["account", "kind", "name", "balance", "as_of"]
    assert {row[4] for row in rows[1:]} == {_iso(boundary)}
    exported_balances = {row[0]: int(row[3]) for row in rows[1:]}
    assert {row[0]: row[2] for row in rows[1:] if row[1] == "player"} == {
        session.account(name): name for name in session.ids}
    held = {account: balance for account, balance in as_of.items()
            if not (account.startswith("escrow:") and balance == 0)}
    assert exported_balances == held
    assert exported_balances[f"escrow:{session.open_deal}"] == 2
    kinds = [row[1] for row in rows[1:]]
    assert kinds == sorted(kinds, key=["player", "kitty", "treasury", "escrow"].index)
    assert sum(exported_balances.values()) == 0
