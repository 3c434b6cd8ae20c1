from marshmallow import Schema, fields

from api.schemas import (
    CommandAnswerSchema,
    HistoryQuerySchema,
    KeyedPageSchema,
    PageSchema,
    PostingSchema,
    chips,
    club_day,
    list_limit,
    log_position,
    name_text,
    time_text,
)
from api.vocabulary import ENTRY_KIND, Choice


class PlayerCreateSchema(Schema):
    name = name_text(required=True)


class PlayerCreatedSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    token = fields.String(allow_none=True, metadata={
        "description": "the player's bearer token, shown once (null on an idempotent repeat)"})


class PlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    balance = fields.Integer(required=True)


class AmountSchema(Schema):
    amount = chips(required=True)


class ChipsMovedSchema(CommandAnswerSchema):
    posting_id = fields.String(required=True)
    balance = fields.Integer(required=True)


class BalanceQuerySchema(Schema):
    as_of = fields.AwareDateTime(metadata={"description": "RFC 3339 time",
                                           "format": "date-time"})
    position = log_position(metadata={
        "description": "a position of the event log (waits until the read models have it)"})
    min_position = log_position()


class BalanceSchema(Schema):
    player_id = fields.String(required=True)
    balance = fields.Integer(required=True)
    position = fields.Integer(allow_none=True)


class DealNamedSchema(Schema):
    """Which deal a row is about, in words, and a correction's dispute (decision 142)."""

    table_name = fields.String(allow_none=True, metadata={
        "description": "the table of the row's deal (a correction's: the disputed deal's), "
                       "or of its kitty"})
    deal_number = fields.Integer(allow_none=True, metadata={
        "description": "the number of the row's deal at its table"})
    dispute_id = fields.String(allow_none=True, metadata={
        "description": "a correction (R11.4): the dispute it was decided in"})


class StatementEntrySchema(PostingSchema, DealNamedSchema):
    """A posting of the account, with the balance it left; recorded, so `at` and `position`
    are known. Dumped from a row of the statements read model."""

    id = fields.String(required=True, attribute="posting_id")
    at = time_text(required=True)
    club_day = club_day()
    position = fields.Integer(required=True)
    change = fields.Integer(required=True, metadata={"description": "+ credit, - debit"})
    balance = fields.Integer(required=True, attribute="balance_after",
                             metadata={"description": "running balance"})


class StatementSchema(PageSchema):
    items = fields.List(fields.Nested(StatementEntrySchema), required=True)


class PlayersQuerySchema(Schema):
    name = name_text(metadata={
        "description": "players with a word of their name that starts with this, in any "
                       "case (\"quinn\" finds Nora Quinn)"})
    after = fields.UUID(metadata={"description": "the `next` of the previous page"})
    limit = list_limit()
    min_position = log_position()


class PlayerListedSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    balance = fields.Integer(required=True)


class PlayersSchema(KeyedPageSchema):
    items = fields.List(fields.Nested(PlayerListedSchema), required=True)


class StatementQuerySchema(HistoryQuerySchema):
    pass


class DealNetSchema(DealNamedSchema):
    """A player's (or a kitty's) net change in one deal, or one posting outside deals."""

    kind = Choice(ENTRY_KIND, required=True)
    deal_id = fields.String(allow_none=True)
    table_id = fields.String(allow_none=True)
    number = fields.Integer(allow_none=True, metadata={"description": "the deal's number"})
    at = time_text(required=True, metadata={"description": "the first posting's time"})
    club_day = club_day("the club day of the first posting")
    last_at = time_text(required=True)
    position = fields.Integer(required=True, metadata={
        "description": "the last posting's position: the cursor"})
    net = fields.Integer(required=True, metadata={"description": "+ won, - lost"})
    postings = fields.Integer(required=True)
    balance = fields.Integer(required=True, attribute="balance_after",
                             metadata={"description": "balance after the last posting"})
    rule = fields.String(allow_none=True, metadata={"description": "outside deals only"})
    reason = fields.String(allow_none=True, metadata={"description": "outside deals only"})


class DealNetsSchema(PageSchema):
    items = fields.List(fields.Nested(DealNetSchema), required=True)
