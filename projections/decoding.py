"""Decoding stored events fast, into exactly the objects the library's mapper gives.

The mapper (eventsourcing.persistence.Mapper.to_domain_event) parses the stored JSON with a
Python object hook called for every object in it, nested postings and rules included, to
find the library's transcoded values (`{"_type_": ..., "_data_": ...}`). Ours hold those at
the top level only: the event's `timestamp`, and a token's `expires_at`. So the state is
parsed by orjson (in C, without a hook), the top-level transcoded values are decoded as the
library's transcodings do, and the rest is what the mapper does: the originator's id and
version, the upcasters from the stored `class_version` on, and the event object made
without calling its constructor.

Whatever this cannot vouch for goes to the mapper itself, which gives the same object or
raises its own error: a cipher or compressor; a transcoded value anywhere but the top
level (counted in the raw bytes, so a text that merely looks like one counts too; bytes
with a `\\u` escape are not counted on); a transcoding other than the library's datetime
and UUID; a run of 19 digits or more (orjson reads an integer beyond 64 bits as a float,
where the standard library keeps it exact); JSON that orjson refuses (NaN, 1E400, lone
surrogates). tests/unit/test_decoding.py holds the two to each other.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple
from uuid import UUID

import orjson
from eventsourcing.persistence import (
    DatetimeAsISO,
    JSONTranscoder,
    UUIDAsHex,
    find_id_convertor,
)
from eventsourcing.utils import resolve_topic

_TRANSCODED = b'"_type_"'
_ESCAPED = b"\\u"
# A run of 19 digits may be an integer beyond 64 bits, which orjson would read as a float:
# digits made zeros (in C), then a run of zeros found (in C), is 6 times a regular expression.
_DIGITS = bytes.maketrans(b"0123456789", b"0" * 10)
_LONG_NUMBER = b"0" * 19


class Row(NamedTuple):
    """A stored event as the log holds it, and as the read side reads it (a notification)."""

    id: int
    originator_id: Any
    originator_version: int
    topic: str
    state: bytes


class _Class(NamedTuple):
    cls: type
    version: int
    upcasters: tuple[Callable[[dict[str, Any]], None], ...]  # from stored version 1 on
    ids: Callable[[Any], Any]


class Decoder:
    """`decoder(notification)` is `mapper.to_domain_event(notification)`, faster."""

    def __init__(self, mapper: Any) -> None:
        self.mapper = mapper
        transcoder = mapper.transcoder
        self.plain = (mapper.cipher is None and mapper.compressor is None
                      and isinstance(transcoder, JSONTranscoder)
                      and type(transcoder.names.get("datetime_iso")) is DatetimeAsISO
                      and type(transcoder.names.get("uuid_hex")) is UUIDAsHex)
        self.classes: dict[tuple[str, type], _Class] = {}

    def __call__(self, note: Any) -> Any:
        if not self.plain:
            return self.mapper.to_domain_event(note)
        try:
            state = orjson.loads(note.state)
            found = self._class(note.topic, type(note.originator_id))
            vouched = type(state) is dict and _untranscoded(state, note.state)
        except Exception:  # noqa: BLE001 (the mapper says what is wrong, as it would have)
            vouched = False
        if not vouched:
            return self.mapper.to_domain_event(note)
        state["originator_id"] = found.ids(note.originator_id)
        state["originator_version"] = note.originator_version
        stored = state.pop("class_version", 1)
        if stored != found.version:
            if type(stored) is not int or not 1 <= stored <= found.version:
                return self.mapper.to_domain_event(note)
            for upcast in found.upcasters[stored - 1:]:
                upcast(state)
        event: Any = object.__new__(found.cls)
        object.__setattr__(event, "__dict__", state)
        return event

    def _class(self, topic: str, id_type: type) -> _Class:
        key = (topic, id_type)
        found = self.classes.get(key)
        if found is None:
            cls = resolve_topic(topic)
            version = getattr(cls, "class_version", 1)
            upcasters = tuple(getattr(cls, f"upcast_v{v}_v{v + 1}") for v in range(1, version))
            found = self.classes[key] = _Class(cls, version, upcasters,
                                               find_id_convertor(cls, id_type))
        return found


def _untranscoded(state: dict[str, Any], raw: bytes) -> bool:
    """Decode the top-level transcoded values in place, as the library's transcodings do;
    False if the raw bytes hold any other (the mapper must decode them)."""
    # A key spelled with escapes would not be counted; a long number may not be exact.
    if _ESCAPED in raw or _LONG_NUMBER in raw.translate(_DIGITS):
        return False
    expected = raw.count(_TRANSCODED)
    if expected == 1 and _decoded(state, "timestamp"):  # nearly always
        return True
    for key in list(state) if expected else ():
        expected -= _decoded(state, key)
    return expected == 0


def _decoded(state: dict[str, Any], key: str) -> bool:
    """Whether `state[key]` was a datetime or UUID the library transcoded (now decoded)."""
    value = state.get(key)
    if type(value) is not dict or len(value) != 2 or "_data_" not in value:
        return False
    kind, data = value.get("_type_"), value["_data_"]
    if kind == "datetime_iso" and type(data) is str:
        state[key] = datetime.fromisoformat(data)
    elif kind == "uuid_hex" and type(data) is str:
        state[key] = UUID(data)
    else:
        return False
    return True
