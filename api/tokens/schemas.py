from marshmallow import Schema, fields, validate


class TokenCreateSchema(Schema):
    role = fields.String(required=True, validate=validate.OneOf(["operator", "treasurer"]))


class TokenSchema(Schema):
    token = fields.String(allow_none=True, metadata={
        "description": "shown once; null on an idempotent repeat (only its hash is stored)"})
    role = fields.String(required=True)
    position = fields.Integer(allow_none=True)
