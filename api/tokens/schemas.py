from marshmallow import Schema, fields

from api.schemas import CommandAnswerSchema, CursorQuerySchema, PageSchema, name_text
from api.vocabulary import TOKEN_ROLE, Choice

LABEL = {"description": "what the token is for, to tell tokens apart in the list"}
EXPIRES = {"description": "RFC 3339 time with a zone; refused from then on (never if absent)"}


class TokenCreateSchema(Schema):
    role = Choice(TOKEN_ROLE, only=("operator", "treasurer", "witness"), required=True)
    label = name_text(metadata=LABEL)
    expires_at = fields.AwareDateTime(metadata=EXPIRES)


class PlayerTokenCreateSchema(Schema):
    label = name_text(metadata=LABEL)
    expires_at = fields.AwareDateTime(metadata=EXPIRES)


class TokenSchema(CommandAnswerSchema):
    token = fields.String(allow_none=True, metadata={
        "description": "shown once; null on an idempotent repeat (only its hash is stored)"})
    role = Choice(TOKEN_ROLE, required=True)
    id = fields.String(metadata={"description": "the token's id in GET /v1/tokens"})
    player_id = fields.String(allow_none=True, metadata={
        "description": "the player a player token signs in as; null for staff"})
    label = fields.String(allow_none=True, metadata=LABEL)
    expires_at = fields.String(allow_none=True, metadata=EXPIRES)


class TokenItemSchema(Schema):
    """A token as the treasurer's list shows it: never the token itself."""

    id = fields.String(required=True)
    role = Choice(TOKEN_ROLE, required=True)
    label = fields.String(allow_none=True)
    player_id = fields.String(allow_none=True)
    created_at = fields.String(required=True)
    expires_at = fields.String(allow_none=True)
    revoked = fields.Boolean(required=True)


class TokensSchema(PageSchema):
    items = fields.List(fields.Nested(TokenItemSchema), required=True)


class TokensQuerySchema(CursorQuerySchema):
    pass
