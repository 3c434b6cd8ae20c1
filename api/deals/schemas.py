from marshmallow import Schema, fields, validate

from api.schemas import (
    CommandAnswerSchema,
    PostingSchema,
    card_code,
    card_codes,
    chips,
    time_text,
)
from domain.engine.deal import ACTIONS

CARD = fields.String(allow_none=True, metadata={
    "description": "R1.3 notation (AS, 10H); null where the card is face down to this viewer"})


class ActionSchema(Schema):
    player_id = fields.UUID(required=True, metadata={"description": "who acts; the banker "
                                                                     "names themselves"})
    action = fields.String(required=True, validate=validate.OneOf(ACTIONS))
    hand = fields.Integer(strict=True, validate=validate.Range(min=0, max=3), metadata={
        "description": "default: the hand in play"})
    amount = chips(metadata={
        "description": "stake, buy and shoot; a new shoot bet for split (R9.6)"})
    card = card_code(metadata={"description": "recorded mode: the card dealt"})
    cards = card_codes(metadata={
        "description": "recorded mode: every card the action deals, in order (the second "
                       "round, two after a split)"})


class TurnSchema(Schema):
    player_id = fields.String(required=True)
    hand = fields.Integer(required=True)


class BankerSchema(Schema):
    player_id = fields.String(required=True)
    cards = fields.List(CARD, required=True)
    doubled = fields.Boolean(required=True)


class HandSchema(Schema):
    cards = fields.List(CARD, required=True)
    stake = fields.Integer(required=True)
    shoot_bet = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(
        ["open", "stuck", "bust", "five_card_trick", "pontoon", "royal_pontoon"]))
    bought = fields.List(fields.Integer(), required=True)
    twisted = fields.Boolean(required=True)


class SeatHandsSchema(Schema):
    player_id = fields.String(required=True)
    hands = fields.List(fields.Nested(HandSchema), required=True)


class SettlementSchema(Schema):
    postings = fields.List(fields.Nested(PostingSchema), required=True)


class DealSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    table_id = fields.String(required=True)
    number = fields.Integer(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(
        ["staking", "doubling", "shooting", "playing", "banker", "settled", "void"]))
    turn = fields.Nested(TurnSchema, allow_none=True, required=True)
    banker = fields.Nested(BankerSchema, required=True)
    players = fields.List(fields.Nested(SeatHandsSchema), required=True)
    kitty = fields.Integer(required=True)
    commitment = fields.String(allow_none=True)
    settlement = fields.Nested(SettlementSchema, allow_none=True, required=True)
    void_reason = fields.String(allow_none=True)
    version = fields.Integer(required=True)


class MomentSchema(Schema):
    at = time_text(required=True)
    position = fields.Integer(required=True)
    version = fields.Integer(required=True)
    event = fields.String(required=True)
    action = fields.String(required=True)
    actor = fields.String(allow_none=True)
    player_id = fields.String(allow_none=True)
    player = fields.String(allow_none=True)
    hand = fields.Integer(allow_none=True)
    cards = fields.List(CARD, allow_none=True)
    amount = fields.Integer(allow_none=True)
    rule = fields.String(allow_none=True)
    automatic = fields.Boolean(allow_none=True)


class AuditPostingSchema(PostingSchema):
    explanation = fields.String(required=True)


class AuditPackSchema(Schema):
    commitment = fields.String(allow_none=True)
    seed = fields.String(allow_none=True, metadata={"description": "once revealed (R1.7)"})
    seed_matches = fields.Boolean(allow_none=True)


class VerificationSchema(Schema):
    replayed = fields.Boolean(required=True)
    differences = fields.List(fields.String(), required=True)
    chips_conserved = fields.Boolean(required=True)


class AuditSchema(Schema):
    deal_id = fields.String(required=True)
    table_id = fields.String(required=True)
    number = fields.Integer(required=True)
    phase = fields.String(required=True)
    banker = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    timeline = fields.List(fields.Nested(MomentSchema), required=True)
    postings = fields.List(fields.Nested(AuditPostingSchema), required=True)
    pack = fields.Nested(AuditPackSchema, required=True)
    verification = fields.Nested(VerificationSchema, required=True)


class LegalActionSchema(Schema):
    player_id = fields.String(required=True)
    hand = fields.Integer(required=True)
    action = fields.String(required=True)
    amount_min = fields.Integer(allow_none=True, metadata={
        "description": "for split: the smallest shoot bet on the new hand (optional)"})
    amount_max = fields.Integer(allow_none=True)


class LegalActionsSchema(Schema):
    phase = fields.String(required=True)
    complete = fields.Boolean(required=True, metadata={
        "description": "false: actions that depend on face-down cards are left out"})
    items = fields.List(fields.Nested(LegalActionSchema), required=True)
