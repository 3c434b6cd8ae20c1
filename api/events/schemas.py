from marshmallow import Schema, fields

from api.schemas import PageSchema, club_day, time_text


class EventSchema(Schema):
    position = fields.Integer(required=True)
    at = time_text(required=True)
    club_day = club_day()
    stream_id = fields.String(required=True)
    type = fields.String(required=True, metadata={"description": "e.g. Deal.CardDealt"})
    data = fields.Dict(required=True)


class EventsSchema(PageSchema):
    items = fields.List(fields.Nested(EventSchema), required=True)
