DROP INDEX deals_by_start_and_phase;
DROP TABLE activity;
DROP TABLE account_hours;
DELETE FROM tracking WHERE application_name = 'Ledger:activity';
