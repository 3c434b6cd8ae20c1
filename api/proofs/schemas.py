from typing import Any

from marshmallow import Schema, ValidationError, fields, validates_schema

from api.schemas import log_position

PROOF = {"description": "the RFC 6962 path: each hash (32 bytes, base64) in the order the "
                        "RFC 9162 verification algorithm takes them"}


def _size(**options: Any) -> fields.Integer:
    return log_position(required=True, **options)


class InclusionQuerySchema(Schema):
    index = _size(metadata={"description": "the leaf: the event's 0-based order in the log"})
    size = _size(metadata={"description": "the tree's size: a checkpoint's `size`"})

    @validates_schema
    def _leaf_in_tree(self, data: dict[str, Any], **_: Any) -> None:
        if data["index"] >= data["size"]:
            raise ValidationError(f"Must be below `size` ({data['size']}).", "index")


class ConsistencyQuerySchema(Schema):
    first = _size(data_key="from", metadata={"description": "the older tree's size"})
    second = _size(data_key="to", metadata={"description": "the newer tree's size"})

    @validates_schema
    def _grows(self, data: dict[str, Any], **_: Any) -> None:
        if data["first"] > data["second"]:
            raise ValidationError("Must not be above `to`: a log only grows.", "from")


class InclusionSchema(Schema):
    index = fields.Integer(required=True)
    size = fields.Integer(required=True)
    leaf_hash = fields.String(required=True, metadata={
        "description": "SHA-256(0x00 ‖ position, 8 bytes ‖ event hash), base64"})
    proof = fields.List(fields.String(), required=True, metadata=PROOF)


class ConsistencySchema(Schema):
    first = fields.Integer(required=True, data_key="from")
    second = fields.Integer(required=True, data_key="to")
    proof = fields.List(fields.String(), required=True, metadata=PROOF)

