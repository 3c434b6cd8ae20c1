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
    position = fields.Integer(strict=False, validate=validate.Range(min=0))


class BalanceSchema(Schema):
    player_id = fields.String(required=True)
    balance = fields.Integer(required=True)
    position = fields.Integer(allow_none=True)
