from marshmallow import Schema, fields, validate

from api.schemas import CommandAnswerSchema, PageSchema, chips, list_limit, log_position, time_text


class DisputeCreateSchema(Schema):
    reason = fields.String(required=True, validate=validate.Length(min=1, max=2000))


class DisputeCreatedSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    status = fields.String(required=True)
    deal_id = fields.String(required=True)


class CorrectionSchema(Schema):
    from_account = fields.String(required=True, validate=validate.Length(max=100))
    to_account = fields.String(required=True, validate=validate.Length(max=100))
    amount = chips(required=True)


class ResolutionSchema(Schema):
    decision = fields.String(required=True, validate=validate.OneOf(["upheld", "rejected"]))
    note = fields.String(required=True, validate=validate.Length(min=1, max=2000))
    corrections = fields.List(fields.Nested(CorrectionSchema), load_default=list,
                              validate=validate.Length(max=50))


class CorrectionPostedSchema(Schema):
    id = fields.String(required=True)
    from_account = fields.String(required=True)
    to_account = fields.String(required=True)
    amount = fields.Integer(required=True)


class ResolvedSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    status = fields.String(required=True)
    decision = fields.String(required=True)
    corrections = fields.List(fields.Nested(CorrectionPostedSchema), required=True)


class DisputeSchema(Schema):
    """Dumped from a row of the disputes read model."""

    id = fields.String(required=True, attribute="dispute_id")
    deal_id = fields.String(required=True)
    raised_by = fields.String(required=True)
    reason = fields.String(required=True)
    status = fields.String(required=True)
    decision = fields.String(allow_none=True)
    note = fields.String(allow_none=True)
    corrections = fields.List(fields.Nested(CorrectionPostedSchema), required=True)
    resolved_by = fields.String(allow_none=True)
    raised_at = time_text(required=True)
    resolved_at = time_text(allow_none=True)
    position = fields.Integer(required=True, attribute="raised_position")


class DisputesSchema(PageSchema):
    items = fields.List(fields.Nested(DisputeSchema), required=True)


class DisputesQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(["open", "resolved"]))
    deal_id = fields.UUID(metadata={"description": "the disputes about one deal"})
    after = log_position(metadata={"description": "the `next` of the previous page"})
    limit = list_limit()
    min_position = log_position()
