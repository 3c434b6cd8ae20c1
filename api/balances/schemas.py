from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate

from api.calendar import OutOfRange, as_of_cutoff, club_calendar
from api.inputs import QueryRefusal
from api.schemas import Moment, download_format, list_limit, log_position, name_text
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
    as_of = Moment(metadata={
        "description": "every account as it stood then: a date for the end of that club "
                       "day, or an RFC 3339 time with its offset for that instant"})

    @post_load
    def _cutoff(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """`as_of` as the cutoff of the postings counted (exclusive): a day's end, or the
        microsecond after the instant given."""
        bound = data.pop("as_of", None)
        if bound is None:
            return data
        try:
            data["cutoff"] = as_of_cutoff(bound, club_calendar())
        except OutOfRange as refused:
            raise ValidationError(QueryRefusal(f"{refused}."), "as_of") from None
        except ValueError as error:
            raise ValidationError(f"Not a time: {error}.", "as_of") from None
        return data


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
    position = fields.Integer(allow_none=True, metadata={
        "description": "the last position applied; null for balances as of a time"})
    as_of = fields.String(allow_none=True, metadata={
        "format": "date-time", "description": "the balances are those just before this "
                                              "instant (exclusive); null: now"})
