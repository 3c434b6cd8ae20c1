-- depends: 0011_insert_lock
-- Club days (API.md, "The club's calendar"). A club day's bounds depend on the club's time
-- zone and the hour its days start, which the treasurer may change: what happened is kept
-- by the minute (UTC), and the days are summed from the minutes at read time, whatever the
-- calendar says then (docs/decisions.md 105). A year of evening play is about 60,000 rows.
CREATE TABLE activity (
    minute TEXT NOT NULL PRIMARY KEY,
    deals INTEGER NOT NULL,
    postings INTEGER NOT NULL,
    chips_issued BIGINT NOT NULL,
    chips_redeemed BIGINT NOT NULL,
    kitty_change BIGINT NOT NULL,
    disputes_raised INTEGER NOT NULL
);

-- Each account's sums by the hour (UTC), what the period report adds up: a year's report
-- reads some 80,000 of these rather than 600,000 postings, and only the postings of the
-- period's first and last hour (docs/decisions.md 105). `deals`: deals the player sat in,
-- banker or player, void ones included (the report takes those out from `deals`).
CREATE TABLE account_hours (
    hour TEXT NOT NULL,
    account TEXT NOT NULL,
    change BIGINT NOT NULL,
    buy_ins BIGINT NOT NULL,
    cash_outs BIGINT NOT NULL,
    kitty_put_up BIGINT NOT NULL,
    kitty_won BIGINT NOT NULL,
    issued BIGINT NOT NULL,
    redeemed BIGINT NOT NULL,
    to_escrow BIGINT NOT NULL,
    corrections BIGINT NOT NULL,
    deals INTEGER NOT NULL,
    PRIMARY KEY (hour, account)
);

-- A day's deals that were not void, counted from the index alone.
CREATE INDEX deals_by_start_and_phase ON deals (started_at, phase);
