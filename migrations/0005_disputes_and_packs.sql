-- A resolution's allow_debt (R11.4's Decision, R11.3), disputes looked up by deal (the
-- deal's audit), and each table's pack mode (an ordered pack is not a fair shuffle).
-- depends: 0004_tokens

ALTER TABLE disputes ADD COLUMN allow_debt BOOLEAN;
CREATE INDEX disputes_by_deal ON disputes (deal_id, raised_position);

-- Existing rows cannot know their pack mode: the tables model is emptied and applies the
-- log again from the start (its events are few: tables open, kitties, banks, deal ends).
ALTER TABLE tables ADD COLUMN pack_mode TEXT;
DELETE FROM tables;
DELETE FROM tracking WHERE application_name = 'Ledger:tables';
