from marshmallow import Schema, fields, validate

from api.schemas import PeriodQuerySchema, download_format, log_position, time_text


class PeriodReportQuerySchema(PeriodQuerySchema):
    format = download_format()
    min_position = log_position()


class PlayerResultSchema(Schema):
    """One player over the period (API.md: exactly these fields)."""

    player_id = fields.String(required=True)
    name = fields.String(required=True)
    net = fields.Integer(required=True, metadata={
        "description": "won (+) or lost (-) at the tables: every change but buy-ins and "
                       "cash-outs, kitty put-ups and corrections included"})
    deals = fields.Integer(required=True, metadata={
        "description": "deals started in the period the player sat in, banker or player"})
    buy_ins = fields.Integer(required=True)
    cash_outs = fields.Integer(required=True)
    kitty_put_up = fields.Integer(required=True, metadata={
        "description": "chips the player put into kitties (R9.1, R9.9)"})
    kitty_won = fields.Integer(required=True, metadata={
        "description": "chips the player took from kitties (R9.4, R9.11)"})
    disputes_raised = fields.Integer(required=True, metadata={
        "description": "disputes the player raised in the period"})
    disputes = fields.Integer(required=True, metadata={
        "description": "disputes raised in the period about deals the player sat in, "
                       "banker or player, whoever raised them"})
    corrections = fields.Integer(required=True, metadata={
        "description": "the net of the correcting postings (R11.4) on the player's account "
                       "in the period"})


class ChecksSchema(Schema):
    chips_issued = fields.Integer(required=True, metadata={
        "description": "chips the treasury issued in the period (buy-ins, corrections)"})
    chips_redeemed = fields.Integer(required=True, metadata={
        "description": "chips returned to the treasury in the period"})
    chips_held = fields.Integer(required=True, metadata={
        "description": "chips held by players, kitties and stakes on tables at `to`"})
    chips_held_before = fields.Integer(required=True, metadata={
        "description": "the same at `from`"})
    balanced = fields.Boolean(required=True, metadata={
        "description": "held before + issued - redeemed = held: every chip issued is held "
                       "or redeemed"})


class KittyInPeriodSchema(Schema):
    account = fields.String(required=True)
    table_id = fields.String(required=True)
    change = fields.Integer(required=True)


class DisputeCountsSchema(Schema):
    raised = fields.Integer(required=True)
    resolved = fields.Integer(required=True)


class DisputeInPeriodSchema(Schema):
    id = fields.String(required=True)
    deal_id = fields.String(required=True)
    table_name = fields.String(allow_none=True, required=True)
    deal_number = fields.Integer(allow_none=True, required=True)
    status = fields.String(required=True, validate=validate.OneOf(["open", "resolved"]))
    raised_at = time_text(required=True)
    club_day = fields.String(allow_none=True, metadata={"format": "date"})
    corrections_total = fields.Integer(required=True, metadata={
        "description": "the chips the dispute's correcting postings moved (R11.4)"})


class PeriodReportSchema(Schema):
    start = time_text(allow_none=True, required=True, data_key="from")
    end = time_text(allow_none=True, required=True, data_key="to")
    items = fields.List(fields.Nested(PlayerResultSchema), required=True, metadata={
        "description": "every player active in the period, by name"})
    next = fields.Integer(allow_none=True, required=True, metadata={
        "description": "always null: a report is one page"})
    deals = fields.Integer(required=True, metadata={"description": "deals started, not void"})
    kitties = fields.List(fields.Nested(KittyInPeriodSchema), required=True)
    disputes = fields.List(fields.Nested(DisputeInPeriodSchema), required=True, metadata={
        "description": "the disputes raised in the period, oldest first"})
    dispute_counts = fields.Nested(DisputeCountsSchema, required=True, metadata={
        "description": "disputes raised, and resolved, in the period"})
    checks = fields.Nested(ChecksSchema, required=True)
