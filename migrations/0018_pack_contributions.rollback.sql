DROP INDEX shuffles_awaiting_a_deal;
ALTER TABLE shuffles DROP COLUMN dealt_position;
DROP TABLE pack_contributions;
