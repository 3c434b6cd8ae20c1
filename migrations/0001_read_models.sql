-- The read models of the projections (projections/). The same SQL runs on SQLite and
-- PostgreSQL. Amounts are whole chips; times are RFC 3339 UTC text, which sorts in order.
-- depends:

-- One row per projection: the last event position it applied, written in the same
-- transaction as its rows (the eventsourcing library's single-row tracking table).
CREATE TABLE tracking (
    application_name TEXT NOT NULL PRIMARY KEY,
    notification_id BIGINT
);

-- Every account's balance: players, the treasury, each table's kitty, each deal's escrow.
CREATE TABLE accounts (
    account TEXT NOT NULL PRIMARY KEY,
    kind TEXT NOT NULL,
    owner TEXT,
    name TEXT,
    balance BIGINT NOT NULL,
    position BIGINT NOT NULL
);

-- One row per entry on an account (statements, kitty history, balances at a past time).
CREATE TABLE postings (
    account TEXT NOT NULL,
    position BIGINT NOT NULL,
    posting_id TEXT NOT NULL,
    at TEXT NOT NULL,
    change BIGINT NOT NULL,
    balance_after BIGINT NOT NULL,
    from_account TEXT NOT NULL,
    to_account TEXT NOT NULL,
    amount BIGINT NOT NULL,
    rule TEXT NOT NULL,
    reason TEXT NOT NULL,
    deal_id TEXT,
    table_id TEXT,
    hand INTEGER,
    PRIMARY KEY (account, position)
);
CREATE INDEX postings_by_time ON postings (account, at);

-- Deals, and every event of each deal in order: the audit's timeline.
CREATE TABLE deals (
    deal_id TEXT NOT NULL PRIMARY KEY,
    table_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    banker TEXT NOT NULL,
    players TEXT NOT NULL,
    phase TEXT NOT NULL,
    commitment TEXT,
    started_at TEXT NOT NULL,
    started_position BIGINT NOT NULL,
    ended_at TEXT,
    ended_position BIGINT
);
CREATE INDEX deals_by_table ON deals (table_id, number);

CREATE TABLE deal_events (
    deal_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    position BIGINT NOT NULL,
    at TEXT NOT NULL,
    type TEXT NOT NULL,
    actor TEXT,
    fact TEXT NOT NULL,
    PRIMARY KEY (deal_id, version)
);

-- Shuffle commitments of each table, with the seed once the next shuffle reveals it (R1.7).
CREATE TABLE shuffles (
    table_id TEXT NOT NULL,
    commitment TEXT NOT NULL,
    seed TEXT,
    shuffled_position BIGINT NOT NULL,
    revealed_position BIGINT,
    PRIMARY KEY (table_id, commitment)
);

-- Disputes about deals and their resolutions (R11.4).
CREATE TABLE disputes (
    dispute_id TEXT NOT NULL PRIMARY KEY,
    deal_id TEXT NOT NULL,
    raised_by TEXT NOT NULL,
    reason TEXT NOT NULL,
    status TEXT NOT NULL,
    decision TEXT,
    note TEXT,
    corrections TEXT,
    resolved_by TEXT,
    raised_at TEXT NOT NULL,
    raised_position BIGINT NOT NULL,
    resolved_at TEXT,
    resolved_position BIGINT
);
CREATE INDEX disputes_by_status ON disputes (status, raised_position);
