-- Lists, searches and the period report (API.md, "Lists, filters, downloads"): keys to find
-- players and tables by name, and indexes for paging by position and filtering by time at
-- a real club's scale (100,000 postings), never by OFFSET.
-- depends: 0005_disputes_and_packs

-- A name folded for case-insensitive prefix search (Python's casefold() when a projection
-- writes it; lower() here for rows written before this migration).
ALTER TABLE accounts ADD COLUMN name_key TEXT;
UPDATE accounts SET name_key = lower(name) WHERE name IS NOT NULL;
CREATE INDEX accounts_by_kind_and_name ON accounts (kind, name_key, account);

ALTER TABLE tables ADD COLUMN name_key TEXT;
UPDATE tables SET name_key = lower(name);
CREATE INDEX tables_by_opening ON tables (opened_at, table_id);

-- The period report and the audit read postings by time and by deal across accounts.
CREATE INDEX postings_by_at ON postings (at);
CREATE INDEX postings_by_deal ON postings (deal_id);

-- A table's deals by date; deals of a period; disputes by date (by deal: 0005).
CREATE INDEX deals_by_table_and_start ON deals (table_id, started_at);
CREATE INDEX deals_by_start ON deals (started_at);
CREATE INDEX disputes_by_raising ON disputes (raised_at);
