-- depends: 0011_insert_lock
-- Players' entropy (R1.7): each contribution to a pack, in the order recorded (the packs
-- list, the audits and the hand histories show them); and the position of the first deal
-- dealt from each pack, which closed it to contributions (NULL while none: the players'
-- pages look for such packs at their tables).

CREATE TABLE pack_contributions (
    table_id TEXT NOT NULL,
    commitment TEXT NOT NULL,
    position BIGINT NOT NULL,
    player_id TEXT NOT NULL,
    value TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (table_id, commitment, position)
);

ALTER TABLE shuffles ADD COLUMN dealt_position BIGINT;

UPDATE shuffles SET dealt_position = (
    SELECT MIN(d.started_position) FROM deals d
    WHERE d.table_id = shuffles.table_id AND d.commitment = shuffles.commitment);

CREATE INDEX shuffles_awaiting_a_deal ON shuffles (table_id) WHERE dealt_position IS NULL;
