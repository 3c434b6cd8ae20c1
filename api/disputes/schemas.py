from marshmallow import Schema, fields, validate

from api.deals.schemas import AuditPostingSchema
from api.schemas import (
    CommandAnswerSchema,
    PageSchema,
    account_reference,
    chips,
    club_day,
    free_text,
    list_limit,
    log_position,
    time_text,
)
from api.vocabulary import DISPUTE_DECISION, DISPUTE_STATUS, Choice


class DisputeCreateSchema(Schema):
    reason = free_text(required=True)


class DisputeCreatedSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    status = Choice(DISPUTE_STATUS, required=True)
    deal_id = fields.String(required=True)


class CorrectionSchema(Schema):
    from_account = account_reference(required=True)
    to_account = account_reference(required=True)
    amount = chips(required=True)


class ResolutionSchema(Schema):
    decision = Choice(DISPUTE_DECISION, required=True)
    note = free_text(required=True)
    corrections = fields.List(fields.Nested(CorrectionSchema), load_default=list,
                              validate=validate.Length(max=50), metadata={
                                  "description": "between the accounts of the disputed "
                                                 "deal and the treasury, in all no more "
                                                 "than the chips the deal moved (R11.4)"})
    allow_debt = fields.Boolean(load_default=False, metadata={
        "description": "true lets a correction take a player below zero, shown as their "
                       "debt (R11.3); otherwise that is refused (R11.2)"})


class CorrectionPostedSchema(Schema):
    id = fields.String(required=True)
    from_account = fields.String(required=True)
    to_account = fields.String(required=True)
    amount = fields.Integer(required=True)


class ResolvedSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    status = Choice(DISPUTE_STATUS, required=True)
    decision = Choice(DISPUTE_DECISION, required=True)
    corrections = fields.List(fields.Nested(CorrectionPostedSchema), required=True)
    allow_debt = fields.Boolean(required=True)


class DisputeSchema(Schema):
    """Dumped from a row of the disputes read model."""

    id = fields.String(required=True, attribute="dispute_id")
    deal_id = fields.String(required=True)
    raised_by = fields.String(required=True)
    reason = fields.String(required=True)
    status = Choice(DISPUTE_STATUS, required=True)
    decision = Choice(DISPUTE_DECISION, allow_none=True)
    note = fields.String(allow_none=True)
    corrections = fields.List(fields.Nested(CorrectionPostedSchema), required=True)
    resolved_by = fields.String(allow_none=True)
    raised_at = time_text(required=True)
    club_day = club_day("the club day the dispute was raised in")
    resolved_at = time_text(allow_none=True)
    position = fields.Integer(required=True, attribute="raised_position")
    allow_debt = fields.Boolean(allow_none=True, metadata={
        "description": "the resolution let a correction leave a player in debt (R11.3)"})


class DisputeDetailSchema(DisputeSchema):
    """One dispute with its resolution and its correcting postings in full (R11.4)."""

    corrections = fields.List(fields.Nested(AuditPostingSchema), required=True)
    version = fields.Integer(required=True, metadata={
        "description": "1 while open, 2 once resolved; also the ETag"})


class DisputesSchema(PageSchema):
    items = fields.List(fields.Nested(DisputeSchema), required=True)


class DisputesQuerySchema(Schema):
    status = Choice(DISPUTE_STATUS)
    deal_id = fields.UUID(metadata={"description": "the disputes about one deal"})
    after = log_position(metadata={"description": "the `next` of the previous page"})
    limit = list_limit()
    min_position = log_position()
