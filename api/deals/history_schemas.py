"""The hand history's shape (API.md, "Hand history"; projections/hand_history.py)."""

from marshmallow import Schema, fields

from api.deals.schemas import AuditContributionSchema, AuditPostingSchema


class HistoryDealSchema(Schema):
    id = fields.String(required=True)
    number = fields.Integer(required=True)
    phase = fields.String(required=True, metadata={"description": "settled or void"})
    banker = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    started_at = fields.String(required=True)
    ended_at = fields.String(allow_none=True)


class HistoryTableSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(allow_none=True)
    mode = fields.String(required=True, metadata={"description": "shuffled, ordered or "
                                                                 "recorded (R1.7)"})


class HistoryPackSchema(Schema):
    commitment = fields.String(allow_none=True, metadata={
        "description": "SHA-256 of the server seed's bytes, recorded before any "
                       "contribution and before the first card (R1.7)"})
    server_seed = fields.String(allow_none=True, metadata={
        "description": "64 hex digits once revealed at the pack's next shuffle; null until "
                       "then, when the draws cannot be checked yet"})
    contributions = fields.List(fields.Nested(AuditContributionSchema), required=True)
    algorithm = fields.String(required=True, metadata={
        "description": "pontoon-shuffle-v1 (the seed mixed by pontoon-mix-v1, then "
                       "Fisher–Yates on HMAC-SHA256 in counter mode); ordered or recorded "
                       "for a pack given in order or entered card by card"})
    packs = fields.Integer(required=True, metadata={"description": "1 or 2 (R1.1)"})


class DrawSchema(Schema):
    pack_index = fields.Integer(allow_none=True, metadata={
        "description": "the card's 0-based place in the pack's order since its shuffle: "
                       "the shuffled order, then each card in the order it went back to "
                       "the bottom (R1.4, R1.5); null at a recorded table"})
    card = fields.String(allow_none=True, metadata={
        "description": "null for a sat-out player's card until the seed is revealed"})
    to = fields.String(required=True, metadata={"description": "the player (or banker)"})
    hand = fields.Integer(required=True)
    position = fields.Integer(required=True, metadata={
        "description": "the log position of the CardDealt event that dealt it"})
    version = fields.Integer(required=True)


class HistoryActionSchema(Schema):
    position = fields.Integer(required=True)
    version = fields.Integer(required=True)
    at = fields.String(required=True)
    action = fields.String(required=True)
    player_id = fields.String(allow_none=True)
    hand = fields.Integer(allow_none=True)
    amount = fields.Integer(allow_none=True)
    actor = fields.String(allow_none=True)


class HistoryEventSchema(Schema):
    position = fields.Integer(allow_none=True)
    index = fields.Integer(allow_none=True, metadata={
        "description": "the event's leaf index in the Merkle log: its 0-based order"})
    aggregate_id = fields.String(required=True)
    version = fields.Integer(required=True)
    topic = fields.String(required=True)
    state = fields.String(allow_none=True, metadata={
        "description": "base64 of the stored bytes; null while withheld"})
    event_hash = fields.String(allow_none=True, metadata={
        "description": "the event hash recorded for it (hex, domain/integrity.py)"})
    withheld = fields.String(allow_none=True, metadata={
        "description": "why the bytes are withheld (the pack's order until its seed is "
                       "revealed, decision 137); null when given"})


class EventInclusionSchema(Schema):
    index = fields.Integer(required=True)
    proof = fields.List(fields.String(), required=True, metadata={
        "description": "the RFC 6962 inclusion path, base64 hashes"})


class HandHistorySchema(Schema):
    format = fields.String(required=True, metadata={"description": "pontoon-hand-history-v1"})
    deal = fields.Nested(HistoryDealSchema, required=True)
    table = fields.Nested(HistoryTableSchema, required=True)
    pack = fields.Nested(HistoryPackSchema, required=True)
    draws = fields.List(fields.Nested(DrawSchema), required=True)
    actions = fields.List(fields.Nested(HistoryActionSchema), required=True)
    postings = fields.List(fields.Nested(AuditPostingSchema), required=True)
    events = fields.List(fields.Nested(HistoryEventSchema), required=True)
    checkpoint = fields.String(allow_none=True, metadata={
        "description": "the signed checkpoint (a C2SP signed note) the proofs are against"})
    inclusion = fields.List(fields.Nested(EventInclusionSchema), required=True)
