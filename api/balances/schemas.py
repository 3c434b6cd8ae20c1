from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from api.schemas import download_format, list_limit, log_position, name_text
from api.vocabulary import ACCOUNT_KIND, Choice
from projections.balances import KINDS


class Kinds(fields.String):
    """`kind=player,kitty`: the kinds of account to list."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        text = super()._deserialize(value, attr, data, **kwargs)
        kinds = [part.strip() for part in text.split(",")]
        if not all(kind in KINDS for kind in kinds):
            raise ValidationError(f"kinds are {', '.join(KINDS)}, separated by commas")
        return sorted(set(kinds), key=KINDS.index)


class BalancesQuerySchema(Schema):
    kind = Kinds(load_default=lambda: ["player", "kitty", "treasury"],
                 validate=validate.Length(max=60), metadata={
                     "description": "player, kitty, treasury and/or escrow, separated by "
                                    "commas; default player,kitty,treasury"})
    after = name_text(metadata={
        "description": "the `next` of the previous page (an account)"})
    limit = list_limit()
    format = download_format()
    min_position = log_position()


class AccountBalanceSchema(Schema):
    account = fields.String(required=True, metadata={
        "description": "player:<id>, treasury, kitty:<table id> or escrow:<deal id>"})
    kind = Choice(ACCOUNT_KIND, required=True)
    owner = fields.String(allow_none=True)
    name = fields.String(allow_none=True)
    balance = fields.Integer(required=True, metadata={"description": "negative: a debt"})


class BalancesSchema(Schema):
    items = fields.List(fields.Nested(AccountBalanceSchema), required=True, metadata={
        "description": "players first (by name), then kitties, the treasury, escrows"})
    next = fields.String(allow_none=True, required=True)
    accounts = fields.List(fields.Nested(AccountBalanceSchema), required=True, metadata={
        "description": "the same page as `items` (kept for existing clients)"})
    total = fields.Integer(required=True, metadata={
        "description": "every account, whatever the filter: always 0 (R11.1)"})
    debts = fields.Integer(required=True, metadata={
        "description": "players' debts, summed over every player"})
    position = fields.Integer(allow_none=True)
