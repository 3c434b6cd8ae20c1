from marshmallow import Schema, fields

from api.inputs import Text, Whole
from api.schemas import POSITION_MAX, CursorQuerySchema, PageSchema, time_text

NOTE = {"description": "the C2SP signed note (c2sp.org/tlog-checkpoint): origin, tree size, "
                       "base64 root hash, a blank line, the log's signature line, then one "
                       "line per witness cosignature"}


class CheckpointSchema(Schema):
    origin = fields.String(required=True, metadata={"description": "the log's name"})
    size = fields.Integer(required=True, metadata={
        "description": "leaves of the Merkle tree: the first `size` events of the log"})
    root = fields.String(required=True, metadata={"description": "the root hash, base64"})
    note = fields.String(required=True, metadata=NOTE)
    at = time_text(required=True, metadata={"description": "when it was signed"})


class CheckpointsSchema(PageSchema):
    items = fields.List(fields.Nested(CheckpointSchema), required=True)


class CheckpointsQuerySchema(CursorQuerySchema):
    """`after`: the size of the last checkpoint of the previous page."""


class VerifierKeySchema(Schema):
    name = fields.String(required=True, metadata={"description": "the signing key's name"})
    public_key = fields.String(required=True, metadata={
        "description": "the 32-byte Ed25519 public key, base64"})
    vkey = fields.String(required=True, metadata={
        "description": "the C2SP verifier key: <name>+<hex key id>+base64(0x01 ‖ key)"})


class CosignatureSchema(Schema):
    size = Whole(minimum=1, maximum=POSITION_MAX, required=True, metadata={
        "description": "the size of the checkpoint cosigned"})
    cosignature = Text(length_max=500, required=True, metadata={
        "description": "the witness's signature line (c2sp.org/tlog-cosignature): "
                       "— <name> base64(key id ‖ time ‖ Ed25519 signature)"})
    vkey = Text(length_max=300, required=True, metadata={
        "description": "the witness's verifier key: <name>+<hex key id>+base64(0x04 ‖ key)"})
