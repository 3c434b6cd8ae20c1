-- Webhook subscriptions and their deliveries (projections/webhooks/). The outbox follows the
-- event log like a read model (its position in `tracking`), writing one delivery per event
-- and subscription in the same transaction; the sender then records each attempt. These
-- tables are never rebuilt: a delivery made is not made again.
-- depends: 0007_projection_failures

CREATE TABLE webhooks (
    webhook_id TEXT NOT NULL PRIMARY KEY,
    url TEXT NOT NULL,
    -- The signing key: the sender needs it whole. Never shown after the POST that made it.
    secret TEXT NOT NULL,
    events TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    position BIGINT NOT NULL,
    disabled_at TEXT
);

CREATE TABLE webhook_event_types (
    type TEXT NOT NULL,
    webhook_id TEXT NOT NULL,
    PRIMARY KEY (type, webhook_id)
);

CREATE TABLE webhook_deliveries (
    webhook_id TEXT NOT NULL,
    position BIGINT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_status INTEGER,
    last_error TEXT,
    first_attempt_at TEXT,
    delivered_at TEXT,
    next_attempt_at TEXT,
    PRIMARY KEY (webhook_id, position)
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, position)
    WHERE delivered_at IS NULL;
