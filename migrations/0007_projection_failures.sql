-- A read model that cannot apply an event (projections/failures.py): which, at what
-- position, the error, and when it is tried again. Every process reads it for health,
-- reads with min_position and metrics; the runner removes the row once the model recovers.
-- depends: 0006_lists_and_reports

CREATE TABLE projection_failures (
    model TEXT NOT NULL PRIMARY KEY,
    position BIGINT NOT NULL,
    error TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    failed_at TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL
);
