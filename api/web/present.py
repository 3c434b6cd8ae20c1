"""Words for the pages: cards, accounts, times and what each event of a deal did."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, tzinfo
from typing import Any

from domain.engine import facts as f
from domain.engine.postings import reason_in_words

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


def when(text: str | None, zone: tzinfo = UTC) -> str:
    """A recorded time (RFC 3339 UTC) in the club's zone, `2026-11-29 17:50:45` (the pages
    name the zone once)."""
    if not text:
        return ""
    try:
        moment = datetime.fromisoformat(text).astimezone(zone)
    except (ValueError, OverflowError):
        return text
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def clock(text: str | None, zone: tzinfo = UTC) -> str:
    """Only the time of day in the club's zone, `17:50:45` (the page shows the date once)."""
    if not text:
        return ""
    try:
        return datetime.fromisoformat(text).astimezone(zone).strftime("%H:%M:%S")
    except (ValueError, OverflowError):
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


class Told(dict[str, Any]):
    """A fact's fields as its sentence reads them.

    `player` and `banker` hold names rather than ids, `of_hand` and `automatically` are the
    endings several sentences share, and a field the fact lacks reads as None, so an odd
    fact still gets a sentence rather than breaking the page.
    """

    def __init__(self, fact: dict[str, Any], names: dict[str, str]) -> None:
        hand = fact.get("hand")
        later_hand = isinstance(hand, int) and hand > 0  # one split off the first
        super().__init__(fact, player=_who(fact.get("player"), names),
                         banker=_who(fact.get("banker"), names),
                         of_hand=f" (hand {hand + 1})" if later_hand else "",
                         automatically=" (automatically)" if fact.get("automatic") else "")
        self.names = names

    def __missing__(self, key: str) -> None:
        return None


def _who(player_id: str | None, names: dict[str, str]) -> str:
    return names.get(player_id, "a player") if player_id else "someone"


def _deal_started(t: Told) -> str:
    kitty = f"; the kitty holds {t['kitty']}" if (t["rules"] or {}).get("shoot") else ""
    return f"Deal {t['number']} starts with {t['banker']} as banker{kitty}"


def _hand_finished(t: Told) -> str:
    status = t.get("status", "finished")
    return f"{t['player']} holds {STATUSES.get(status, status)}{t['of_hand']}"


def _deal_settled(t: Told) -> str:
    following = t.names.get(t.get("next_banker", ""), "the same banker")
    passed = f"; the bank passes to {following} ({t['bank_passed_by']})" \
        if t["bank_passed_by"] else ""
    return f"The deal is settled: the banker holds {t['banker_hand']}{passed}"


# The sentence for each fact of a deal: a format string over `Told`'s fields, or a function
# of them where the words depend on a value. A new kind of fact needs one row here.
EVENT_WORDS: dict[type[f.Fact], str | Callable[[Told], str]] = {
    f.DealStarted: _deal_started,
    f.CardDealt: lambda t: f"{t['player']} is dealt a card "
                           f"{'face up' if t['face_up'] else 'face down'}{t['of_hand']}",
    f.StakePlaced: "{player} stakes {amount}",
    f.PlayerSatOut: "{player} sits this deal out: {reason}",
    f.BankerDoubled: "{banker} doubles (R10.3)",
    f.BankerDeclinedToDouble: "{banker} declines to double",
    f.ShootBetPlaced: lambda t: f"{t['player']} shoots {t['amount']} against the kitty"
                                f"{t['of_hand']} {WINDOWS.get(t['window'], '')}".rstrip(),
    f.ShootPassed: lambda t: f"{t['player']} passes the shoot" + (
        " (passed over: nothing left to shoot)" if t["automatic"] else ""),
    f.CardBought: "{player} buys a card for {amount}{of_hand}",
    f.HandTwisted: "{player} twists{of_hand}",
    f.HandSplit: "{player} splits{of_hand}, staking {stake} on the new hand",
    f.HandBurned: "{player} burns the hand{of_hand}",
    f.HandStuck: "{player} sticks{of_hand}{automatically}",
    f.HandFinished: _hand_finished,
    f.HandBusted: "{player} is bust{of_hand}",
    f.PlayersTurnsBegan: "The players' turns begin",
    f.BankerTurnBegan: "{banker}'s turn as banker begins",
    f.BankerStayed: "{banker} stays{automatically}",
    f.DealSettled: _deal_settled,
    f.DealVoided: "The deal is void: {reason}",
}
_WORDS_BY_TYPE = {kind.__name__: words for kind, words in EVENT_WORDS.items()}


def describe(event: str, fact: dict[str, Any], names: dict[str, str]) -> str:
    """One sentence for one event of a deal's timeline (its type's name if it has none)."""
    words = _WORDS_BY_TYPE.get(event)
    if words is None:
        return event
    told = Told(fact, names)
    return words.format_map(told) if isinstance(words, str) else words(told)


def in_words(entry: dict[str, Any], who: str | None = None) -> str:
    """A recorded reason as people read it: hands from 1 (the rules engine counts from 0,
    decision 144), and the player named when the posting itself names none (a kitty's
    entries)."""
    text = reason_in_words(entry["reason"], entry.get("hand"))
    if not who:
        return text
    return f"{who}'s {text}" if text.startswith("hand ") else f"{who}: {text}"


def shown_reason(row: dict[str, Any]) -> str | None:
    """A statement row's reason on a page, once `described` (api/histories.py) put it in
    words: a correction's without the id of its dispute, which the row names by its deal."""
    text = row.get("reason")
    if text is not None and row.get("rule") == "R11.4" and row.get("dispute_id"):
        text = text.replace(f"correction decided in dispute {row['dispute_id']}: ", "", 1)
    return text
