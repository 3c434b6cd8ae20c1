ALTER TABLE tables DROP COLUMN pack_mode;
DROP INDEX disputes_by_deal;
ALTER TABLE disputes DROP COLUMN allow_debt;
