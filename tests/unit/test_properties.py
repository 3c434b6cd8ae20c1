"""Property tests over random games: random table rules, players, packs and legal play.

Every game is played through the real `application.Ledger` on the in-memory store
(tests/ledger_club.py): at each step a bot picks one of the legal actions
(`domain.engine.legal`, with the chips the Ledger says the player holds) and an amount
inside the offered range, and sends it as a Ledger command; every figure checked is read
back from the Ledger's aggregates and its log.
Between deals the table is kept playable (a kitty when one is needed, chips for players
short of the minimum stake) and, now and then, the bank is sold or auctioned, the kitty is
topped up and players leave and come back, so the table's commands are exercised too.
During staking a player still to stake now and then spends their chips elsewhere (a
cash-out plays the other table), so R3.5 sits them out when staking reaches them.

Hypothesis draws the rules, the number of players, the pack (shuffled from drawn seeds, or
an explicit order), the starting chips and one seed for the bots' random choices, which
keeps shrinking cheap.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain, count
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from domain.engine import facts as f
from domain.engine.cards import POINTS, RANK, RANKS, full_pack
from domain.engine.deal import ACTIONS, Deal, buy_range
from domain.engine.deal_state import PLAYING, SHOOTING, STAKING, VOID, DealState
from domain.engine.hands import BUST, PONTOON, ROYAL_PONTOON, pontoon_grade, value
from domain.engine.legal import LegalAction
from domain.engine.postings import (
    TREASURY,
    escrow_account,
    kitty_account,
    net_changes,
    player_account,
)
from domain.engine.shuffle import derived_seed
from domain.engine.table import Table
from domain.engine.verification import verify_deal
from domain.errors import PontoonError
from tests.ledger_club import LedgerClub
from tests.random_play import budget, table_rules

RULE_ID = re.compile(r"R\d+(\.\d+)?")

# --- strategies ------------------------------------------------------------------------

SEEDS = st.binary(min_size=32, max_size=32).map(bytes.hex)


@dataclass(frozen=True)
class GameSpec:
    rules: dict[str, Any]
    players: int
    pack: str  # shuffled | ordered (a random order) | ranked (ordered by rank: many pairs)
    cut: bool  # the first banker is cut for (R3.2) or named
    chips: int  # each player's first buy-in
    deals: int
    policy: str  # uniform | cards (prefers actions that take cards, to run packs dry)
    seeds: tuple[str, ...]  # the club's new seeds: one for the table, one per deal
    bot_seed: int


def games(max_deals: int) -> st.SearchStrategy[GameSpec]:
    @st.composite
    def build(draw: st.DrawFn) -> GameSpec:
        deals = draw(st.integers(1, max_deals))
        return GameSpec(
            rules=draw(table_rules()),
            players=draw(st.integers(2, 8)),
            pack=draw(st.sampled_from(("shuffled", "ordered", "ranked"))),
            cut=draw(st.booleans()),
            chips=draw(st.integers(0, 300)),
            deals=deals,
            policy=draw(st.sampled_from(("uniform", "cards"))),
            seeds=tuple(draw(st.lists(SEEDS, min_size=deals + 1, max_size=deals + 1))),
            bot_seed=draw(st.integers(0, 2**32 - 1)),
        )

    return build()


# --- a random game ---------------------------------------------------------------------

Hook = Callable[["Game"], None]


def _nothing(game: Game) -> None:
    pass


class Game:
    """One table played for `spec.deals` deals by random bots, calling hooks as it goes.

    `after_command` runs after every command sent to the club (buy-ins, table commands,
    starting a deal, every action); `at_moment` before each action of a deal, with
    `game.options` the legal actions; `after_deal` once a deal is over.
    """

    def __init__(self, spec: GameSpec, *, after_command: Hook = _nothing,
                 at_moment: Hook = _nothing, after_deal: Hook = _nothing) -> None:
        self.spec = spec
        self.rng = random.Random(spec.bot_seed)
        self.after_command, self.at_moment, self.after_deal = after_command, at_moment, \
            after_deal
        fallback = (derived_seed("property-fallback", n) for n in count())
        seeds: Iterator[str] = chain(spec.seeds, fallback)
        self.club = LedgerClub(new_seed=lambda: next(seeds))
        self.players = [self.club.register_player(f"P{i}") for i in range(spec.players)]
        self.outsider = self.club.register_player("Outsider")  # never seated
        self.deal_id: str | None = None
        self.before_deal: dict[str, int] = {}
        self.options: list[LegalAction] = []
        self.pack_at_start: list[str] | None = None
        self.kitty_ran_out = False  # R9.10: an auction may open (same banker, no sale since)

    # --- plumbing ----------------------------------------------------------------------

    def command(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        result = method(*args, **kwargs)
        self.after_command(self)
        return result

    @property
    def table(self) -> Table:
        return self.club.table(self.table_id)

    @property
    def deal(self) -> Deal:
        assert self.deal_id is not None
        return self.club.deal(self.deal_id)

    def chips(self, player: str) -> int:
        return self.club.chips(player)

    def ensure_chips(self, player: str, amount: int) -> None:
        """The treasurer issues chips so that `player` holds at least `amount` (R11.1)."""
        short = amount - self.chips(player)
        if short > 0:
            self.command(self.club.buy_in, player, short + self.rng.randint(0, 40))

    # --- the game ----------------------------------------------------------------------

    def run(self) -> None:
        spec, club = self.spec, self.club
        self.table_id = club.open_table(
            "property", self.players, banker=None if spec.cut else self.players[0],
            rules=spec.rules, pack=self.pack_setup())
        self.after_command(self)
        for player in self.players:
            if spec.chips:
                self.command(club.buy_in, player, spec.chips)
        for _ in range(spec.deals):
            self.between_deals()
            self.play_deal()

    def pack_setup(self) -> dict[str, Any]:
        packs = self.spec.rules["packs"]
        if self.spec.pack == "shuffled":
            return {"mode": "shuffled"}
        cards = full_pack(packs)
        self.rng.shuffle(cards)
        if self.spec.pack == "ranked":  # from a random rank up: pairs, burns, three 7s
            cards.sort(key=lambda card: RANKS.index(RANK[card]))
            cut = self.rng.randrange(len(RANKS)) * 4 * packs
            cards = cards[cut:] + cards[:cut]
        return {"mode": "ordered", "cards": cards}

    def between_deals(self) -> None:
        club, rng, tid = self.club, self.rng, self.table_id
        table = self.table
        rules = table.rules
        away = [p for p in self.players if p not in table.seats]
        if len(table.seats) > 2 and rng.random() < 0.1:
            leaver = rng.choice([p for p in table.seats if p != table.banker])
            self.command(club.leave, tid, leaver)
        elif away and rng.random() < 0.5:
            self.command(club.seat, tid, rng.choice(away), rng.choice([None, *table.seats]))
        if rng.random() < 0.1:
            table = self.table
            buyer = rng.choice([p for p in table.seats if p != table.banker])
            price = rng.randint(1, 30)
            self.ensure_chips(buyer, price)
            self.command(club.sell_bank, tid, buyer, price)
            self.kitty_ran_out = False
        if rules.shoot:
            self.kitty_between_deals()
        table = self.table
        for player in table.seats:
            if player != table.banker:
                self.ensure_chips(player, rules.min_stake)

    def kitty_between_deals(self) -> None:
        """R9.10: an auction now and then once the kitty ran out; R9.1, R9.9: a kitty when
        one is needed, a top-up now and then."""
        club, rng, tid = self.club, self.rng, self.table_id
        table = self.table
        if self.kitty_ran_out and not table.auction_failed and rng.random() < 0.5:
            self.command(club.open_auction, tid, table.banker)
            for bidder in [p for p in table.seats if p != table.banker]:
                if self.chips(bidder) >= 1 and rng.random() < 0.6:
                    self.command(club.bid, tid, bidder,
                                 rng.randint(1, min(self.chips(bidder), 50)))
            self.command(club.close_auction, tid, table.banker)
            table = self.table
        rules = table.rules
        if table.kitty_needed:
            amount = rng.randint(rules.kitty_min, rules.kitty_max)
            self.ensure_chips(table.banker, amount)
            self.command(club.put_up_kitty, tid, table.banker, amount)
        elif table.kitty < rules.kitty_max and rng.random() < 0.2:
            amount = rng.randint(1, rules.kitty_max - table.kitty)
            self.ensure_chips(table.banker, amount)
            self.command(club.put_up_kitty, tid, table.banker, amount)

    def play_deal(self) -> None:
        club, table = self.club, self.table
        self.before_deal = club.balances
        self.pack_at_start = None if table.needs_shuffle else list(table.pack or [])
        self.deal_id = self.command(club.start_deal, self.table_id)
        while not (deal := self.deal).is_over:
            self.spend_elsewhere(deal)
            self.options = club.legal_actions(self.deal_id)
            assert self.options, f"deal {self.deal_id} is not over but offers no action"
            self.at_moment(self)
            choice = self.choose(self.options)
            self.command(club.act, self.deal_id, choice.player, choice.action,
                         hand=choice.hand, amount=self.amount(choice))
        self.options = []
        table = self.table
        self.kitty_ran_out = table.kitty_needed and table.banker == self.deal.banker
        self.after_deal(self)

    def spend_elsewhere(self, deal: Deal) -> None:
        """Now and then a player still to stake is left with less than the minimum stake,
        as if they had staked at another table (R3.5)."""
        waiting = deal.still_to_stake()
        if not waiting or self.rng.random() >= 0.05:
            return
        player = self.rng.choice(waiting)
        keep = self.rng.randrange(deal.rules.min_stake)
        if self.chips(player) > keep:
            self.command(self.club.cash_out, player, self.chips(player) - keep)

    def choose(self, options: list[LegalAction]) -> LegalAction:
        if self.spec.policy == "cards":
            for preferred in ("split", "burn", "draw", "twist"):
                found = [o for o in options if o.action == preferred]
                if found and self.rng.random() < 0.9:
                    return found[0]
        return options[self.rng.randrange(len(options))]

    def amount(self, choice: LegalAction) -> int | None:
        if choice.amount_min is None or (choice.action == "split" and self.rng.random() < 0.5):
            return None
        assert choice.amount_max is not None
        return self.rng.randint(choice.amount_min, choice.amount_max)


def _balance(club: LedgerClub, account: str) -> int:
    return club.balances.get(account, 0)


def _standing(deal: DealState) -> list[Any]:
    return [hand for _, _, hand in deal.all_hands() if hand.status != BUST]


# --- 1. chips --------------------------------------------------------------------------

@budget(30)
@given(spec=games(max_deals=8))
def test_r11_1_chips_are_conserved_by_every_command(spec: GameSpec) -> None:
    """R11.1: after every command the balances, treasury included, sum to zero; a settled
    or void deal leaves nothing in its escrow (R7, R1.6), an open one holds exactly the
    stakes and shoot bets of hands still standing (R4.7, R9.7); the kitty account holds
    the table's kitty (R9.1, R9.9, R9.11) and shoot bets outstanding never exceed it
    (R9.2)."""

    finished: set[str] = set()  # over for good: their escrow is read, they are not

    def check(game: Game) -> None:
        club = game.club
        assert club.total() == 0, f"the balances sum to {club.total()}: {club.balances}"
        for deal_id in club.recorded.deals:
            if deal_id in finished:
                assert _balance(club, escrow_account(deal_id)) == 0
                continue
            deal = club.deal(deal_id)
            escrow = _balance(club, deal.escrow)
            if deal.is_over:
                finished.add(deal_id)
                assert escrow == 0, f"{deal.escrow} holds {escrow} after the deal ({deal.phase})"
            else:
                standing = _standing(deal)
                assert escrow == sum(h.stake + h.shoot_bet for h in standing), deal.deal_id
                shot = sum(h.shoot_bet for h in standing)
                assert deal.shoot_outstanding == shot
                assert shot <= deal.kitty, f"shoot bets of {shot} against a kitty of {deal.kitty}"
        table = game.table
        open_deal = table.deal_id
        kitty = table.kitty if open_deal is None else club.deal(open_deal).kitty
        assert _balance(club, kitty_account(table.table_id)) == kitty
        assert table.kitty >= 0

    Game(spec, after_command=check).run()


# --- 2. cards --------------------------------------------------------------------------

@budget(30)
@given(spec=games(max_deals=8))
def test_r1_no_card_is_lost_or_duplicated_across_deals(spec: GameSpec) -> None:
    """R1.1, R1.7: between deals the table's pack holds every card of its packs exactly as
    often as the packs do; during a deal the pack, the hands not yet returned (R4.7, R10.8)
    and the banker's cards hold them all. R1.4, R1.5: a deal starts from the pack as the
    last one left it unless it must be shuffled, which is after a pontoon (R2.5, R10.6) or a
    deal void because the pack ran out (R1.6), not one void because every player sat it out
    (R3.5); otherwise the used cards go under the pack in table order, the unseen card of a
    player who sat out in that player's place (R3.5)."""

    def check(game: Game) -> None:
        table = game.table
        full = Counter(full_pack(table.rules.packs))
        assert table.pack is not None
        assert Counter(table.pack) == full, "the table's pack lost or gained cards"
        if table.deal_id is not None:
            deal = game.club.deal(table.deal_id)
            assert deal.pack is not None
            held = Counter(deal.pack)
            for _, _, hand in deal.all_hands():
                if not hand.returned:
                    held.update(hand.cards)
            for unseen in deal.unseen.values():
                held.update(unseen)
            held.update(deal.banker_cards)
            assert held == full, (f"cards lost {sorted((full - held).elements())}, "
                                  f"doubled {sorted((held - full).elements())}")

    def deal_over(game: Game) -> None:
        check(game)
        deal, table = game.deal, game.table
        assert deal.pack is not None
        if game.pack_at_start is not None:  # R1.4: no shuffle, dealt from where it was left
            assert deal.pack is not None
            started = next(fact for stream, fact in game.club.log
                           if stream == deal.deal_id and isinstance(fact, f.DealStarted))
            assert started.pack == game.pack_at_start
        pontoon = pontoon_grade(deal.banker_cards, deal.rules) is not None or any(
            hand.status in (PONTOON, ROYAL_PONTOON) for _, _, hand in deal.all_hands())
        ran_out = deal.voided is not None and deal.voided.shuffle_needed
        # R1.7's December Decision (decision 135): the deal that calls for a shuffle commits
        # to the next pack as it ends, so players may add to it before its first card.
        facts = [fact for stream, fact in game.club.log if stream == table.table_id]
        ended = max(i for i, fact in enumerate(facts)
                    if isinstance(fact, f.DealEnded) and fact.deal_id == deal.deal_id)
        shuffled = any(isinstance(fact, f.PackShuffled) for fact in facts[ended + 1:])
        assert (table.needs_shuffle or shuffled) == (pontoon or ran_out), (
            f"pontoon held: {pontoon}, phase {deal.phase}, needs shuffle "
            f"{table.needs_shuffle}, shuffled at its end {shuffled}")
        if not (pontoon or ran_out):  # R1.5: hands in table order, then the banker's
            used = [card for player in deal.dealt_in
                    for card in (deal.unseen[player] if player in deal.unseen else
                                 [c for hand in deal.hands[player] if not hand.returned
                                  for c in hand.cards])]
            assert table.pack == [*deal.pack, *used, *deal.banker_cards]

    Game(spec, after_command=check, after_deal=deal_over).run()


# --- 3. replay -------------------------------------------------------------------------

def _deal_view(deal: DealState) -> dict[str, Any]:
    view = {name: value for name, value in vars(deal).items() if name != "_out"}
    view["hands"] = {player: [hand.snapshot() for hand in hands]
                     for player, hands in deal.hands.items()}
    view["pack"] = None if deal.pack is None else list(deal.pack)
    view["turn"], view["is_over"] = deal.turn, deal.is_over
    return view


def _table_view(table: Table) -> dict[str, Any]:
    return {**vars(table), "kitty_needed": table.kitty_needed}


def _round_trip(fact: f.Fact) -> f.Fact:
    return f.Fact.from_dict(fact.type, json.loads(json.dumps(fact.to_dict())))


def _check_replay(club: LedgerClub, stream: str, live: Deal | Table) -> None:
    history = [fact for name, fact in club.log if name == stream]
    travelled = [_round_trip(fact) for fact in history]
    assert travelled == history, "a fact changed on its way through JSON"
    if isinstance(live, Table):
        want = _table_view(live)
        views = [_table_view(Table.replay(history)), _table_view(Table.replay(travelled))]
    else:
        want = _deal_view(live)
        views = [_deal_view(Deal.replay(history)), _deal_view(Deal.replay(travelled))]
    for replayed, how in zip(views, ("as recorded", "through JSON"), strict=True):
        differ = {name: (want.get(name), replayed.get(name)) for name in want.keys() | replayed
                  if want.get(name) != replayed.get(name)}
        assert not differ, f"{stream} replayed {how} differs (live, replayed): {differ}"


@budget(12)
@given(spec=games(max_deals=6))
def test_replaying_the_facts_rebuilds_the_same_state(spec: GameSpec) -> None:
    """R11.4 (nothing recorded is changed): replaying a deal's or a table's facts, as
    recorded or after a round trip through JSON, rebuilds the same phase, turn, hands,
    postings, banker cards, kitty and pack (R1.7: a pack can be re-checked from its facts);
    and the audit's verification decides every deal's facts again from them (R7.5), void
    deals (R1.6) and players sitting out (R3.5) included."""

    def check(game: Game) -> None:
        club = game.club
        _check_replay(club, game.table_id, game.table)
        if game.deal_id is not None:
            _check_replay(club, game.deal_id, game.deal)

    def at_end(game: Game) -> None:
        for deal_id, deal in game.club.deals.items():
            _check_replay(game.club, deal_id, deal)
            history = [fact for name, fact in game.club.log if name == deal_id]
            verified = verify_deal(history)
            assert verified.replayed, f"{deal_id} ({deal.phase}): {verified.differences}"

    game = Game(spec, after_command=check)
    game.run()
    at_end(game)


# --- 4. legal actions ------------------------------------------------------------------

def _amounts(option: LegalAction) -> list[int | None]:
    if option.amount_min is None:
        return [None]
    assert option.amount_max is not None and option.amount_min <= option.amount_max
    amounts: list[int | None] = [option.amount_min, option.amount_max]
    return [None, *amounts] if option.action == "split" else amounts


def _refused(game: Game, player: str, action: str, hand: int | None,
             amount: int | None, *, ruleless: bool = False) -> None:
    """The command is refused naming a rule, and nothing changes."""
    club = game.club
    deal = game.deal
    version, balances, head = deal.version, club.balances, club.head
    what = (f"{action} by {player} (hand {hand}, amount {amount}) in phase {deal.phase}, "
            f"turn {deal.turn}")
    try:
        club.act(deal.deal_id, player, action, hand=hand, amount=amount)
    except PontoonError as refusal:
        if ruleless:
            assert refusal.rule is None or RULE_ID.fullmatch(refusal.rule), refusal.rule
        else:
            assert isinstance(refusal.rule, str) and RULE_ID.fullmatch(refusal.rule), (
                f"{what} was refused without a rule id: {refusal.rule!r}: {refusal}")
    else:
        raise AssertionError(f"{what} was accepted but is not a legal action: legal are "
                             f"{game.options}")
    assert deal.version == version, "a refused command changed the deal"
    assert club.balances == balances, "a refused command moved chips"
    assert club.head == head, "a refused command recorded events"


def _plausible_amount(deal: DealState, action: str) -> int | None:
    """An amount that would be in range were the action allowed, so another rule refuses."""
    if action == "stake":
        return deal.rules.min_stake
    if action == "shoot":
        return 1
    if action == "buy" and deal.phase == PLAYING and deal.turn is not None:
        player, index = deal.turn
        if player in deal.hands:
            return buy_range(deal.hands[player][index])[0]
    return deal.rules.min_stake if action == "buy" else None


@budget(12)
@given(spec=games(max_deals=4))
def test_every_legal_action_is_accepted_and_others_are_refused_with_a_rule(
        spec: GameSpec) -> None:
    """Every action `legal_actions` lists is accepted, at both ends of its amount range
    (R3.5, R4.3, R9.2, R9.6); anything else is refused naming the rule: another action
    (R4.5, R4.6, R5.1, R10.1, R10.8, R9.5, R9.12, R10.3, R6.3), another player (R3.1), a
    hand out of turn (R4.9), an amount outside the range (R3.5, R4.3, R9.2) or not held
    (R11.2); a refused command records nothing and moves no chips (R11.2)."""

    def moment(game: Game) -> None:
        if game.rng.random() >= 0.35:
            return
        club, deal, options = game.club, game.deal, game.options
        for option in options:
            for amount in _amounts(option):
                trial = club.fork()
                try:
                    trial.act(deal.deal_id, option.player, option.action, hand=option.hand,
                              amount=amount)
                except PontoonError as refusal:
                    raise AssertionError(
                        f"legal action {option} with amount {amount} in phase {deal.phase} "
                        f"was refused: {refusal} ({refusal.rule})") from refusal
                assert trial.total() == 0
        player, hand = options[0].player, options[0].hand
        listed = {o.action for o in options}
        for action in ACTIONS:
            if action not in listed:
                _refused(game, player, action, hand, _plausible_amount(deal, action))
        for option in options:  # just outside the offered range
            if option.amount_min is None or option.amount_max is None:
                continue
            _refused(game, player, option.action, hand, option.amount_max + 1)
            _refused(game, player, option.action, hand, option.amount_min - 1)
        others = [p for p in [deal.banker, *deal.order, *deal.sat_out, game.outsider]
                  if p != player]
        for other in others:
            option = game.rng.choice(options)
            amount = option.amount_min if option.action != "split" else None
            _refused(game, other, option.action, option.hand, amount)
        if deal.phase == PLAYING:  # R4.9: a later hand may not act before this one
            option = game.rng.choice(options)
            _refused(game, player, option.action, hand + 1, option.amount_min
                     if option.action != "split" else None)
        if deal.phase in (STAKING, SHOOTING) and not game.rng.randrange(4):
            _refused(game, player, "no-such-action", hand, None, ruleless=True)

    def deal_over(game: Game) -> None:
        assert game.club.legal_actions(game.deal.deal_id) == []
        player = game.rng.choice([game.deal.banker, *game.deal.order])
        _refused(game, player, game.rng.choice(ACTIONS), None, None, ruleless=True)

    Game(spec, at_moment=moment, after_deal=deal_over).run()


# --- 5. settlement ---------------------------------------------------------------------

@budget(40)
@given(spec=games(max_deals=8))
def test_r7_5_every_chip_a_deal_moves_is_a_posting_naming_its_rule(spec: GameSpec) -> None:
    """R7.5, R11.1: each player's balance moves during a deal by exactly the postings of
    that deal touching their account, as do the kitty (R9.7, R9.8, R9.11) and the deal's
    escrow; each posting is a positive whole amount naming a rule id, and only this deal's
    escrow. R1.6: a void deal returns every stake and shoot bet and pays nothing else, so
    it leaves every balance as it was."""

    def deal_over(game: Game) -> None:
        club, deal = game.club, game.deal
        changes = net_changes(deal.postings)
        for posting in deal.postings:
            assert type(posting.amount) is int and posting.amount > 0, posting
            assert RULE_ID.fullmatch(posting.rule), posting
            for account in (posting.from_account, posting.to_account):
                assert not account.startswith("escrow:") or account == deal.escrow, posting
                assert account != TREASURY, posting
        accounts = {player_account(p) for p in [deal.banker, *deal.order]}
        accounts |= {deal.escrow, deal.kitty_account}
        assert set(changes) <= accounts, f"postings touch {set(changes) - accounts}"
        for account in accounts:
            moved = _balance(club, account) - game.before_deal.get(account, 0)
            assert moved == changes.get(account, 0), (
                f"{account} moved by {moved} but the deal's postings move it by "
                f"{changes.get(account, 0)}")
        if deal.phase == VOID:
            assert all(value == 0 for value in changes.values()), changes
        recorded = []
        for stream, fact in club.log:
            if stream == deal.deal_id:
                if hasattr(fact, "posting"):
                    recorded.append(fact.posting)
                recorded.extend(getattr(fact, "postings", ()))
        assert recorded == deal.postings, "the deal's postings differ from its facts' postings"
        for posting in club.postings:
            assert type(posting.amount) is int and posting.amount > 0, posting
            assert RULE_ID.fullmatch(posting.rule), posting

    Game(spec, after_deal=deal_over).run()


# --- 6. what each hand is paid ---------------------------------------------------------

def _rule_book_nets(deal: DealState) -> tuple[Counter[str], int]:
    """Each player's net gain over the deal and the kitty's, read from RULES.md alone."""
    rules, banker_cards = deal.rules, deal.banker_cards
    one = 2 if deal.doubled else 1  # R10.3: a payment of one stake is doubled
    banker_pontoon = pontoon_grade(banker_cards, rules) if len(banker_cards) == 2 else None
    banker_hard = sum(POINTS[card] for card in banker_cards)
    banker_trick = len(banker_cards) == 5 and banker_hard <= 21
    nets: Counter[str] = Counter()
    kitty = 0
    for player, _, hand in deal.all_hands():
        stake, shot, cards = hand.stake, hand.shoot_bet, hand.cards
        if sum(POINTS[card] for card in cards) > 21:  # R4.7, R9.7, R10.3
            nets[player] -= stake * (2 if deal.doubled else 1) + shot
            kitty += shot
            continue
        grade = pontoon_grade(cards, rules)
        royal = rules.royal_pontoon and len(cards) == 3 and {RANK[c] for c in cards} == {"7"}
        trick = len(cards) == 5
        if banker_pontoon is not None:  # R3.8, R9.4, R10.4, R10.7
            if grade is not None and grade > banker_pontoon:
                wins, times = True, rules.pontoon_pays
            else:
                nets[player] -= (stake + shot) * rules.banker_pontoon_collects
                continue
        elif royal:  # R10.6
            wins, times = True, 3
        elif banker_hard > 21:  # R7.1
            wins, times = True, rules.pontoon_pays if grade is not None else 2 if trick else one
        elif banker_trick:  # R7.3
            wins, times = grade is not None, rules.pontoon_pays if grade is not None else 2
        elif grade is not None or trick:  # R7.2
            wins, times = True, rules.pontoon_pays if grade is not None else 2
        else:  # R7.2, R2.4: a tie goes to the banker
            wins, times = value(cards) > value(banker_cards), one
        nets[player] += stake * times if wins else -stake * times
        nets[player] += shot if wins else -shot  # R9.8
        kitty += -shot if wins else shot
    return nets, kitty


@budget(40)
@given(spec=games(max_deals=8))
def test_r7_each_hand_is_paid_as_the_rule_book_says(spec: GameSpec) -> None:
    """R7.1-R7.3 with R2.2, R2.4, R2.5, R3.8, R4.7, R9.4, R9.7, R9.8 and R10.3-R10.7: each
    player's balance moves over a settled deal by what the rule book says their hands win or
    lose, and the kitty by the shoot bets lost less those won; R8.1, R9.11: a player's own
    two-card pontoon (not on a split hand) takes the bank when the banker has none, and the
    old banker then takes the kitty."""

    def deal_over(game: Game) -> None:
        club, deal, table = game.club, game.deal, game.table
        if deal.phase == VOID:
            return
        nets, kitty = _rule_book_nets(deal)
        for player in deal.order:
            account = player_account(player)
            moved = _balance(club, account) - game.before_deal.get(account, 0)
            assert moved == nets[player], (
                f"{player} moved by {moved}, the rule book says {nets[player]}: banker "
                f"{deal.banker_cards}, doubled {deal.doubled}, hands "
                f"{[h.snapshot() for h in deal.hands[player]]}")
        banker_pontoon = len(deal.banker_cards) == 2 and pontoon_grade(
            deal.banker_cards, deal.rules) is not None
        takers = [player for player, _, hand in deal.all_hands() if not banker_pontoon
                  and not hand.split and len(hand.cards) == 2
                  and pontoon_grade(hand.cards, deal.rules) is not None]
        assert table.banker == (takers[0] if takers else deal.banker), (
            f"banker {deal.banker_cards}, pontoons taking the bank: {takers}, next banker "
            f"{table.banker}")
        kitty_now = _balance(club, deal.kitty_account)
        kitty_moved = kitty_now - game.before_deal.get(deal.kitty_account, 0)
        if takers:
            assert kitty_now == 0, f"the bank passed (R8.1) but the kitty holds {kitty_now}"
        else:
            assert kitty_moved == kitty, f"the kitty moved by {kitty_moved}, not by {kitty}"

    Game(spec, after_deal=deal_over).run()
