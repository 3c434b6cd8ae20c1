from marshmallow import Schema, fields


class FailureSchema(Schema):
    """A read model that cannot apply an event; it is tried again with backoff."""

    model = fields.String(required=True)
    position = fields.Integer(required=True)
    error = fields.String(required=True)
    attempts = fields.Integer(required=True)
    failed_at = fields.String(required=True)
    next_attempt_at = fields.String(required=True)


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={
        "description": "ok; degraded (staff) while a read model cannot apply an event"})
    store = fields.String(metadata={"description": "staff only"})
    position = fields.Integer(allow_none=True, metadata={"description": "staff only"})
    projections = fields.Dict(keys=fields.String(), values=fields.Integer(),
                              metadata={"description": "staff only: each model's lag"})
    failures = fields.List(fields.Nested(FailureSchema),
                           metadata={"description": "staff only"})


class ReadySchema(Schema):
    status = fields.String(required=True)
