from marshmallow import Schema, ValidationError, fields, validate

from api.inputs import AccountReference, Refusal, Whole
from api.reports.schemas import ChecksSchema, DisputeCountsSchema, DisputeInPeriodSchema
from api.schemas import (
    AMOUNT_MAX,
    CommandAnswerSchema,
    PeriodQuerySchema,
    download_format,
    list_limit,
    log_position,
    time_text,
)

COUNTED_MAX = 1000  # players counted at one close


def day_text(**options: object) -> fields.String:
    return fields.String(metadata={"format": "date"}, **options)


class DaysQuerySchema(PeriodQuerySchema):
    """The club days with play that meet the period (a date: that club day)."""

    after = fields.Date(metadata={
        "description": "the `next` of the previous page: days before this one"})
    limit = list_limit()
    min_position = log_position()


class DayListedSchema(Schema):
    date = day_text(required=True)
    deals = fields.Integer(required=True, metadata={"description": "deals started, not void"})
    chips_issued = fields.Integer(required=True)
    chips_redeemed = fields.Integer(required=True)
    kitty_change = fields.Integer(required=True, metadata={
        "description": "what every kitty gained (+) or lost (-) in the day"})
    disputes_raised = fields.Integer(required=True)
    closed = fields.Boolean(required=True)
    start = time_text(required=True, attribute="from", data_key="from", metadata={
        "description": "when the club day started"})
    end = time_text(required=True, attribute="to", data_key="to", metadata={
        "description": "when it ended (exclusive)"})


class DaysSchema(Schema):
    items = fields.List(fields.Nested(DayListedSchema), required=True, metadata={
        "description": "club days with play, newest first"})
    next = fields.String(allow_none=True, required=True, metadata={
        "description": "pass it as `after` for the days before; null on the last page"})


class NightQuerySchema(Schema):
    format = download_format()
    min_position = log_position()


class NightPlayerSchema(Schema):
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    net = fields.Integer(required=True, metadata={
        "description": "won (+) or lost (-): every change but buy-ins and cash-outs"})
    deals = fields.Integer(required=True)
    buy_ins = fields.Integer(required=True)
    cash_outs = fields.Integer(required=True)
    held_at_end = fields.Integer(required=True, metadata={
        "description": "the player's balance when the day ended (negative: a debt)"})
    to_cash_out = fields.Integer(required=True, metadata={
        "description": "chips the player holds at the end, to redeem"})
    debt_to_collect = fields.Integer(required=True, metadata={
        "description": "chips the player owes at the end (R11.3)"})
    disputes = fields.Integer(required=True)
    corrections = fields.Integer(required=True)


class NightTableSchema(Schema):
    table_id = fields.String(required=True)
    name = fields.String(required=True)
    deals = fields.Integer(required=True)
    kitty_change = fields.Integer(required=True)


class ClosedSchema(Schema):
    at = time_text(required=True)
    by = fields.String(required=True)
    checkpoint = fields.String(allow_none=True, required=True, metadata={
        "description": "POSITION HASH: the log's head when the night was closed (`pontoon "
                       "verify --checkpoint` holds the log to it)"})
    counted = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    held = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True, metadata={
        "description": "what the ledger says each counted player held at the end"})
    differences = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                              metadata={"description": "counted - held (0 for a debt): shown, "
                                                       "never posted"})
    time_zone = fields.String(required=True)
    day_starts_at = fields.String(required=True)


class NightSheetSchema(Schema):
    date = day_text(required=True)
    start = time_text(required=True, data_key="from")
    end = time_text(required=True, data_key="to")
    time_zone = fields.String(required=True)
    day_starts_at = fields.String(required=True)
    deals = fields.Integer(required=True)
    players = fields.List(fields.Nested(NightPlayerSchema), required=True)
    tables = fields.List(fields.Nested(NightTableSchema), required=True)
    disputes = fields.List(fields.Nested(DisputeInPeriodSchema), required=True)
    dispute_counts = fields.Nested(DisputeCountsSchema, required=True)
    checks = fields.Nested(ChecksSchema, required=True)
    closed = fields.Nested(ClosedSchema, allow_none=True, required=True)


class PlayerAccount(AccountReference):
    """A player's account, `player:<id>`: only players' chips are counted."""

    def _deserialize(self, value: object, attr: str | None, data: object, **kwargs: object
                     ) -> str:
        name = super()._deserialize(value, attr, data, **kwargs)
        if not name.startswith("player:"):
            raise ValidationError(Refusal(f"{name} is not a player's account: only players' "
                                          "chips are counted"))
        return name


class CloseSchema(Schema):
    counted = fields.Dict(keys=PlayerAccount(), values=Whole(minimum=0, maximum=AMOUNT_MAX),
                          load_default=dict, validate=validate.Length(max=COUNTED_MAX),
                          metadata={"description": "chips counted on the table, by player "
                                                   "account (optional)"})


class DayClosedSchema(CommandAnswerSchema):
    date = day_text(required=True)
    closed = fields.Nested(ClosedSchema, required=True)
