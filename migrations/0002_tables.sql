-- Tables for listing in the treasurer's pages (projections/tables.py).
-- depends: 0001_read_models

CREATE TABLE tables (
    table_id TEXT NOT NULL PRIMARY KEY,
    name TEXT NOT NULL,
    shoot BOOLEAN NOT NULL,
    banker TEXT NOT NULL,
    kitty BIGINT NOT NULL,
    deals_played INTEGER NOT NULL,
    opened_at TEXT NOT NULL,
    position BIGINT NOT NULL
);
