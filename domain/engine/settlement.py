"""Settlement of a deal into postings (R7, R3.8, R9.4, R9.8, R10.3–R10.7) and void deals (R1.6).

Each standing hand is judged against the banker's final hand; every posting names its rule
and says in words why the chips move, for the audit (R7.5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.engine import facts as f
from domain.engine.hands import (
    BUST,
    FIVE_CARD_TRICK,
    PONTOON,
    ROYAL_PONTOON,
    describe,
    finished_status,
    pontoon_grade,
    value,
)
from domain.engine.postings import Posting, net_changes, player_account
from domain.errors import ChipsNotConserved

if TYPE_CHECKING:
    from domain.engine.deal_hand import Hand
    from domain.engine.deal_state import DealState


class _Verdict:
    __slots__ = ("wins", "multiplier", "rule", "why", "shoot_to_banker")

    def __init__(self, wins: bool, multiplier: int, rule: str, why: str,
                 shoot_to_banker: bool = False) -> None:
        self.wins, self.multiplier, self.rule, self.why = wins, multiplier, rule, why
        self.shoot_to_banker = shoot_to_banker  # R9.4: added to the stake, paid to the banker


def settle(deal: DealState) -> f.DealSettled:
    rules = deal.rules
    banker = player_account(deal.banker)
    banker_cards = deal.banker_cards
    banker_words = describe(banker_cards, rules, banker=True)
    banker_grade = pontoon_grade(banker_cards, rules)
    postings: list[Posting] = []
    results: list[dict[str, Any]] = []
    for player, index, hand in deal.all_hands():
        account = player_account(player)
        words = describe(hand.cards, rules)
        if hand.status == BUST:
            if deal.doubled:
                postings.append(Posting(account, banker, hand.stake, "R10.3",
                                        f"the banker doubled: bust hand {index} pays "
                                        f"a second stake of {hand.stake}", index))
            results.append(_result(player, index, hand, "bust", 1, "R4.7",
                                   f"{words}: the stake went to the banker at once"))
            continue
        verdict = _judge(deal, hand, words, banker_words, banker_grade)
        postings.extend(_pay(deal, player, index, hand, verdict))
        results.append(_result(player, index, hand, "win" if verdict.wins else "lose",
                               verdict.multiplier, verdict.rule, verdict.why))
    kitty = deal.kitty + net_changes(postings).get(deal.kitty_account, 0)
    next_banker, passed_by = _next_banker(deal, banker_grade)
    if passed_by and kitty > 0:
        postings.append(Posting(deal.kitty_account, banker, kitty, "R9.11",
                                f"a pontoon takes the bank: the old banker takes the "
                                f"{kitty} left in the kitty", None))
        kitty = 0
    held = banker_grade is not None or any(
        h.status in (PONTOON, ROYAL_PONTOON) for _, _, h in deal.all_hands())
    _check_escrow_empty(deal, postings)
    return f.DealSettled(postings, results, banker_words, next_banker, passed_by, kitty, held,
                         pack_after(deal))


def _judge(deal: DealState, hand: Hand, words: str, banker_words: str,
           banker_grade: int | None) -> _Verdict:
    rules = deal.rules
    doubled = 2 if deal.doubled else 1
    one = "R10.3" if deal.doubled else None  # a payment of one stake, doubled (R10.3)
    banker_status = finished_status(deal.banker_cards, rules, banker=True)
    if banker_grade is not None:  # R3.8: the banker's pontoon, shown at once
        grade = pontoon_grade(hand.cards, rules)
        if grade is not None and grade > banker_grade:
            return _Verdict(True, rules.pontoon_pays, "R10.7",
                            f"{words} outranks the banker's {banker_words} and is paid as a "
                            "pontoon (R10.7)")
        return _Verdict(False, rules.banker_pontoon_collects, "R3.8",
                        f"the banker's {banker_words} collects from {words} (R3.8, R2.4)",
                        shoot_to_banker=True)
    if hand.status == ROYAL_PONTOON:
        return _Verdict(True, 3, "R10.6", f"{words} beats everything and is paid three times "
                        "(R10.6)")
    if banker_status == BUST:
        if hand.status in (PONTOON, FIVE_CARD_TRICK):
            mult = rules.pontoon_pays if hand.status == PONTOON else 2
            return _Verdict(True, mult, "R7.1", f"the banker's {banker_words}; {words} is paid "
                            f"{_times(mult)} (R7.1)")
        return _Verdict(True, doubled, one or "R7.1",
                        f"the banker's {banker_words}; {words} is paid {_times(doubled)} (R7.1"
                        + (", R10.3)" if one else ")"))
    if banker_status == FIVE_CARD_TRICK:
        if hand.status == PONTOON:
            return _Verdict(True, rules.pontoon_pays, "R7.3",
                            f"the banker's {banker_words} pays only pontoons: {words} is paid "
                            f"{_times(rules.pontoon_pays)} (R7.3)")
        return _Verdict(False, 2, "R7.3", f"the banker's {banker_words} collects double from "
                        f"{words} (R7.3)")
    if hand.status == PONTOON:
        return _Verdict(True, rules.pontoon_pays, "R7.2",
                        f"{words} beats the banker's {banker_words} and is paid "
                        f"{_times(rules.pontoon_pays)} (R7.2)")
    if hand.status == FIVE_CARD_TRICK:
        return _Verdict(True, 2, "R7.2", f"{words} beats the banker's {banker_words} and is "
                        "paid double (R7.2)")
    mine, theirs = value(hand.cards), value(deal.banker_cards)
    suffix = ", R10.3)" if one else ")"
    if mine > theirs:
        return _Verdict(True, doubled, one or "R7.2",
                        f"the banker stayed on {theirs}; {words} beats it and is paid "
                        f"{_times(doubled)} (R7.2" + suffix)
    tie = " (a tie goes to the banker, R2.4)" if mine == theirs else ""
    return _Verdict(False, doubled, one or "R7.2",
                    f"the banker stayed on {theirs}; {words} does not beat it{tie} and pays "
                    f"{_times(doubled)} (R7.2" + suffix)


def _pay(deal: DealState, player: str, index: int, hand: Hand, verdict: _Verdict
         ) -> list[Posting]:
    account, banker = player_account(player), player_account(deal.banker)
    rule, why = verdict.rule, verdict.why
    stake, shoot = hand.stake, hand.shoot_bet
    out: list[Posting] = []
    if verdict.wins:
        out.append(Posting(deal.escrow, account, stake, rule, f"stake returned: {why}", index))
        out.append(Posting(banker, account, stake * verdict.multiplier, rule,
                           f"the banker pays {stake * verdict.multiplier}: {why}", index))
    elif verdict.shoot_to_banker:  # R3.8 with R9.4: the shoot bet joins the stake
        combined = stake + shoot
        out.append(Posting(deal.escrow, banker, stake, rule, f"stake lost: {why}", index))
        if shoot:
            out.append(Posting(deal.escrow, banker, shoot, "R9.4",
                               f"the shoot bet of {shoot} is added to the stake and goes to "
                               "the banker (R9.4)", index))
        extra = combined * (verdict.multiplier - 1)
        if extra:
            out.append(Posting(account, banker, extra, rule,
                               f"the player pays a further {extra}, making "
                               f"{_times(verdict.multiplier)} of {combined}"
                               + (" (stake and shoot bet)" if shoot else "") + f": {why}",
                               index))
        return out
    else:
        out.append(Posting(deal.escrow, banker, stake, rule, f"stake lost: {why}", index))
        if verdict.multiplier > 1:
            out.append(Posting(account, banker, stake * (verdict.multiplier - 1), rule,
                               f"the player pays a further {stake * (verdict.multiplier - 1)}: "
                               f"{why}", index))
    if shoot:
        if verdict.wins:
            out.append(Posting(deal.escrow, account, shoot, "R9.8",
                               f"shoot bet of {shoot} returned: the hand beat the banker", index))
            out.append(Posting(deal.kitty_account, account, shoot, "R9.8",
                               f"the kitty pays the shoot bet of {shoot}: the hand beat the "
                               "banker (R9.8)", index))
        else:
            out.append(Posting(deal.escrow, deal.kitty_account, shoot, "R9.8",
                               f"the shoot bet of {shoot} goes into the kitty: the hand did not "
                               "beat the banker (R9.8)", index))
    return out


def _next_banker(deal: DealState, banker_grade: int | None) -> tuple[str, str | None]:
    """R8.1: a player's own two-card pontoon (not on a split hand) takes the bank."""
    if banker_grade is None:
        for player, _, hand in deal.all_hands():
            if hand.status == PONTOON and not hand.split:
                return player, "R8.1"
    return deal.banker, None


def pack_after(deal: DealState) -> list[str] | None:
    """R1.4, R1.5: used cards go under the pack in table order: each player's hands in turn
    (a player who sat the deal out, their unseen first card, R3.5), then the banker's."""
    if deal.pack is None:
        return None
    pack = list(deal.pack)
    for player in deal.dealt_in:
        if player in deal.unseen:
            pack.extend(deal.unseen[player])
            continue
        for hand in deal.hands[player]:
            if not hand.returned:
                pack.extend(hand.cards)
    pack.extend(deal.banker_cards)
    return pack


def void_postings(deal: DealState) -> list[Posting]:
    """R1.6: every stake and shoot bet comes back, those lost to a bust included."""
    out: list[Posting] = []
    banker = player_account(deal.banker)
    why = "the pack ran out, the deal is void and every stake and shoot bet is returned (R1.6)"
    for player, index, hand in deal.all_hands():
        account = player_account(player)
        busted = hand.status == BUST
        if hand.stake:
            out.append(Posting(banker if busted else deal.escrow, account, hand.stake, "R1.6",
                               why, index))
        if hand.shoot_bet:
            out.append(Posting(deal.kitty_account if busted else deal.escrow, account,
                               hand.shoot_bet, "R1.6", why, index))
    return out


def _check_escrow_empty(deal: DealState, postings: list[Posting]) -> None:
    """Every chip staked in this deal leaves escrow at settlement (R11.1)."""
    balance = net_changes([*deal.postings, *postings]).get(deal.escrow, 0)
    if balance != 0:
        raise ChipsNotConserved(f"the escrow of deal {deal.deal_id} holds {balance} chips "
                                "after its settlement", "R11.1")


def _result(player: str, index: int, hand: Hand, outcome: str, multiplier: int, rule: str,
            why: str) -> dict[str, Any]:
    return {"player": player, "hand": index, "cards": list(hand.cards), "stake": hand.stake,
            "shoot_bet": hand.shoot_bet, "outcome": outcome, "multiplier": multiplier,
            "rule": rule, "explanation": why}


def _times(multiplier: int) -> str:
    return {1: "the stake", 2: "double the stake", 3: "three times the stake"}.get(
        multiplier, f"{multiplier} times the stake")
