"""The answers' JSON (api/answers.py) says what Flask's default encoder says, faster."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from uuid import UUID

import pytest
from flask import Flask
from flask.json.provider import DefaultJSONProvider

from api.answers import Answers


@dataclass
class Seat:
    player: str
    chips: int


CASES = [
    {"b": 1, "a": [1, 2.5, None, True], "c": {"z": "x", "y": "é ♠ 10♥"}},
    {"when": datetime(2026, 12, 1, 21, 30, tzinfo=UTC), "day": date(2026, 12, 1)},
    {"id": UUID("12345678-1234-5678-1234-567812345678"), "seat": Seat("p", 3)},
    {"big": 2**70, "small": -(2**63)},  # beyond 64 bits: Flask's encoder writes it
    {"lone": "\ud800"},  # a lone surrogate: orjson refuses it, Flask's encoder escapes it
    {"amount": Decimal("1.5")},
    {2: "int keys", 1: "as Flask writes them"},
    [],
]


def _answer(provider_class: type[DefaultJSONProvider], value: object) -> tuple[bytes, str]:
    app = Flask("answers")
    app.json = provider_class(app)
    with app.app_context():
        response = app.json.response(value)
    return response.get_data(), response.mimetype


@pytest.mark.parametrize("value", CASES, ids=range(len(CASES)))
def test_the_same_json_as_flasks_encoder(value: object) -> None:
    ours, mimetype = _answer(Answers, value)
    theirs, _ = _answer(DefaultJSONProvider, value)
    assert mimetype == "application/json"
    assert json.loads(ours) == json.loads(theirs)
    assert ours.endswith(b"\n")


def test_keys_sorted_and_compact() -> None:
    body, _ = _answer(Answers, {"b": {"d": 1, "c": 2}, "a": [1, 2]})
    assert body == b'{"a":[1,2],"b":{"c":2,"d":1}}\n'


def test_non_ascii_is_utf8() -> None:
    body, _ = _answer(Answers, {"card": "10♥"})
    assert body == '{"card":"10♥"}\n'.encode()


def test_an_exact_answer_is_written_as_made_and_held_to_its_schema_under_the_check() -> None:
    """A presenter's answer skips the schema's dump (api/common.py `_answered`); the tests'
    `CHECK_ANSWERS` refuses one that the dump would change, and a plain result is dumped."""
    from marshmallow import Schema, fields

    from api.common import _answered

    class Shown(Schema):
        id = fields.String()
        chips = fields.Integer()

    app = Flask("answers")
    app.json = Answers(app)
    with app.app_context():
        app.config["CHECK_ANSWERS"] = True
        exact = _answered(({"chips": 3, "id": "t"}, {"ETag": '"7"'}), 201, Shown(), exact=True)
        assert (exact.status_code, exact.headers["ETag"]) == (201, '"7"')
        assert json.loads(exact.get_data()) == {"chips": 3, "id": "t"}
        with pytest.raises(AssertionError, match="not its schema's dump"):
            _answered({"chips": 3, "id": "t", "secret": "x"}, 200, Shown(), exact=True)
        with pytest.raises(AssertionError, match="not its schema's dump"):  # 3.0 == 3
            _answered({"chips": 3.0, "id": "t"}, 200, Shown(), exact=True)
        dumped = _answered({"chips": 3, "id": "t", "secret": "x"}, 200, Shown(), exact=False)
        assert json.loads(dumped.get_data()) == {"chips": 3, "id": "t"}
