"""`pontoon verify` and players' entropy (R1.7, docs/decisions.md 135), on both stores: an
honest store whose pack two players added to verifies; a contribution's value changed, a
contribution dropped, or a deal's record of its contributions edited is found by the
domain checks (verification/packs.py) even when the intruder recomputes both hash
chains, as anyone with write access can."""

from __future__ import annotations

from typing import Any

import pytest

from application import Ledger
from config import Settings
from domain.aggregates import DealAggregate, TableAggregate
from domain.engine.shuffle import mixed_seed, shuffle_pack
from tests.integration.ledger_views import notifications, topic
from tests.integration.projection_session import rewrite_event
from tests.integration.tampering import execute
from tests.integration.test_tamper_evidence import recompute_every_hash
from verification.verify import verify

VALUES = ("0f" * 32, "a1" * 32)


def played(ledger: Ledger) -> dict[str, Any]:
    """Three players at a shuffled table, two contributions, one deal staked."""
    ids = [str(ledger.register_player(name).result["id"]) for name in ("Ann", "Pat", "Sam")]
    for player in ids:
        ledger.buy_in(player, 50)
    table_id = str(ledger.open_table(name="mixed", seats=ids, banker=ids[0]
                                     ).result["table_id"])
    ledger.contribute(table_id, ids[2], VALUES[0])
    ledger.contribute(table_id, ids[1], VALUES[1])
    deal_id = str(ledger.start_deal(table_id).result["deal_id"])
    for player in ids[1:]:
        ledger.act(deal_id, player, "stake", amount=1)
    return {"ids": ids, "table_id": table_id, "deal_id": deal_id}


def first_pack(ledger: Ledger) -> Any:
    """The shuffle the deal was dealt from. It may not be the only one: when the banker is
    dealt a pontoon the deal ends as its second cards fall, and the table commits to its
    next pack at once (R1.4, R1.7; docs/decisions.md 135)."""
    return stored(ledger, TableAggregate.PackShuffled)[0]


def stored(ledger: Ledger, event_class: type) -> list[Any]:
    return notifications(ledger, topics=[topic(event_class)])


def change_value(state: dict[str, Any]) -> None:
    state["fact"]["value"] = "ff" * 32


def without_contributions(seed: str) -> Any:
    """The deal's first event as if no one had contributed: no contribution, and the pack
    the server seed alone gives."""
    def change(state: dict[str, Any]) -> None:
        state["fact"]["contributions"] = []
        state["fact"]["pack"] = shuffle_pack(seed, 1)
    return change


def test_an_honest_store_with_contributions_verifies(ledger: Ledger) -> None:
    session = played(ledger)
    shuffles = stored(ledger, TableAggregate.PackShuffled)
    shuffled = shuffles[0]  # the deal's pack (first_pack)
    [started] = stored(ledger, DealAggregate.DealStarted)
    seed = ledger.mapper.to_domain_event(shuffled).fact["seed"]
    dealt = ledger.mapper.to_domain_event(started).fact

    report = verify(ledger)

    assert report.ok, report.failures
    assert report.seeds == len(shuffles)
    assert len(stored(ledger, TableAggregate.ContributionAdded)) == 2
    mix = [{"player_id": session["ids"][2], "value": VALUES[0]},
           {"player_id": session["ids"][1], "value": VALUES[1]}]
    assert dealt["contributions"] == mix
    assert dealt["pack"] == shuffle_pack(mixed_seed(seed, mix), 1)


@pytest.mark.parametrize("rechained", [False, True], ids=["as-stored", "chains-recomputed"])
def test_a_contributions_value_changed_in_the_database_is_found(
        store_settings: Settings, ledger: Ledger, rechained: bool) -> None:
    played(ledger)
    rewrite_event(store_settings, stored(ledger, TableAggregate.ContributionAdded)[0],
                  change_value)
    if rechained:
        recompute_every_hash(store_settings)

    report = verify(ledger)

    assert any("did not start from the pack its table's seed, the players' contributions"
               in failure for failure in report.failures), report.failures
    assert rechained != any("was changed after it was recorded" in failure
                            for failure in report.failures), report.failures


def test_a_contribution_dropped_from_the_log_is_found(store_settings: Settings,
                                                      ledger: Ledger) -> None:
    """The last contribution deleted and both chains recomputed: the deal still names it,
    its table no longer does (and the table's versions have a gap)."""
    session = played(ledger)
    dropped = stored(ledger, TableAggregate.ContributionAdded)[-1]
    execute(store_settings, "DELETE FROM {events} WHERE originator_id = %s AND "
            "originator_version = %s", (dropped.originator_id, dropped.originator_version))
    recompute_every_hash(store_settings)

    report = verify(ledger)

    assert any(f"deal {session['deal_id']} names other contributions than its table "
               "recorded" in failure for failure in report.failures), report.failures


def test_a_deal_rewritten_as_if_no_one_had_contributed_is_found(store_settings: Settings,
                                                               ledger: Ledger) -> None:
    """The deal's first event rewritten with no contributions and the pack of the server
    seed alone, chains recomputed: its table recorded contributions and the pack they
    give."""
    session = played(ledger)
    shuffled = first_pack(ledger)
    seed = ledger.mapper.to_domain_event(shuffled).fact["seed"]
    [started] = stored(ledger, DealAggregate.DealStarted)
    rewrite_event(store_settings, started, without_contributions(seed))
    recompute_every_hash(store_settings)

    report = verify(ledger)

    failures = " | ".join(report.failures)
    assert f"deal {session['deal_id']} names other contributions" in failures, failures
    assert f"deal {session['deal_id']} did not start from the pack" in failures, failures
