from marshmallow import Schema, fields

from api.schemas import (
    AMOUNT_MAX,
    CommandAnswerSchema,
    PostingSchema,
    card_code,
    card_codes,
    chips,
    small_number,
    time_text,
)
from api.vocabulary import ACTION, DISPUTE_DECISION, DISPUTE_STATUS, HAND_STATUS, PHASE, Choice

CARD = fields.String(allow_none=True, metadata={
    "description": "R1.3 notation (AS, 10H); null where the card is face down to this viewer"})


class ActionSchema(Schema):
    player_id = fields.UUID(required=True, metadata={"description": "who acts; the banker "
                                                                     "names themselves"})
    action = Choice(ACTION, required=True)
    hand = small_number(0, AMOUNT_MAX, metadata={
        "description": "default: the hand in play; a hand the player does not hold is 422 "
                       "naming the action's rule, one held but not in turn 409"})
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
    status = Choice(HAND_STATUS, required=True)
    bought = fields.List(fields.Integer(), required=True)
    twisted = fields.Boolean(required=True)


class SeatHandsSchema(Schema):
    player_id = fields.String(required=True)
    hands = fields.List(fields.Nested(HandSchema), required=True)
    sat_out = fields.String(allow_none=True, metadata={
        "description": "why the player sat this deal out (R3.5: when their turn to stake "
                       "came they held less than the minimum stake); their hands are then "
                       "empty"})


class SettlementSchema(Schema):
    postings = fields.List(fields.Nested(PostingSchema), required=True)


class DealSchema(CommandAnswerSchema):
    id = fields.String(required=True)
    table_id = fields.String(required=True)
    number = fields.Integer(required=True)
    phase = Choice(PHASE, required=True)
    turn = fields.Nested(TurnSchema, allow_none=True, required=True)
    banker = fields.Nested(BankerSchema, required=True)
    players = fields.List(fields.Nested(SeatHandsSchema), required=True)
    kitty = fields.Integer(required=True)
    commitment = fields.String(allow_none=True)
    settlement = fields.Nested(SettlementSchema, allow_none=True, required=True)
    void_reason = fields.String(allow_none=True)
    version = fields.Integer(required=True)
    fair_shuffle = fields.Boolean(allow_none=True, metadata={
        "description": "false at a table with an ordered pack: its reshuffles come from a "
                       "seed every player can derive"})


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


class AuditContributionSchema(Schema):
    player_id = fields.String(required=True)
    value = fields.String(required=True, metadata={"description": "64 hex digits"})


class AuditPackSchema(Schema):
    commitment = fields.String(allow_none=True)
    seed = fields.String(allow_none=True, metadata={"description": "once revealed (R1.7)"})
    seed_matches = fields.Boolean(allow_none=True)
    contributions = fields.List(fields.Nested(AuditContributionSchema), required=True,
                                metadata={"description": "the players' randomness mixed into "
                                                         "the seed, in the order recorded "
                                                         "(R1.7)"})
    mixed_seed = fields.String(allow_none=True, metadata={
        "description": "the seed the pack was shuffled with, once the seed is revealed: "
                       "HMAC-SHA256 of the contributions under the seed, or the seed itself "
                       "without any (R1.7)"})


class VerificationSchema(Schema):
    replayed = fields.Boolean(required=True)
    differences = fields.List(fields.String(), required=True)
    chips_conserved = fields.Boolean(required=True)


class AuditDisputeSchema(Schema):
    id = fields.String(required=True)
    status = Choice(DISPUTE_STATUS, required=True)
    reason = fields.String(required=True)
    decision = Choice(DISPUTE_DECISION, allow_none=True)
    note = fields.String(allow_none=True)
    allow_debt = fields.Boolean(allow_none=True)
    corrections = fields.List(fields.Nested(AuditPostingSchema), required=True, metadata={
        "description": "the correcting postings of its resolution (R11.4)"})
    raised_by = fields.String(required=True)
    raised_at = fields.String(required=True)
    resolved_at = fields.String(allow_none=True)


class AuditSchema(Schema):
    deal_id = fields.String(required=True)
    table_id = fields.String(required=True)
    number = fields.Integer(required=True)
    phase = Choice(PHASE, required=True)
    banker = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    timeline = fields.List(fields.Nested(MomentSchema), required=True)
    postings = fields.List(fields.Nested(AuditPostingSchema), required=True)
    pack = fields.Nested(AuditPackSchema, required=True)
    verification = fields.Nested(VerificationSchema, required=True)
    disputes = fields.List(fields.Nested(AuditDisputeSchema), required=True)
    net_after_corrections = fields.Dict(
        keys=fields.String(), values=fields.Integer(), required=True,
        metadata={"description": "each account's net result from the deal and the "
                                 "corrections of its disputes"})
    fair_shuffle = fields.Boolean(allow_none=True, metadata={
        "description": "false at a table with an ordered pack: its reshuffles come from a "
                       "seed every player can derive"})


class LegalActionSchema(Schema):
    player_id = fields.String(required=True)
    hand = fields.Integer(required=True)
    action = Choice(ACTION, required=True)
    amount_min = fields.Integer(allow_none=True, metadata={
        "description": "for split: the smallest shoot bet on the new hand (optional); null "
                       "for a stake: the player holds less than the minimum stake, and their "
                       "stake sits the deal out (R3.5)"})
    amount_max = fields.Integer(allow_none=True)


class LegalActionsSchema(Schema):
    phase = Choice(PHASE, required=True)
    complete = fields.Boolean(required=True, metadata={
        "description": "false: actions that depend on face-down cards are left out"})
    items = fields.List(fields.Nested(LegalActionSchema), required=True)
