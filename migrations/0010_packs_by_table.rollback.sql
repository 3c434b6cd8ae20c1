DROP INDEX shuffles_by_table;
