"""Re-deciding a deal from its recorded facts: the audit's verification (R7.5).

Replaying facts through `apply` would only repeat what was written. Verification goes
further: it recovers the commands the facts answer (a `StakePlaced` was a stake, a
`HandTwisted` a twist, ...), sends them again to a fresh engine started from the recorded
pack, and compares every fact the engine decides with every fact recorded. A changed card,
amount or payment shows as a difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from domain.engine import facts as f
from domain.engine.deal import Deal
from domain.engine.postings import net_changes
from domain.engine.rules import TableRules
from domain.errors import PontoonError, of_kind


@dataclass(frozen=True)
class Command:
    player: str
    action: str
    hand: int | None = None
    amount: int | None = None
    cards: tuple[str, ...] = ()
    chips: int | None = None  # what the player held, where the facts tell (R3.5)


@dataclass
class Verification:
    replayed: bool
    chips_conserved: bool
    differences: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"replayed": self.replayed, "chips_conserved": self.chips_conserved,
                "differences": list(self.differences)}


def commands_of(history: Sequence[f.Fact]) -> list[Command]:
    """The commands a deal's facts answer, in order, each with the cards it dealt."""
    commands: list[Command] = []
    dealt: list[str] = []
    opened = of_kind(history[0], f.DealStarted, "a deal's opening fact")

    def command(player: str, action: str, hand: int | None = None,
                amount: int | None = None, chips: int | None = None) -> None:
        commands.append(Command(player, action, hand, amount, chips=chips))

    banker_turn = False
    for fact in history[1:]:
        if isinstance(fact, f.CardDealt):
            if fact.rule == "R6.3":  # a card the banker drew
                command(fact.player, "draw")
            dealt.append(fact.card)
            if commands:
                commands[-1] = replace(commands[-1], cards=(*commands[-1].cards, fact.card))
            continue
        if isinstance(fact, f.StakePlaced):
            command(fact.player, "stake", amount=fact.amount)
        elif isinstance(fact, f.PlayerSatOut):
            # Whether the stake before it or their own found them short, a stake of theirs
            # holding nothing decides the same facts (R3.5).
            command(fact.player, "stake", chips=0)
        elif isinstance(fact, f.BankerTurnBegan):
            banker_turn = True
        elif isinstance(fact, f.DealVoided) and banker_turn:
            # In the banker's turn only a draw deals: this one found the pack empty (R1.6),
            # so no card of its own names it.
            command(opened.banker, "draw")
        elif isinstance(fact, f.ShootBetPlaced):
            if fact.window == "split":
                commands[-1] = replace(commands[-1], amount=fact.amount)
            else:
                command(fact.player, "shoot", fact.hand, fact.amount)
        elif isinstance(fact, f.ShootPassed) and not fact.automatic:
            command(fact.player, "pass")
        elif isinstance(fact, f.CardBought):
            command(fact.player, "buy", fact.hand, fact.amount)
        elif isinstance(fact, f.HandTwisted):
            command(fact.player, "twist", fact.hand)
        elif isinstance(fact, f.HandSplit):
            command(fact.player, "split", fact.hand)
        elif isinstance(fact, f.HandBurned):
            command(fact.player, "burn", fact.hand)
        elif isinstance(fact, f.HandStuck) and not fact.automatic:
            command(fact.player, "stick", fact.hand)
        elif isinstance(fact, f.BankerDoubled):
            command(fact.banker, "double")
        elif isinstance(fact, f.BankerDeclinedToDouble):
            command(fact.banker, "decline")
        elif isinstance(fact, f.BankerStayed) and not fact.automatic:
            command(fact.banker, "stay")
    return commands


def verify_deal(history: Sequence[f.Fact]) -> Verification:
    """Decide the deal again from its recorded pack and commands; compare every fact."""
    opened = history[0]
    if not isinstance(opened, f.DealStarted):
        return Verification(False, False, ["the deal's first event is not DealStarted"])
    recorded = opened.pack is None
    first_round = [c.card for c in history[1:len(opened.players) + 2]
                   if isinstance(c, f.CardDealt)] if recorded else None
    differences: list[str] = []
    try:
        _, decided = Deal.start(
            deal_id=opened.deal_id, table_id=opened.table_id, number=opened.number,
            banker=opened.banker, seats=[opened.banker, *opened.players],
            rules=TableRules.from_dict(opened.rules), pack=opened.pack, kitty=opened.kitty,
            commitment=opened.commitment, cards=first_round,
            contributions=opened.contributions)
        deal = Deal.replay(decided)
        for command in commands_of(history):
            decided += deal.act(command.player, command.action, hand=command.hand,
                                amount=command.amount, chips=command.chips,
                                cards=list(command.cards) if recorded else None)
    except (PontoonError, AssertionError, KeyError, IndexError, ValueError) as error:
        differences.append(f"the recorded commands do not replay: {error}")
        decided = []
    if not differences:
        differences += _compare(list(history), decided)
    return Verification(not differences, _conserved(history), differences)


def _compare(recorded: list[f.Fact], decided: list[f.Fact]) -> list[str]:
    out = []
    for index, (was, now) in enumerate(zip(recorded, decided, strict=False)):
        if was == now:  # the same class and fields: all but a changed fact stop here
            continue
        if was.type != now.type or was.to_dict() != now.to_dict():
            out.append(f"event {index + 1}: recorded {was.type} {_brief(was)}, the rules "
                       f"decide {now.type} {_brief(now)}")
    if len(recorded) != len(decided):
        out.append(f"recorded {len(recorded)} events, the rules decide {len(decided)}")
    return out[:20]


def _brief(fact: f.Fact) -> str:
    data = fact.to_dict()
    data.pop("pack", None)
    data.pop("pack_after", None)
    return str(data)[:300]


def _conserved(history: Sequence[f.Fact]) -> bool:
    """Every chip staked leaves escrow by the end, and postings balance (R11.1)."""
    opened = of_kind(history[0], f.DealStarted, "a deal's opening fact")
    postings = [p for fact in history for p in fact.carried_postings()]
    if any(p.amount <= 0 for p in postings):
        return False
    changes = net_changes(postings)
    if sum(changes.values()) != 0:
        return False
    ended = isinstance(history[-1], f.DealSettled | f.DealVoided)
    return not ended or changes.get(f"escrow:{opened.deal_id}", 0) == 0
