DROP TABLE projection_failures;
