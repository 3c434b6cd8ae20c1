DROP TABLE tables;
