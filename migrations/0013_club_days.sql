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

-- A day's deals that were not void, counted from the index alone.
CREATE INDEX deals_by_start_and_phase ON deals (started_at, phase);
