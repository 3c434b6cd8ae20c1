"""The period report reads each account's balances at the period's ends and the treasury's
and kitties' own entries (decision 117), not every posting of the period: on a simulated
night (buy-ins, cash-outs, kitties, bank sales, disputes) it gives exactly what adding up
every posting of the period gives, for any period."""

from __future__ import annotations

from typing import Any

import pytest

from application.store import build_ledger
from config import Settings
from projections.report import period_report
from projections.runner import Projections
from projections.store import ReadStore, read_store
from tests.integration.test_rebuild_helper import played

# Each account's sums over every posting of a period: the report's definition.
EVERY_POSTING = (
    "SELECT account, SUM(change) AS change, "
    "SUM(CASE WHEN from_account = 'treasury' AND rule = 'R11.1' THEN amount ELSE 0 END) "
    "AS buy_ins, "
    "SUM(CASE WHEN to_account = 'treasury' AND rule = 'R11.1' THEN amount ELSE 0 END) "
    "AS cash_outs, "
    "SUM(CASE WHEN to_account LIKE 'kitty:%%' THEN amount ELSE 0 END) AS kitty_put_up, "
    "SUM(CASE WHEN from_account LIKE 'kitty:%%' THEN amount ELSE 0 END) AS kitty_won, "
    "SUM(CASE WHEN from_account = 'treasury' THEN amount ELSE 0 END) AS issued, "
    "SUM(CASE WHEN to_account = 'treasury' THEN amount ELSE 0 END) AS redeemed "
    "FROM postings WHERE account <> 'treasury' AND at >= %s AND at < %s GROUP BY account")


def every_posting(store: ReadStore, start: str, end: str) -> dict[str, dict[str, int]]:
    return {row["account"]: {k: int(v) for k, v in row.items() if k != "account"}
            for row in store.rows(EVERY_POSTING, (start, end))}


def held(store: ReadStore, moment: str) -> int:
    """Every chip in play then, stakes included: what the treasury had issued less what it
    had redeemed (R11.1)."""
    [row] = store.rows("SELECT COALESCE(SUM(change), 0) AS held FROM postings WHERE "
                       "account = 'treasury' AND at < %s", (moment,))
    return -int(row["held"])


LATER = "2100-01-01T00:00:00.000000+00:00"


@pytest.fixture
def night(store_settings: Settings) -> Any:
    played(store_settings)
    ledger = build_ledger(store_settings)
    store = read_store(ledger, store_settings)
    assert store is not None
    Projections(ledger, store).catch_up()
    [span] = store.rows("SELECT MIN(at) AS first, MAX(at) AS last FROM postings")
    yield store, str(span["first"]), str(span["last"])
    ledger.close()


def test_the_period_report_is_the_sum_of_every_posting_of_any_period(night: Any) -> None:
    store, first, _ = night
    middle = store.rows("SELECT at FROM postings ORDER BY position LIMIT 1 OFFSET "
                        "(SELECT COUNT(*) / 2 FROM postings)")[0]["at"]
    for start, end in ((first, LATER), (first, middle), (middle, LATER)):
        sums = every_posting(store, start, end)

        report = period_report(store, start, end)

        for row in report["items"]:
            want = sums.get(f"player:{row['player_id']}", {})
            assert row["net"] == want.get("change", 0) - want.get("buy_ins", 0) \
                + want.get("cash_outs", 0)
            for column in ("buy_ins", "cash_outs", "kitty_put_up", "kitty_won"):
                assert row[column] == want.get(column, 0), (column, row)
        assert {f"player:{r['player_id']}" for r in report["items"]} >= \
            {a for a in sums if a.startswith("player:")}
        assert {k["account"]: k["change"] for k in report["kitties"]} == \
            {a: s["change"] for a, s in sums.items() if a.startswith("kitty:")}
        checks = report["checks"]
        assert checks["chips_issued"] == sum(s["issued"] for s in sums.values())
        assert checks["chips_redeemed"] == sum(s["redeemed"] for s in sums.values())
        assert checks["chips_held_before"] == held(store, start)
        assert checks["chips_held"] == held(store, end) and checks["balanced"]
