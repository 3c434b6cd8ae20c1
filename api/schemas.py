"""The schema pieces several resources share: bounded numbers, text, answers, pages and
postings. Every field a client writes is one of api/inputs.py's types."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate

from api.calendar import HOW, OutOfRange, bound_text, club_calendar, parse_bound
from api.inputs import AccountReference, QueryRefusal, Text, Whole

AMOUNT_MAX = 1_000_000_000
NAME_MAX = 100
TEXT_MAX = 2000
POSITION_MAX = 2**62
CARD_LENGTH_MAX = 3  # "10H" in R1.3 notation
CARDS_MAX = 104  # two packs, the most a table plays with


def chips(**options: Any) -> fields.Integer:
    """A chip amount a client sends: a whole number (never "5" or 5.0), bounded; the rules
    refuse zero and negative amounts, naming the rule."""
    return Whole(maximum=AMOUNT_MAX, **options)


def small_number(minimum: int, maximum: int, **options: Any) -> fields.Integer:
    """A small whole number a client sends, such as a hand's index."""
    return Whole(minimum=minimum, maximum=maximum, **options)


def name_text(**options: Any) -> fields.String:
    """A name a client gives (a player, a table): one line of text."""
    return Text(length_max=NAME_MAX, **options)


def free_text(**options: Any) -> fields.String:
    """Sentences a client writes (a dispute's reason, a resolution's note): line breaks and
    tabs allowed, no other control character."""
    return Text(length_max=TEXT_MAX, multiline=True, **options)


def account_reference(**options: Any) -> fields.String:
    return AccountReference(**options)


def card_code(**options: Any) -> fields.String:
    """A card a client sends (recorded mode, ordered packs); the rules check the rest."""
    return Text(length_max=CARD_LENGTH_MAX, **options)


def card_codes(**options: Any) -> fields.List:
    """Cards a client sends, in dealing order: at most a table's packs."""
    return fields.List(card_code(), validate=validate.Length(max=CARDS_MAX), **options)


def log_position(**options: Any) -> fields.Integer:
    """A place in the global event log a client sends, bounded."""
    return fields.Integer(validate=validate.Range(min=0, max=POSITION_MAX), **options)


def waits_for_position() -> fields.Integer:
    """`min_position`: read-your-writes for the reads backed by read models (API.md)."""
    return log_position(metadata={
        "description": "wait (at most 5 s) until the read models have applied this position"})


def time_text(**options: Any) -> fields.String:
    """An RFC 3339 UTC time the service recorded, as text (it sorts in time order)."""
    return fields.String(metadata={"format": "date-time", **options.pop("metadata", {})},
                         **options)


def club_day(description: str = "the club day of the item's time") -> fields.String:
    """`club_day` beside a recorded time in lists and reports (API.md, "The club's
    calendar")."""
    return fields.String(allow_none=True, metadata={"format": "date",
                                                    "description": description})


class ProblemSchema(Schema):
    """application/problem+json (RFC 9457), with the rule that refused the command."""

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    rule = fields.String(metadata={"description": "the RULES.md id, e.g. R4.3"})
    errors = fields.Dict(metadata={"description": "messages for each invalid field"})


class CommandAnswerSchema(Schema):
    """Every command answers `position`, the place of its last event in the event log, so
    that a client can read its own writes (`min_position`); null when a read shows the view."""

    position = fields.Integer(allow_none=True)


class MinPositionSchema(Schema):
    min_position = waits_for_position()


class CursorQuerySchema(Schema):
    after = log_position(load_default=0, metadata={
        "description": "the `next` of the previous page; 0 for the first page"})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
    min_position = waits_for_position()


class Moment(fields.String):
    """A bound of a period (`from`, `to`): a date, meaning a club day (`from` its start, `to`
    its end), or an RFC 3339 time with its offset, meaning that instant (API.md, "The club's
    calendar"). Loads into a date or an aware datetime; the period's schema places it on
    the club's calendar. A date that names no day is refused (422); a time without its
    offset, or anything else, is malformed (400)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        written = super()._deserialize(value, attr, data, **kwargs)
        try:
            return parse_bound(written)
        except OutOfRange as refused:
            raise ValidationError(QueryRefusal(f"{refused}: give {HOW}.")) from None
        except ValueError as error:
            raise ValidationError(f"Not a time: {error}.") from None


def list_limit() -> fields.Integer:
    return fields.Integer(load_default=50, validate=validate.Range(min=1, max=500),
                          metadata={"description": "items per page, 1 to 500"})


def download_format() -> fields.String:
    return fields.String(validate=validate.OneOf(["json", "csv"]), metadata={
        "description": "csv: the whole selection as a CSV download (as `Accept: text/csv`); "
                       "`after` and `limit` are then ignored"})


class PeriodQuerySchema(Schema):
    """A period on the club's calendar: `from` a club day's start or an instant (inclusive),
    `to` a club day's end or an instant (exclusive), compared with each posting's `at`
    (API.md, docs/decisions.md 103). Loads into the texts of recorded times."""

    start = Moment(data_key="from", metadata={
        "description": "from this instant (inclusive): RFC 3339 with its offset, or a date "
                       "for the start of that club day"})
    end = Moment(data_key="to", metadata={
        "description": "until this instant (exclusive): RFC 3339 with its offset, or a date "
                       "for the end of that club day (the day included)"})

    @post_load
    def _on_the_calendar(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        bounds = [(key, data[key]) for key in ("start", "end") if key in data]
        if bounds:
            calendar = club_calendar()
            for key, bound in bounds:
                field = "from" if key == "start" else "to"
                try:
                    data[key] = bound_text(bound, calendar, end=key == "end")
                except OutOfRange as refused:
                    raise ValidationError(QueryRefusal(f"{refused}."), field) from None
                except ValueError as error:
                    raise ValidationError(f"Not a time: {error}.", field) from None
        start, end = data.get("start"), data.get("end")
        if start is not None and end is not None and start >= end:
            raise ValidationError("`from` must come before `to`.", "from")
        return data


class HistoryQuerySchema(PeriodQuerySchema):
    """A statement or kitty history: a period, an order, paging and a download format."""

    after = log_position(metadata={
        "description": "the `next` of the previous page; omitted for the first page"})
    limit = list_limit()
    order = fields.String(load_default="asc", validate=validate.OneOf(["asc", "desc"]),
                          metadata={"description": "asc: oldest first; desc: newest first"})
    format = download_format()
    min_position = waits_for_position()


class PageSchema(Schema):
    """A page of a cursor-paged list: subclasses declare `items`; `next` is the `after` of
    the following page, null on the last one."""

    next = fields.Integer(allow_none=True, required=True)


class KeyedPageSchema(Schema):
    """A page of a list ordered by name or account: `next` is the id to pass as `after`."""

    next = fields.String(allow_none=True, required=True)


class PostingSchema(Schema):
    """One chip movement (API.md, Players and chips): one account debited, one credited."""

    id = fields.String(required=True)
    at = time_text(allow_none=True)
    position = fields.Integer(allow_none=True)
    from_account = fields.String(required=True)
    to_account = fields.String(required=True)
    amount = fields.Integer(required=True)
    rule = fields.String(required=True)
    deal_id = fields.String(allow_none=True)
    hand = fields.Integer(allow_none=True)
    reason = fields.String(required=True)
