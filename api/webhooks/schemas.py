from marshmallow import Schema, fields, validate

from api.inputs import Bounds, Text
from api.schemas import CommandAnswerSchema, PageSchema
from api.vocabulary import WEBHOOK_EVENT, WEBHOOK_STATUS, Choice
from domain.aggregates.webhook import EVENT_TYPES, URL_LENGTH_MAX


class WebhookCreateSchema(Schema):
    url = Text(required=True, length_max=URL_LENGTH_MAX)  # no control characters either
    events = fields.List(Choice(WEBHOOK_EVENT), required=True,
                         validate=validate.Length(min=1, max=len(EVENT_TYPES)))


class WebhookCreatedSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(Choice(WEBHOOK_EVENT), required=True)
    secret = fields.String(allow_none=True, metadata={
        "description": "whsec_…, the signing key: shown once; null on an idempotent repeat"})


class WebhookEnableSchema(Schema):
    enabled = fields.Boolean(required=True, truthy={True}, falsy={False}, metadata={
        "description": "true: deliveries resume from the oldest not yet made (those of the "
                       "events while disabled included); false: they wait"})


class WebhookChangedSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    status = fields.String(required=True, validate=validate.OneOf(("active", "disabled")))


class WebhookReplaySchema(Schema):
    from_position = fields.Integer(required=True, strict=True, validate=Bounds(min=1),
                                   metadata={"description": "every delivery of this "
                                             "subscription from this position is made again"})


class WebhookReplayedSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    from_position = fields.Integer(required=True)


class WebhookSchema(Schema):
    """A subscription as shown after it was made: never its secret."""

    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(Choice(WEBHOOK_EVENT), required=True)
    status = Choice(WEBHOOK_STATUS, required=True, metadata={
        "description": "active, or disabled (by the treasurer, or after a delivery failed "
                       "for a day)"})
    created_at = fields.String(allow_none=True)
    position = fields.Integer(allow_none=True)


class WebhooksSchema(PageSchema):
    items = fields.List(fields.Nested(WebhookSchema), required=True)


class DeliverySchema(Schema):
    event_position = fields.Integer(required=True)
    type = Choice(WEBHOOK_EVENT, required=True)
    attempts = fields.Integer(required=True)
    last_status = fields.Integer(allow_none=True, metadata={
        "description": "the receiver's HTTP status; null if none answered"})
    last_error = fields.String(allow_none=True, metadata={
        "description": "why the last attempt failed (an address refused, no answer within "
                       "the timeout, the receiver's status); null once delivered"})
    delivered_at = fields.String(allow_none=True)
    next_attempt_at = fields.String(allow_none=True)


class DeliveriesSchema(PageSchema):
    items = fields.List(fields.Nested(DeliverySchema), required=True)
