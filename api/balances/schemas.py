from marshmallow import Schema, fields


class AccountBalanceSchema(Schema):
    account = fields.String(required=True, metadata={
        "description": "player:<id>, treasury, kitty:<table id> or escrow:<deal id>"})
    kind = fields.String(required=True)
    owner = fields.String(allow_none=True)
    name = fields.String(allow_none=True)
    balance = fields.Integer(required=True, metadata={"description": "negative: a debt"})


class BalancesSchema(Schema):
    accounts = fields.List(fields.Nested(AccountBalanceSchema), required=True)
    total = fields.Integer(required=True, metadata={"description": "always 0 (R11.1)"})
    debts = fields.Integer(required=True, metadata={"description": "players' debts, summed"})
    position = fields.Integer(allow_none=True)
