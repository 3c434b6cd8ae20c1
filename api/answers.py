"""The JSON every answer is written in: orjson, in C, where Flask's default is the standard
library's encoder in Python (a tenth of a command's serving time went there).

The text says the same as Flask's default: keys sorted, compact, a closing newline, dates and
datetimes in Flask's HTTP form (handed back to Flask's own `default`), and anything orjson
cannot write (an integer beyond 64 bits, a lone surrogate) written by Flask's encoder
instead. Only non-ASCII characters differ: UTF-8, not `\\u` escapes, as JSON allows.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response
from flask.json.provider import DefaultJSONProvider

_OPTIONS = (orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
            | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_APPEND_NEWLINE)


class Answers(DefaultJSONProvider):
    def response(self, *args: Any, **kwargs: Any) -> Response:
        if self._app.debug and self.compact is None or self.compact is False:
            return super().response(*args, **kwargs)  # indented, for people reading it
        obj = self._prepare_response_obj(args, kwargs)
        try:
            body = orjson.dumps(obj, default=self.default, option=_OPTIONS)
        except (orjson.JSONEncodeError, TypeError):
            return super().response(*args, **kwargs)
        return self._app.response_class(body, mimetype=self.mimetype)
