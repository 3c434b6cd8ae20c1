"""The service benchmark's baseline: the least a Flask + gunicorn + PostgreSQL app does per POST.

`benchmarks/service.py` runs it under gunicorn with sync workers, as many as the service has
worker processes, against the same PostgreSQL cluster as the service:

    BASELINE_DSN=postgresql://... gunicorn -k sync -w 2 -b 127.0.0.1:PORT \
        benchmarks.baseline_app:app

`POST /events` takes a JSON event `{"stream": uuid, "version": int, "topic": str,
"state": {...}}` and does one autocommitted INSERT of it into `events`, whose key is an
identity column (`TABLE` below; the harness creates it), answering 201 `{"id": n}`, or 409
when the stream already has that version. `GET /ping` answers without the database.

Each worker process opens one connection on its first POST (a sync worker handles one
request at a time, so one connection is all it can use) and keeps it.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from typing import Any

import psycopg
from flask import Flask, abort, request

TABLE = """CREATE TABLE IF NOT EXISTS events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream uuid NOT NULL, version int NOT NULL, topic text NOT NULL, state bytea NOT NULL,
    UNIQUE (stream, version))"""
INSERT = "INSERT INTO events (stream, version, topic, state) VALUES (%s, %s, %s, %s) RETURNING id"

app = Flask(__name__)

_connection: psycopg.Connection[Any] | None = None
_lock = threading.Lock()


def connection() -> psycopg.Connection[Any]:
    """This worker's connection, opened on first use (after gunicorn forked the worker)."""
    global _connection
    with _lock:
        if _connection is None or _connection.closed:
            _connection = psycopg.connect(os.environ["BASELINE_DSN"], autocommit=True)
        return _connection


@app.get("/ping")
def ping() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/events")
def append_event() -> tuple[dict[str, Any], int]:
    body = request.get_json(force=True, silent=True)
    if not isinstance(body, dict):
        abort(400)
    try:
        stream = uuid.UUID(body["stream"])
        version = int(body["version"])
        topic = str(body["topic"])
        state = json.dumps(body.get("state", {}), separators=(",", ":")).encode()
    except (KeyError, TypeError, ValueError):
        abort(400)
    try:
        row = connection().execute(INSERT, (stream, version, topic, state)).fetchone()
    except psycopg.errors.UniqueViolation:
        return {"error": "version conflict"}, 409
    assert row is not None
    return {"id": row[0]}, 201
