from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from api.inputs import Refusal, Text
from api.schemas import CommandAnswerSchema, name_text
from domain.engine.calendar import hour, zone
from domain.errors import NotAllowed


class ZoneName(Text):
    """An IANA time zone name the database knows (Europe/London); any other is refused."""

    def __init__(self, **options: Any) -> None:
        super().__init__(length_max=64, metadata={
            "description": "an IANA time zone name such as Europe/London or "
                           "America/New_York"}, **options)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        name = super()._deserialize(value, attr, data, **kwargs)
        try:
            zone(name)
        except NotAllowed as refused:
            raise ValidationError(Refusal(refused.message.partition(": ")[2])) from None
        return name


class HourOfDay(fields.String):
    """`HH:MM`, 00:00 to 23:59: the local time a club day starts."""

    def __init__(self, **options: Any) -> None:
        super().__init__(validate=validate.Length(max=5), metadata={
            "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"}, **options)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        written: str = super()._deserialize(value, attr, data, **kwargs)
        try:
            hour(written)
        except NotAllowed as refused:
            raise ValidationError(Refusal(refused.message.partition(": ")[2])) from None
        return written


class ClubSettingsSchema(Schema):
    name = fields.String(required=True, metadata={
        "description": "the club's name, printed on its sheets"})
    time_zone = fields.String(required=True, metadata={
        "description": "the IANA time zone of the club's days and pages"})
    day_starts_at = fields.String(required=True, metadata={
        "description": "the local time (HH:MM) each club day starts: play after midnight "
                       "belongs to the day before until then"})


class ClubSchema(ClubSettingsSchema):
    simulated = fields.Boolean(required=True, metadata={
        "description": "true when the store holds a history played on a simulated clock "
                       "(pontoon simulate --start), not a real club's"})


class ClubChangeSchema(Schema):
    """What the treasurer changes; what is left out stays as it is."""

    name = name_text()
    time_zone = ZoneName()
    day_starts_at = HourOfDay()


class ClubChangedSchema(ClubSettingsSchema, CommandAnswerSchema):
    pass
