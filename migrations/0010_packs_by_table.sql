-- A table's packs in the order shuffled (GET /v1/tables/{id}/packs): a table played for
-- years has thousands of them, found by this index rather than sorted at every page.
-- depends: 0009_insert_function

CREATE INDEX shuffles_by_table ON shuffles (table_id, shuffled_position);
