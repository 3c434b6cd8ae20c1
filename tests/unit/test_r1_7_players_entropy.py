"""R1.7's December Decision in the engine (docs/decisions.md 135): seated players' randomness
is taken between a shuffled pack's commitment and its first card, once a player, and the
pack is shuffled with the seed mixed from it (API.md "Players' entropy"); the pack a
pontoon ends is followed at once by the next one's commitment, so players add to it between
deals. The mix is held to the tests' own reference (tests/api/history_reference.py)."""

from __future__ import annotations

from itertools import count
from typing import Any

import pytest

from domain.engine import facts as f
from domain.engine.cards import RANK
from domain.engine.deal import Deal
from domain.engine.shuffle import commitment, derived_seed, mixed_seed, shuffle_pack
from domain.engine.table import Table
from domain.engine.verification import verify_deal
from domain.errors import NotAllowed, NotNow
from tests.api.history_reference import mixed_seed as reference_mix
from tests.ledger_club import stacked_pack

BANKER, PAT, SAM = ("10000000-0000-4000-8000-000000000001",
                    "20000000-0000-4000-8000-000000000002",
                    "30000000-0000-4000-8000-000000000003")
SEED = derived_seed("entropy-tests", "server")
NEXT = derived_seed("entropy-tests", "next")
A, B = "0f" * 32, "a1" * 32


def opened(mode: str = "shuffled", seed: str = SEED) -> tuple[Table, list[f.Fact]]:
    pack: dict[str, Any] = {"mode": mode}
    if mode == "ordered":
        pack["cards"] = stacked_pack([])
    return Table.open(table_id="t1", name="entropy", seats=[BANKER, PAT, SAM], banker=BANKER,
                      rules=None, pack=pack, seed=seed)


def refused(error: type[Exception], call: Any) -> Any:
    with pytest.raises(error) as raised:
        call()
    return raised.value


def test_r1_7_the_mixed_seed_is_the_hmac_of_each_contribution_in_order_under_the_seed():
    one = [{"player_id": PAT, "value": A}]
    two = [*one, {"player_id": SAM, "value": B}]

    assert mixed_seed(SEED, []) == SEED
    assert mixed_seed(SEED, one) == reference_mix(SEED, one) != SEED
    assert mixed_seed(SEED, two) == reference_mix(SEED, two)
    assert mixed_seed(SEED, two) != mixed_seed(SEED, two[::-1])  # the order recorded counts
    assert mixed_seed(NEXT, two) != mixed_seed(SEED, two)


def test_r1_7_contributions_are_taken_from_the_commitment_until_the_first_card():
    table, _ = opened()
    assert table.contributions_open

    added = table.contribute(PAT, A.upper()) + table.contribute(BANKER, B)
    twice = refused(NotNow, lambda: table.contribute(PAT, B))
    _, table_facts, deal_facts = table.start_deal(deal_id="d1", seed=NEXT)
    late = refused(NotNow, lambda: table.contribute(SAM, A))

    mix = [{"player_id": PAT, "value": A}, {"player_id": BANKER, "value": B}]
    assert added == [f.ContributionAdded(PAT, A, commitment(SEED)),
                     f.ContributionAdded(BANKER, B, commitment(SEED))]
    assert (twice.rule, late.rule) == ("R1.7", "R1.7")
    started = deal_facts[0]
    assert isinstance(started, f.DealStarted)
    assert started.contributions == mix and started.commitment == commitment(SEED)
    assert started.pack == shuffle_pack(mixed_seed(SEED, mix), 1)
    assert not table.contributions_open and table_facts == [f.DealOpened("d1", 1)]


@pytest.mark.parametrize("mode", ["ordered", "recorded"])
def test_r1_7_ordered_and_recorded_packs_take_no_contributions(mode: str):
    table, _ = opened(mode)

    error = refused(NotNow, lambda: table.contribute(PAT, A))

    assert error.rule == "R1.7" and f"{mode} mode" in str(error)


@pytest.mark.parametrize(("player", "value"), [("40000000-0000-4000-8000-000000000004", A),
                                               (PAT, "ab" * 31), (PAT, "zz" * 32), (PAT, 5)])
def test_r1_7_only_a_seated_players_64_hex_digits_are_taken(player: str, value: Any):
    table, _ = opened()

    error = refused(NotAllowed, lambda: table.contribute(player, value))

    assert error.rule == "R1.7" and table.contributions == []


def _seed_where_the_banker_holds_a_pontoon() -> str:
    """A seed whose pack gives the banker (dealt third and sixth of Pat, Sam, banker) an
    ace and a ten-card: a pontoon (R2, R1.4)."""
    for n in count():
        seed = derived_seed("entropy-tests", "pontoon", n)
        pack = shuffle_pack(seed, 1)
        ranks = {RANK[pack[2]], RANK[pack[5]]}
        if "A" in ranks and ranks & {"10", "J", "Q", "K"}:
            return seed
    raise AssertionError("unreachable")


def test_r1_7_the_deal_that_ends_a_pack_commits_to_the_next_which_then_takes_contributions():
    """Decision 135: a pontoon (R1.4) ends the pack: the deal's end records the next pack's
    commitment and reveals the seed at once, so players add to it before its first card."""
    first = _seed_where_the_banker_holds_a_pontoon()
    table, _ = opened(seed=first)
    deal, _, _ = table.start_deal(deal_id="d1", seed=None)
    for player in (PAT, SAM):
        deal.act(player, "stake", amount=1, chips=10)
    assert deal.is_over

    ended = table.end_deal(deal, seed=NEXT)
    added = table.contribute(SAM, A)

    assert [type(fact) for fact in ended] == [f.DealEnded, f.PackShuffled]
    assert ended[1] == f.PackShuffled(NEXT, commitment(NEXT), first, "R1.4")
    assert added == [f.ContributionAdded(SAM, A, commitment(NEXT))]
    assert table.pack == shuffle_pack(mixed_seed(NEXT, [{"player_id": SAM, "value": A}]), 1)


def test_r1_7_a_table_and_a_deal_replay_to_the_same_pack_and_contributions():
    table, history = opened()
    history += table.contribute(SAM, B) + table.contribute(PAT, A)
    deal, table_facts, deal_facts = table.start_deal(deal_id="d1", seed=NEXT)
    history += table_facts
    for player in (PAT, SAM):
        deal_facts += deal.act(player, "stake", amount=1, chips=10)

    replayed = Table.replay(history)

    assert replayed.contributions == table.contributions and replayed.pack == table.pack
    assert not replayed.contributions_open
    assert verify_deal(deal_facts).replayed
    assert Deal.replay(deal_facts).pack == deal.pack
