from marshmallow import Schema, fields, validate

from api.inputs import HexDigits
from api.schemas import (
    CommandAnswerSchema,
    KeyedPageSchema,
    PageSchema,
    PeriodQuerySchema,
    card_codes,
    chips,
    club_day,
    list_limit,
    log_position,
    name_text,
    time_text,
)
from api.vocabulary import PACK_MODE, PHASE, Choice
from domain.engine.rules import BURN_OPTIONS, PONTOON_KINDS, SPLIT_OPTIONS
from domain.engine.table_state import KEPT_PACKS


class RulesSchema(Schema):
    """R3.3 and the variations of R10; every field defaults as in API.md."""

    min_stake = chips(load_default=1)
    max_stake = chips(load_default=10)
    shoot = fields.Boolean(load_default=False)
    kitty_min = chips(load_default=10)
    kitty_max = chips(load_default=100)
    packs = fields.Integer(load_default=1, strict=True, validate=validate.OneOf([1, 2]))
    split = fields.String(load_default="pairs", validate=validate.OneOf(SPLIT_OPTIONS))
    stick_minimum = fields.Integer(load_default=15, strict=True,
                                   validate=validate.OneOf([15, 16]))
    banker_may_double = fields.Boolean(load_default=False)
    pontoon_pays = fields.Integer(load_default=2, strict=True,
                                  validate=validate.OneOf([1, 2, 3]))
    banker_pontoon_collects = fields.Integer(load_default=2, strict=True,
                                             validate=validate.OneOf([1, 2]))
    no_fifth_card_buy_on_low_four = fields.Boolean(load_default=False)
    royal_pontoon = fields.Boolean(load_default=False)
    pontoon_kinds = fields.String(load_default="plain", validate=validate.OneOf(PONTOON_KINDS))
    burn = fields.String(load_default="off", validate=validate.OneOf(BURN_OPTIONS))


class PackSchema(Schema):
    mode = Choice(PACK_MODE, load_default="shuffled")
    cards = card_codes()


class TableCreateSchema(Schema):
    name = name_text(required=True)
    seats = fields.List(fields.UUID(), required=True, validate=validate.Length(max=60),
                        metadata={"description": "player ids in clockwise order, 2 or more"})
    banker = fields.UUID(allow_none=True, metadata={
        "description": "omitted: the players cut for the bank (R3.2)"})
    rules = fields.Nested(RulesSchema, load_default=dict)
    pack = fields.Nested(PackSchema, load_default=dict)


class ContributionSchema(Schema):
    player_id = fields.UUID(required=True, metadata={
        "description": "the seated player adding to the pack: their own token only"})
    value = HexDigits(64, required=True, metadata={
        "description": "32 random bytes as 64 hex digits, chosen by the player (R1.7)"})


class ContributedSchema(Schema):
    player_id = fields.String(required=True)
    value = fields.String(required=True, metadata={"description": "64 hex digits"})


class RevealedPackSchema(Schema):
    commitment = fields.String(required=True)
    seed = fields.String(required=True)


class AuctionBidSchema(Schema):
    player_id = fields.String(required=True)
    price = fields.Integer(required=True)


class PackViewSchema(Schema):
    mode = Choice(PACK_MODE, required=True)
    commitment = fields.String(allow_none=True, metadata={
        "description": "SHA-256 of the current pack's secret seed (R1.7)"})
    contributions = fields.List(fields.Nested(ContributedSchema), required=True, metadata={
        "description": "the players' randomness mixed into the current pack's seed, in the "
                       "order recorded (R1.7)"})
    accepting_contributions = fields.Boolean(required=True, metadata={
        "description": "true between the pack's commitment and its first card: seated "
                       "players may add theirs (POST /v1/tables/{id}/contributions)"})
    revealed = fields.List(fields.Nested(RevealedPackSchema), metadata={
        "description": f"the last {KEPT_PACKS} earlier packs' commitments with their now "
                       "public seeds, oldest first; every pack: GET /v1/tables/{id}/packs"})


class TableSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    seats = fields.List(fields.String(), required=True)
    banker = fields.String(required=True)
    rules = fields.Nested(RulesSchema, required=True)
    kitty = fields.Integer(required=True)
    deal_id = fields.String(allow_none=True)
    deals_played = fields.Integer(required=True)
    pack = fields.Nested(PackViewSchema, required=True)
    auction = fields.List(fields.Nested(AuctionBidSchema), allow_none=True, metadata={
        "description": "bids of an open auction of the bank (R9.10), else null"})
    version = fields.Integer(required=True)


class SeatSchema(Schema):
    player_id = fields.UUID(required=True)
    after = fields.UUID(allow_none=True, metadata={"description": "default: the last seat"})


class KittySchema(Schema):
    amount = chips(required=True)


class BankSaleSchema(Schema):
    buyer_id = fields.UUID(required=True)
    price = chips(required=True)


class EmptySchema(Schema):
    pass


class BidSchema(Schema):
    player_id = fields.UUID(required=True)
    price = chips(required=True)


class AuctionClosedSchema(CommandAnswerSchema):
    sold_to = fields.String(allow_none=True, required=True)
    price = fields.Integer(allow_none=True)


class DealCreateSchema(Schema):
    cards = card_codes(metadata={
        "description": "recorded mode only: the first card of each player and the banker, in "
                       "dealing order (R3.4)"})


class KittyChangeSchema(Schema):
    """Dumped from a row of the kitty's statement (the statements read model)."""

    at = time_text(required=True)
    position = fields.Integer(required=True)
    deal_id = fields.String(allow_none=True)
    club_day = club_day()
    change = fields.Integer(required=True)
    kitty_after = fields.Integer(required=True, attribute="balance_after")
    reason = fields.String(required=True)
    rule = fields.String(required=True)
    player_id = fields.String(allow_none=True, metadata={
        "description": "the player whose bet, put-up or win this is, when there is one"})


class KittyHistorySchema(PageSchema):
    items = fields.List(fields.Nested(KittyChangeSchema), required=True)


class TablesQuerySchema(Schema):
    name = name_text(metadata={
        "description": "tables whose name starts with this, in any case"})
    after = fields.UUID(metadata={"description": "the `next` of the previous page"})
    limit = list_limit()
    min_position = log_position()


class TableListedSchema(Schema):
    """Dumped from a row of the tables read model."""

    id = fields.String(required=True, attribute="table_id")
    name = fields.String(required=True)
    shoot = fields.Boolean(required=True)
    banker = fields.String(required=True)
    kitty = fields.Integer(required=True)
    deals_played = fields.Integer(required=True)
    opened_at = time_text(required=True)
    club_day = club_day(description="the club day the table was opened in")


class TablesSchema(KeyedPageSchema):
    items = fields.List(fields.Nested(TableListedSchema), required=True)


class TableDealsQuerySchema(PeriodQuerySchema):
    """`from` and `to` compare with the time each deal started."""

    after = fields.Integer(validate=validate.Range(min=0, max=2**31), metadata={
        "description": "the `next` of the previous page (a deal number)"})
    limit = list_limit()
    order = fields.String(load_default="asc", validate=validate.OneOf(["asc", "desc"]))
    min_position = log_position()


class DealListedSchema(Schema):
    """Dumped from a row of the deals read model."""

    id = fields.String(required=True, attribute="deal_id")
    table_id = fields.String(required=True)
    number = fields.Integer(required=True)
    phase = Choice(PHASE, required=True, metadata={"description": "as in the deal view"})
    banker = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    started_at = time_text(required=True)
    club_day = club_day()
    ended_at = time_text(allow_none=True)
    position = fields.Integer(required=True, attribute="started_position")
    disputed = fields.Boolean(required=True, metadata={
        "description": "a dispute was raised about the deal (R11.4)"})
    disputes = fields.Integer(required=True, metadata={
        "description": "disputes raised about the deal, open or resolved"})


class DealsSchema(PageSchema):
    items = fields.List(fields.Nested(DealListedSchema), required=True)


class PackContributionSchema(ContributedSchema):
    position = fields.Integer(required=True)
    at = time_text(required=True)


class PackListedSchema(Schema):
    """Dumped from a row of the shuffles read model."""

    commitment = fields.String(required=True, metadata={
        "description": "SHA-256 of the pack's seed, published before its first card (R1.7)"})
    seed = fields.String(allow_none=True, required=True, metadata={
        "description": "revealed when the pack is next shuffled (R1.7); null until then"})
    position = fields.Integer(required=True, attribute="shuffled_position", metadata={
        "description": "the log position of the shuffle (the list's order and cursor)"})
    revealed_position = fields.Integer(allow_none=True, required=True, metadata={
        "description": "the log position of the next shuffle, which revealed the seed"})
    dealt_position = fields.Integer(allow_none=True, required=True, metadata={
        "description": "the log position of the first deal dealt from the pack, which "
                       "closed it to contributions; null while none (R1.7)"})
    contributions = fields.List(fields.Nested(PackContributionSchema), required=True,
                                metadata={"description": "mixed into the seed in this order "
                                                         "(R1.7)"})


class PacksSchema(PageSchema):
    items = fields.List(fields.Nested(PackListedSchema), required=True)
    fair_shuffle = fields.Boolean(required=True, metadata={
        "description": "false at a table opened with an ordered pack: its reshuffles come "
                       "from a seed every player can work out (its first pack, given in "
                       "order, is not listed)"})
