"""Words for the pages: cards, accounts, times and what each event of a deal did."""

from __future__ import annotations

from datetime import datetime
from typing import Any

SUITS = {"S": ("♠", "spades", False), "H": ("♥", "hearts", True),
         "D": ("♦", "diamonds", True), "C": ("♣", "clubs", False)}
RANK_NAMES = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
WINDOWS = {"first_round": "in the first shoot round (R9.3)",
           "fourth_card": "before the fourth card (R9.5)",
           "split": "on a split hand (R9.6)"}
STATUSES = {"pontoon": "a pontoon", "five_card_trick": "a five card trick",
            "royal_pontoon": "a royal pontoon"}


def card(code: str | None) -> dict[str, Any]:
    """A card of R1.3 notation ("10H") as the template draws it; None is face down."""
    if not code:
        return {"back": True, "label": "a face-down card"}
    rank, suit = code[:-1], code[-1]
    symbol, suit_name, red = SUITS.get(suit, ("?", suit, False))
    return {"back": False, "rank": rank, "symbol": symbol, "red": red, "code": code,
            "label": f"{RANK_NAMES.get(rank, rank)} of {suit_name}"}


def when(text: str | None) -> str:
    """An RFC 3339 UTC time as `2026-11-29 17:50:45` (the pages say the times are UTC)."""
    if not text:
        return ""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def clock(text: str | None) -> str:
    """Only the time of day, `17:50:45` (the page shows the date once)."""
    if not text:
        return ""
    try:
        return datetime.fromisoformat(text).strftime("%H:%M:%S")
    except ValueError:
        return text


def signed(amount: int | None) -> str:
    """+5, −3 (a true minus sign), 0."""
    if amount is None:
        return ""
    return f"+{amount}" if amount > 0 else f"−{-amount}" if amount < 0 else "0"


def principal_words(principal_id: str | None, names: dict[str, str]) -> str:
    """`treasurer:<id>`, `operator:<id>` or `player:<id>` in words."""
    if not principal_id:
        return "—"
    role, _, key = principal_id.partition(":")
    if role == "player":
        return names.get(key, "a player")
    return {"treasurer": "the treasurer", "operator": "an operator"}.get(role, principal_id)


class Accounts:
    """Account names (player:<id>, kitty:<table>, escrow:<deal>, treasury) in words."""

    def __init__(self, players: dict[str, str], tables: dict[str, str],
                 deal_id: str | None = None) -> None:
        self.players, self.tables, self.deal_id = players, tables, deal_id

    def name(self, account: str) -> str:
        kind, _, key = account.partition(":")
        if kind == "player":
            return self.players.get(key, f"player {key[:8]}")
        if kind == "kitty":
            return f"kitty of {self.tables.get(key, key[:8])}"
        if kind == "escrow":
            return "the stakes on the table" if key == self.deal_id else \
                f"stakes on deal {key[:8]}"
        if account == "treasury":
            return "the treasury"
        return account

    def link(self, account: str) -> tuple[str, str] | None:
        """(endpoint, id) of the page about an account, if it has one."""
        kind, _, key = account.partition(":")
        return {"player": ("web.player", key), "kitty": ("web.table", key),
                "escrow": ("web.deal", key)}.get(kind)


def describe(event: str, fact: dict[str, Any], names: dict[str, str]) -> str:
    """One sentence for one event of a deal's timeline."""
    def who(key: str = "player") -> str:
        value = fact.get(key)
        return names.get(value, "a player") if value else "someone"

    hand = fact.get("hand")
    of_hand = f" (hand {hand + 1})" if isinstance(hand, int) and hand > 0 else ""
    amount = fact.get("amount")
    if event == "DealStarted":
        kitty = f"; the kitty holds {fact['kitty']}" if fact.get("rules", {}).get("shoot") \
            else ""
        return f"Deal {fact.get('number')} starts with {who('banker')} as banker{kitty}"
    if event == "CardDealt":
        face = "face up" if fact.get("face_up") else "face down"
        return f"{who()} is dealt a card {face}{of_hand}"
    if event == "StakePlaced":
        return f"{who()} stakes {amount}"
    if event == "BankerDoubled":
        return f"{who('banker')} doubles (R10.3)"
    if event == "BankerDeclinedToDouble":
        return f"{who('banker')} declines to double"
    if event == "ShootBetPlaced":
        window = WINDOWS.get(fact.get("window", ""), "")
        return f"{who()} shoots {amount} against the kitty{of_hand} {window}".rstrip()
    if event == "ShootPassed":
        auto = " (passed over: nothing left to shoot)" if fact.get("automatic") else ""
        return f"{who()} passes the shoot{auto}"
    if event == "CardBought":
        return f"{who()} buys a card for {amount}{of_hand}"
    if event == "HandTwisted":
        return f"{who()} twists{of_hand}"
    if event == "HandSplit":
        return f"{who()} splits{of_hand}, staking {fact.get('stake')} on the new hand"
    if event == "HandBurned":
        return f"{who()} burns the hand{of_hand}"
    if event == "HandStuck":
        auto = " (automatically)" if fact.get("automatic") else ""
        return f"{who()} sticks{of_hand}{auto}"
    if event == "HandFinished":
        status = STATUSES.get(fact.get("status", ""), fact.get("status", "finished"))
        return f"{who()} holds {status}{of_hand}"
    if event == "HandBusted":
        return f"{who()} is bust{of_hand}"
    if event == "PlayersTurnsBegan":
        return "The players' turns begin"
    if event == "BankerTurnBegan":
        return f"{who('banker')}'s turn as banker begins"
    if event == "BankerStayed":
        auto = " (automatically)" if fact.get("automatic") else ""
        return f"{who('banker')} stays{auto}"
    if event == "DealSettled":
        nxt = names.get(fact.get("next_banker", ""), "the same banker")
        passed = f"; the bank passes to {nxt} ({fact['bank_passed_by']})" \
            if fact.get("bank_passed_by") else ""
        return f"The deal is settled: the banker holds {fact.get('banker_hand')}{passed}"
    if event == "DealVoided":
        return f"The deal is void: {fact.get('reason')}"
    return event
