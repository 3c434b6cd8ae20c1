from marshmallow import Schema, fields, validate

from api.schemas import CommandAnswerSchema


class TokenCreateSchema(Schema):
    role = fields.String(required=True, validate=validate.OneOf(["operator", "treasurer"]))


class TokenSchema(CommandAnswerSchema):
    token = fields.String(allow_none=True, metadata={
        "description": "shown once; null on an idempotent repeat (only its hash is stored)"})
    role = fields.String(required=True)
