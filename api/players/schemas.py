from marshmallow import Schema, fields

from api.schemas import (
    CommandAnswerSchema,
    PageSchema,
    PostingSchema,
    chips,
    log_position,
    name_text,
)


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
    as_of = fields.AwareDateTime(metadata={"description": "RFC 3339 time"})
    position = log_position(metadata={
        "description": "a position of the event log (waits until the read models have it)"})
    min_position = log_position()


class BalanceSchema(Schema):
    player_id = fields.String(required=True)
    balance = fields.Integer(required=True)
    position = fields.Integer(allow_none=True)


class StatementEntrySchema(PostingSchema):
    """A posting of the account, with the balance it left; recorded, so `at` and `position`
    are known. Dumped from a row of the statements read model."""

    id = fields.String(required=True, attribute="posting_id")
    at = fields.String(required=True)
    position = fields.Integer(required=True)
    change = fields.Integer(required=True, metadata={"description": "+ credit, - debit"})
    balance = fields.Integer(required=True, attribute="balance_after",
                             metadata={"description": "running balance"})


class StatementSchema(PageSchema):
    items = fields.List(fields.Nested(StatementEntrySchema), required=True)
