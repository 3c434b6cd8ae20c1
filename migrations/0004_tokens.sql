-- Bearer tokens for the treasurer's list (projections/tokens.py): never the token itself.
-- `id` is the principal's id (shown); `token_key` the aggregate's (derived from the token's
-- hash, never shown).
-- depends: 0002_tables

CREATE TABLE tokens (
    id TEXT NOT NULL PRIMARY KEY,
    token_key TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    label TEXT,
    player_id TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    revoked_at TEXT,
    position BIGINT NOT NULL
);
CREATE INDEX tokens_by_position ON tokens (position);
