DROP INDEX disputes_by_raising;
DROP INDEX deals_by_start;
DROP INDEX deals_by_table_and_start;
DROP INDEX postings_by_deal;
DROP INDEX postings_by_at;
DROP INDEX tables_by_opening;
ALTER TABLE tables DROP COLUMN name_key;
DROP INDEX accounts_by_kind_and_name;
ALTER TABLE accounts DROP COLUMN name_key;
