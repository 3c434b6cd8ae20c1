from marshmallow import Schema, fields, validate

AMOUNT_MAX = 1_000_000_000


class PlayerCreateSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=100))


class PlayerCreatedSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    token = fields.String(allow_none=True, metadata={
        "description": "the player's bearer token, shown once (null on an idempotent repeat)"})
    position = fields.Integer(allow_none=True)


class PlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    balance = fields.Integer(required=True)


class AmountSchema(Schema):
    amount = fields.Integer(required=True, strict=True,
                            validate=validate.Range(max=AMOUNT_MAX))


class ChipsMovedSchema(Schema):
    posting_id = fields.String(required=True)
    balance = fields.Integer(required=True)
    position = fields.Integer(allow_none=True)


class BalanceQuerySchema(Schema):
    as_of = fields.AwareDateTime(metadata={"description": "RFC 3339 time"})
    position = fields.Integer(validate=validate.Range(min=0, max=2**62), metadata={
        "description": "a position of the event log (waits until the read models have it)"})
    min_position = fields.Integer(validate=validate.Range(min=0, max=2**62))


class BalanceSchema(Schema):
    player_id = fields.String(required=True)
    balance = fields.Integer(required=True)
    position = fields.Integer(allow_none=True)


class StatementEntrySchema(Schema):
    id = fields.String(required=True)
    at = fields.String(required=True)
    position = fields.Integer(required=True)
    from_account = fields.String(required=True)
    to_account = fields.String(required=True)
    amount = fields.Integer(required=True)
    change = fields.Integer(required=True, metadata={"description": "+ credit, - debit"})
    balance = fields.Integer(required=True, metadata={"description": "running balance"})
    rule = fields.String(required=True)
    deal_id = fields.String(allow_none=True)
    hand = fields.Integer(allow_none=True)
    reason = fields.String(required=True)


class StatementSchema(Schema):
    items = fields.List(fields.Nested(StatementEntrySchema), required=True)
    next = fields.Integer(allow_none=True, required=True)
