from marshmallow import Schema, fields


class HealthSchema(Schema):
    status = fields.String(required=True)
    store = fields.String(required=True)
    position = fields.Integer(allow_none=True)
    projections = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
