#!/usr/bin/env bash
# `make demo`: the service on a fresh SQLite store (var/demo.sqlite3) with a fresh treasurer
# token, 200 Shoot Pontoon deals played by bots through the REST API (`pontoon simulate`),
# then the treasurer's pages to open. The service stays up until Ctrl-C, which stops it
# cleanly (SIGTERM: gunicorn's graceful stop), as does any failure on the way.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=${BIN:-.venv/bin}
HOST=127.0.0.1
PORT=${PONTOON_PORT:-8000}
BASE="http://$HOST:$PORT"
DB=var/demo.sqlite3
LOG=var/demo-serve.log
PLAYERS=${DEMO_PLAYERS:-6}
DEALS=${DEMO_DEALS:-200}
START_TIMEOUT=30
STOP_TIMEOUT=20

SERVER_PID=""
TAIL_PID=""

stop_server() {
    # Once: a second Ctrl-C (make passes one on too) must not cut the clean stop short.
    trap - EXIT
    trap '' INT TERM
    if [[ -n "$TAIL_PID" ]]; then
        kill "$TAIL_PID" 2>/dev/null || true
    fi
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        echo
        echo "stopping the service (pid $SERVER_PID)..."
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 1 $((STOP_TIMEOUT * 5))); do
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.2
        done
        if kill -0 "$SERVER_PID" 2>/dev/null; then
            echo "the service ignored SIGTERM for ${STOP_TIMEOUT}s: killing it" >&2
            kill -KILL -- "-$SERVER_PID" 2>/dev/null || kill -KILL "$SERVER_PID" 2>/dev/null || true
        fi
        wait "$SERVER_PID" 2>/dev/null || true
        echo "service stopped; its log is $LOG"
    fi
}
trap stop_server EXIT
# Ctrl-C is how the demo is meant to end: a clean stop exits 0, so make reports no error.
trap 'exit 0' INT
trap 'exit 143' TERM

if ! "$BIN/python" -c "import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds
try:
    s.bind(('$HOST', $PORT))
except OSError:
    sys.exit(1)" 2>/dev/null; then
    echo "port $PORT on $HOST is taken (is \`make run\` still going?); stop it or set PONTOON_PORT" >&2
    exit 1
fi

mkdir -p var
rm -f "$DB" "$DB-wal" "$DB-shm" "$DB-journal" "$LOG"
export PONTOON_DATABASE_URL="sqlite:///$DB"
PONTOON_TREASURER_TOKEN="pt_$("$BIN/python" -c 'import secrets; print(secrets.token_urlsafe(32))')"
export PONTOON_TREASURER_TOKEN

echo "treasurer token (sign in with it): $PONTOON_TREASURER_TOKEN"
echo "starting the service on a fresh $DB at $BASE (log: $LOG)"
# A session of its own: Ctrl-C reaches this script, which stops the service with SIGTERM.
if command -v setsid >/dev/null; then
    setsid "$BIN/pontoon" serve --migrate --host "$HOST" --port "$PORT" >"$LOG" 2>&1 &
else
    "$BIN/pontoon" serve --migrate --host "$HOST" --port "$PORT" >"$LOG" 2>&1 &
fi
SERVER_PID=$!

deadline=$((SECONDS + START_TIMEOUT))
until "$BIN/python" -c "import urllib.request
urllib.request.urlopen('$BASE/v1/health', timeout=2).read()" 2>/dev/null; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "the service exited before it answered:" >&2
        tail -n 40 "$LOG" >&2
        exit 1
    fi
    if ((SECONDS >= deadline)); then
        echo "GET /v1/health did not answer within ${START_TIMEOUT}s:" >&2
        tail -n 40 "$LOG" >&2
        exit 1
    fi
    sleep 0.2
done
echo "the service answers $BASE/v1/health"

if ! "$BIN/pontoon" simulate --players "$PLAYERS" --deals "$DEALS" --shoot --url "$BASE"; then
    echo "pontoon simulate failed (see above); the service stays up to look at what was played" >&2
fi

cat <<INFO

The service is running at $BASE on $DB.
Treasurer token: $PONTOON_TREASURER_TOKEN

Open the treasurer's pages (sign in with the token above):
  $BASE/web/            sign in
  $BASE/web/balances    every account's balance (the total is 0)
  $BASE/web/tables      the simulated table, its deals and kitty
  $BASE/web/disputes    disputes
  $BASE/docs            the REST API (OpenAPI at $BASE/openapi.json)

Ctrl-C stops the service. Its log follows.
INFO

if tail --version >/dev/null 2>&1; then  # GNU tail: follow the log while the service lives
    tail -n 0 -f --pid="$SERVER_PID" "$LOG" &
    TAIL_PID=$!
fi
wait "$SERVER_PID"
