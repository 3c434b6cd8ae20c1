from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from api.schemas import CursorQuerySchema, PageSchema, club_day, time_text
from api.vocabulary import EVENT_TYPE, Choice


class EventTypes(fields.List):
    """`type=Deal.DealSettled,Table.KittyPutUp`, or the parameter repeated (as generated
    clients send a list): the types to list, each one the feed knows (400 otherwise)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(Choice(EVENT_TYPE), validate=validate.Length(min=1), **options)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        given = value if isinstance(value, list) else [value]
        names = [part.strip() for item in given for part in str(item).split(",")]
        unknown = [name for name in names if name not in EVENT_TYPE.values]
        if unknown:
            raise ValidationError(f"unknown event type: {', '.join(unknown)[:200]} (the types "
                                  "are the EventType enum of /openapi.json, e.g. "
                                  "Deal.DealSettled)")
        loaded = super()._deserialize(names, attr, data, **kwargs)
        return list(dict.fromkeys(loaded))


class EventsQuerySchema(CursorQuerySchema):
    type = EventTypes(metadata={
        "description": "only events of these types: several separated by commas, or the "
                       "parameter repeated"})


class EventSchema(Schema):
    position = fields.Integer(required=True)
    at = time_text(required=True)
    club_day = club_day()
    stream_id = fields.String(required=True)
    type = Choice(EVENT_TYPE, required=True, metadata={"description": "e.g. Deal.CardDealt"})
    data = fields.Dict(required=True)


class EventsSchema(PageSchema):
    items = fields.List(fields.Nested(EventSchema), required=True)
